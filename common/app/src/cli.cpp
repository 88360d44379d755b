#include <scan/cli.hpp>
#include <scan/error.hpp>
#include <scan/trace.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <type_traits>

namespace scan {
namespace {

int parse_int(std::string_view text, const std::string& option, int lo, int hi) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < lo || value > hi) {
    throw UsageError(option + " must be a whole number from " + std::to_string(lo) + " to " +
                     std::to_string(hi) + ", not '" + std::string(text) + "'");
  }
  return value;
}

/// CLI11's help, with the usage line first as Unix programs print it.
class UsageFirst : public CLI::Formatter {
 public:
  std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override {
    return make_usage(app, name) + "\n" + make_description(app) + make_groups(app, mode) + "\n" +
           make_footer(app);
  }
};

/// The chapter programs' options, for parsing and for `--help`.
void add_chapter_options(CLI::App& app, Options& o) {
  configure_app(app);
  add_count_option(app, "--n", o.n, "elements, with K/M/G suffixes (powers of two) [16M]");
  add_type_and_op_options(app, o.dtype, o.op);
  add_kind_option(app, o.kind);
  add_value_option(app, "--variant", "V",
                   "a variant's name, a comma-separated list of names, all, or sweep (tuning points) [all]",
                   [&o](const std::string& v) { o.variant = v; });
  add_value_option(app, "--block", "B", "threads per block, for variants that take it [theirs]",
                   [&o](const std::string& v) {
                     o.block = parse_int(v, "--block", 1, 1024);
                     if (const std::string why = Variant::block_size_problem(o.block); !why.empty()) {
                       throw UsageError("--block: " + why);
                     }
                   });
  add_run_options(app, o);
  add_value_option(app, "--input", "LIST", "scan these comma-separated values and print them",
                   [&o](const std::string& v) { o.input = split_list(v); });
  app.add_flag("--trace", o.trace, "print the array after every step (n <= " + std::to_string(kTraceMaxN) + ")");
  add_value_option(app, "--segments", "L", "segmented scans: mean segment length [1024]", [&o](const std::string& v) {
    o.segments = parse_count(v, "--segments");
    if (o.segments < 1) throw UsageError("--segments must be at least 1");
  });
  add_value_option(app, "--lengths", "D", "segmented scans: random (geometric) or fixed lengths [random]",
                   [&o](const std::string& v) {
                     if (v != "random" && v != "fixed") {
                       throw UsageError("--lengths must be random or fixed, not '" + v + "'");
                     }
                     o.lengths = v == "fixed" ? Lengths::fixed : Lengths::random;
                   });
  add_value_option(app, "--heads", "LIST", "segmented scans with --input: 1 where a segment starts, e.g. 1,0,0,1",
                   [&o](const std::string& v) { o.heads = split_list(v); });
  app.add_flag_callback("--csv", [&o] { o.format = OutputFormat::csv; }, "CSV on stdout");
  app.add_flag_callback("--json", [&o] { o.format = OutputFormat::json; }, "JSON on stdout");
  app.add_flag_callback("--no-baselines", [&o] { o.baselines = false; }, "leave out the CUB and copy rows");
  app.add_flag("--list", o.list, "list the variants and exit");
}

}  // namespace

void configure_app(CLI::App& app) {
  auto formatter = std::make_shared<UsageFirst>();
  formatter->label("Usage", "usage");
  formatter->label("OPTIONS", "options");
  formatter->column_width(20);
  app.formatter(formatter);
  app.option_defaults()->group("options")->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.set_help_flag("-h,--help", "this text");
}

CLI::Option* add_value_option(CLI::App& app, const std::string& name, const std::string& value_name,
                              const std::string& help, std::function<void(const std::string&)> set) {
  auto* option = app.add_option_function<std::string>(
      name,
      [name, set = std::move(set)](const std::string& value) {
        if (value.rfind("--", 0) == 0) throw UsageError(name + " needs a value; see --help");
        set(value);
      },
      help);
  return option->type_name(value_name);
}

