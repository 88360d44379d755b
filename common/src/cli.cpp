#include <scan/cli.hpp>
#include <scan/error.hpp>
#include <scan/trace.hpp>

#include <charconv>
#include <cmath>
#include <sstream>
#include <type_traits>

namespace scan {
namespace {

/// Splits "--name=value" into its parts; "--name" gives an empty value.
std::pair<std::string, std::optional<std::string>> split_option(const std::string& arg) {
  const auto eq = arg.find('=');
  if (arg.rfind("--", 0) == 0 && eq != std::string::npos) {
    return {arg.substr(0, eq), arg.substr(eq + 1)};
  }
  return {arg, std::nullopt};
}

int parse_small_int(std::string_view text, std::string_view option, int lo, int hi) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < lo || value > hi) {
    throw UsageError(std::string(option) + " must be a whole number from " + std::to_string(lo) +
                     " to " + std::to_string(hi) + ", not '" + std::string(text) + "'");
  }
  return value;
}

}  // namespace

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

Options parse_options(const std::vector<std::string>& args) {
  Options o;
  bool dtype_given = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto [name, inline_value] = split_option(args[i]);
    // Options that take a value read it from "--name=value" or the next argument.
    const auto value = [&, &name = name, &inline_value = inline_value]() -> std::string {
      if (inline_value) return *inline_value;
      if (i + 1 >= args.size() || args[i + 1].rfind("--", 0) == 0) {
        throw UsageError(name + " needs a value; see --help");
      }
      return args[++i];
    };
    if (name == "--n") {
      o.n = parse_count(value(), "--n");
    } else if (name == "--type") {
      const auto text = value();
      const auto d = parse_dtype(text);
      if (!d) throw UsageError("--type must be int32, uint32, int64, float or double, not '" + text + "'");
      o.dtype = *d;
      dtype_given = true;
    } else if (name == "--op") {
      const auto text = value();
      const auto op = parse_op(text);
      if (!op) throw UsageError("--op must be add, max, min or affine, not '" + text + "'");
      o.op = *op;
    } else if (name == "--kind") {
      const auto text = value();
      const auto kind = parse_kind(text);
      if (!kind) throw UsageError("--kind must be inclusive or exclusive, not '" + text + "'");
      o.kind = *kind;
    } else if (name == "--variant") {
      o.variant = value();
    } else if (name == "--block") {
      o.block = parse_small_int(value(), "--block", 1, 1024);
      if ((o.block & (o.block - 1)) != 0) {
        throw UsageError("--block must be a power of two (1 .. 1024), not " + std::to_string(o.block));
      }
    } else if (name == "--reps") {
      o.reps = parse_small_int(value(), "--reps", 0, 100000);
    } else if (name == "--warmup") {
      o.warmup = parse_small_int(value(), "--warmup", 0, 100000);
    } else if (name == "--seed") {
      const auto text = value();
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), o.seed);
      if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
        throw UsageError("--seed must be a non-negative whole number, not '" + text + "'");
      }
    } else if (name == "--input") {
      o.input = split_list(value());
    } else if (name == "--trace") {
      o.trace = true;
    } else if (name == "--csv") {
      o.format = OutputFormat::csv;
    } else if (name == "--json") {
      o.format = OutputFormat::json;
    } else if (name == "--no-baselines") {
      o.baselines = false;
    } else if (name == "--list") {
      o.list = true;
    } else if (name == "--help" || name == "-h") {
      o.help = true;
    } else {
      throw UsageError("unknown option '" + args[i] + "'; see --help");
    }
  }
  // The affine operator is defined on 32-bit words only.
  if (o.op == OpId::affine) {
    if (dtype_given && o.dtype != DType::u32) {
      throw UsageError("--op affine works on --type uint32 only (a word packs the map a*x+b)");
    }
    o.dtype = DType::u32;
  }
  if (o.input) o.n = static_cast<std::int64_t>(o.input->size());
  if (o.trace && o.n > kTraceMaxN) {
    throw UsageError("--trace prints every step, so it needs --n " + std::to_string(kTraceMaxN) +
                     " or less (or a short --input), not " + std::to_string(o.n));
  }
  return o;
}

std::string usage_text(const Chapter& chapter) {
  std::ostringstream text;
  text << "usage: " << chapter.program()
       << " [options]\n\n"
       << chapter.title << ": scans a seeded random input with each variant, verifies it\n"
       << "against a sequential reference and prints a table of median times.\n\n"
       << "options:\n"
       << "  --n N           elements, with K/M/G suffixes (powers of two)     [16M]\n"
       << "  --type T        int32, uint32, int64, float, double               [int32]\n"
       << "  --op OP         add, max, min, affine (uint32 only)                [add]\n"
       << "  --kind K        inclusive, exclusive                               [inclusive]\n"
       << "  --variant V     a variant's name, all, or sweep (tuning points)    [all]\n"
       << "  --block B       threads per block, for variants that take it       [theirs]\n"
       << "  --reps R        timed runs; the median is reported; 0: verify only [20]\n"
       << "  --warmup W      untimed runs first                                 [3]\n"
       << "  --seed S        input generator seed                               [1]\n"
       << "  --input LIST    scan these comma-separated values and print them\n"
       << "  --trace         print the array after every step (n <= " << kTraceMaxN << ")\n"
       << "  --csv, --json   machine-readable output\n"
       << "  --no-baselines  leave out the CUB and copy rows\n"
       << "  --list          list the variants and exit\n"
       << "  --help          this text\n\n"
       << "exit codes: 0 verified, 1 a wrong result, 2 bad usage, 3 no usable CUDA device or a CUDA error\n\n"
       << "variants:\n";
  for (const auto& v : chapter.variants) {
    if (v.info.tuning) continue;
    text << "  " << v.info.name << std::string(v.info.name.size() < 22 ? 22 - v.info.name.size() : 1, ' ')
         << v.info.summary << "\n";
  }
  return text.str();
}

}  // namespace scan