CLI::Option* add_count_option(CLI::App& app, const std::string& name, std::int64_t& target,
                              const std::string& help) {
  return add_value_option(app, name, "N", help,
                          [name, &target](const std::string& v) { target = parse_count(v, name); });
}

CLI::Option* add_int_option(CLI::App& app, const std::string& name, int& target, int lo, int hi,
                            const std::string& help) {
  return add_value_option(app, name, "N", help,
                          [name, &target, lo, hi](const std::string& v) { target = parse_int(v, name, lo, hi); });
}

CLI::Option* add_kind_option(CLI::App& app, Kind& target) {
  return add_value_option(app, "--kind", "K", "inclusive, exclusive [inclusive]", [&target](const std::string& v) {
    const auto kind = parse_kind(v);
    if (!kind) throw UsageError("--kind must be inclusive or exclusive, not '" + v + "'");
    target = *kind;
  });
}

void add_type_and_op_options(CLI::App& app, DType& dtype, OpId& op) {
  add_value_option(app, "--type", "T", "int32, uint32, int64, float, double [int32]", [&dtype](const std::string& v) {
    const auto d = parse_dtype(v);
    if (!d) throw UsageError("--type must be int32, uint32, int64, float or double, not '" + v + "'");
    dtype = *d;
  });
  add_value_option(app, "--op", "OP", "add, max, min, affine (uint32 only) [add]", [&op](const std::string& v) {
    const auto parsed = parse_op(v);
    if (!parsed) throw UsageError("--op must be add, max, min or affine, not '" + v + "'");
    op = *parsed;
  });
}

void apply_affine_type(const CLI::App& app, DType& dtype, OpId op) {
  if (op != OpId::affine) return;
  if (app.count("--type") > 0 && dtype != DType::u32) {
    throw UsageError("--op affine works on --type uint32 only (a word packs the map a*x+b)");
  }
  dtype = DType::u32;
}

void add_run_options(CLI::App& app, RunOptions& o, int min_reps) {
  add_int_option(app, "--reps", o.reps, min_reps, 100000,
                 std::string("timed runs; the median is reported") + (min_reps == 0 ? "; 0: verify only" : "") +
                     " [20]");
  add_int_option(app, "--warmup", o.warmup, 0, 100000, "untimed runs first [3]");
  add_value_option(app, "--seed", "S", "input generator seed [1]", [&o](const std::string& v) {
    const auto [end, error] = std::from_chars(v.data(), v.data() + v.size(), o.seed);
    if (v.empty() || error != std::errc() || end != v.data() + v.size()) {
      throw UsageError("--seed must be a non-negative whole number, not '" + v + "'");
    }
  });
  app.add_flag("--quiet", o.quiet, "no progress on stderr (errors still show)");
}

bool parse_command_line(CLI::App& app, const std::vector<std::string>& args) {
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    return false;
  } catch (const CLI::ExtrasError&) {
    const std::string extra = app.remaining().front();
    throw UsageError((extra.rfind('-', 0) == 0 ? "unknown option '" : "unexpected argument '") + extra +
                     "'; see --help");
  } catch (const CLI::ArgumentMismatch& e) {  // "--n: 1 required N missing"
    const std::string what = e.what();
    throw UsageError(what.substr(0, what.find(':')) + " needs a value; see --help");
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    std::replace(what.begin(), what.end(), '\n', ' ');
    throw UsageError(what + "; see --help");
  }
  return true;
}

Options parse_options(const std::vector<std::string>& args) {
  Options o;
  CLI::App app;
  add_chapter_options(app, o);
  if (!parse_command_line(app, args)) {
    o.help = true;
    return o;
  }
  if (app.count("--csv") > 0 && app.count("--json") > 0) throw UsageError("--csv and --json: choose one");
  apply_affine_type(app, o.dtype, o.op);
  if (o.input) o.n = static_cast<std::int64_t>(o.input->size());
  if (o.heads) {
    if (!o.input) throw UsageError("--heads goes with --input (it marks the segments of the values given)");
    if (o.heads->size() != o.input->size()) {
      throw UsageError("--heads has " + std::to_string(o.heads->size()) + " items but --input has " +
                       std::to_string(o.input->size()));
    }
    for (std::size_t i = 0; i < o.heads->size(); ++i) {
      const std::string& h = (*o.heads)[i];
      if (h != "0" && h != "1") {
        throw UsageError("--heads: item " + std::to_string(i + 1) + " '" + h + "' is not 0 or 1");
      }
    }
  }
  if (o.trace && o.n > kTraceMaxN) {
    throw UsageError("--trace prints every step, so it needs --n " + std::to_string(kTraceMaxN) +
                     " or less (or a short --input), not " + std::to_string(o.n));
  }
  return o;
}

std::string usage_text(const Chapter& chapter) {
  Options o;
  CLI::App app(chapter.title + ": scans a seeded random input with each variant, verifies it\n"
               "against a sequential reference and prints a table of median times.",
               chapter.program());
  add_chapter_options(app, o);
  std::string footer =
      "exit codes: 0 verified, 1 a wrong result, 2 bad usage, 3 no usable CUDA device or a CUDA error\n\n"
      "variants:\n";
  for (const auto& v : chapter.variants) {
    if (v.info.tuning) continue;
    footer += "  " + v.info.name + std::string(v.info.name.size() < 22 ? 22 - v.info.name.size() : 1, ' ') +
              v.info.summary + "\n";
  }
  footer.pop_back();  // the formatter ends the footer with a newline
  app.footer(footer);
  return app.help();
}

std::int64_t parse_count(std::string_view text, std::string_view option) {
  const std::string shown(text);
  if (text.empty()) throw UsageError(std::string(option) + " needs a number, e.g. 1000, 64K, 16M");
  if (text.front() == '-') {
    throw UsageError(std::string(option) + " must not be negative, not '" + shown + "'");
  }
  int shift = 0;
  switch (text.back()) {
    case 'K': case 'k': shift = 10; break;
    case 'M': case 'm': shift = 20; break;
    case 'G': case 'g': shift = 30; break;
    default: break;
  }
  if (shift != 0) text.remove_suffix(1);
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    throw UsageError(std::string(option) + " must be a count like 1000, 64K, 16M or 1G, not '" +
                     shown + "'");
  }
  constexpr std::uint64_t kMax = std::uint64_t{1} << 40;
  if (value > (kMax >> shift)) {
    throw UsageError(std::string(option) + " " + shown + " is more than 2^40 elements");
  }
  return static_cast<std::int64_t>(value << shift);
}

std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (true) {
    const auto comma = text.find(',', start);
    items.emplace_back(text.substr(start, comma == std::string_view::npos ? text.npos : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return items;
}

template <class T>
T parse_value(std::string_view item, std::size_t position) {
  T value{};
  auto first = item.data();
  const auto last = item.data() + item.size();
  if (std::is_unsigned_v<T> && !item.empty() && item.front() == '+') ++first;
  const auto [end, error] = std::from_chars(first, last, value);
  const bool finite = [&] {
    if constexpr (std::is_floating_point_v<T>) return std::isfinite(value);
    else return true;
  }();
  if (item.empty() || error != std::errc() || end != last || !finite) {
    throw UsageError("--input: item " + std::to_string(position) + " '" + std::string(item) +
                     "' is not " +
                     (std::is_floating_point_v<T> ? "a finite number" : "a whole number in range") +
                     " of the chosen --type");
  }
  return value;
}

template std::int32_t parse_value<std::int32_t>(std::string_view, std::size_t);
template std::uint32_t parse_value<std::uint32_t>(std::string_view, std::size_t);
template std::int64_t parse_value<std::int64_t>(std::string_view, std::size_t);
template float parse_value<float>(std::string_view, std::size_t);
template double parse_value<double>(std::string_view, std::size_t);

}  // namespace scan
