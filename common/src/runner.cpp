#include <scan/baselines.hpp>
#include <scan/cli.hpp>
#include <scan/device_info.hpp>
#include <scan/error.hpp>
#include <scan/format.hpp>
#include <scan/generate.hpp>
#include <scan/harness.hpp>
#include <scan/runner.hpp>
#include <scan/verify.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

namespace scan {
namespace {

enum class Status { pass, fail, skip, reference };

/// Seconds of wall time spent in `work`, added to `total`.
template <class Work>
void add_seconds(double& total, Work&& work) {
  const auto start = std::chrono::steady_clock::now();
  work();
  total += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// One line of the results table.
struct Row {
  std::string name;
  Status status = Status::pass;
  std::string note;       ///< why a row was skipped, or what a building block scans
  bool timed = false;
  TimingStats timing;
  bool is_cub = false;
};

const char* status_text(Status s) {
  switch (s) {
    case Status::pass: return "PASS";
    case Status::fail: return "FAIL";
    case Status::skip: return "SKIP";
    case Status::reference: return "-";
  }
  return "?";
}

std::string format_count(std::int64_t n) {
  std::string text = std::to_string(n);
  for (int shift : {30, 20, 10}) {
    if (n >= (std::int64_t{1} << shift) && n % (std::int64_t{1} << shift) == 0) {
      return text + " (" + std::to_string(n >> shift) + "KMG"[shift / 10 - 1] + ")";
    }
  }
  return text;
}

/// The variants a run selects, after checking the request against each.
std::vector<const Variant*> select_variants(const Chapter& chapter, const Options& o) {
  std::vector<const Variant*> chosen;
  if (o.variant == "all" || o.variant == "sweep") {
    const bool tuning = o.variant == "sweep";
    for (const auto& v : chapter.variants) {
      if (v.info.tuning == tuning && v.supports(o.dtype, o.op)) chosen.push_back(&v);
    }
    if (chosen.empty()) {
      throw UsageError(chapter.program() + " has no " +
                       (tuning ? "tuning points" : "variants") + " built for " +
                       std::string(dtype_name(o.dtype)) + " " + std::string(op_name(o.op)));
    }
    return chosen;
  }
  const Variant* v = chapter.find(o.variant);
  if (v == nullptr) {
    std::string names;
    for (const auto& each : chapter.variants) {
      if (!each.info.tuning) names += (names.empty() ? "" : ", ") + each.info.name;
    }
    throw UsageError("unknown variant '" + o.variant + "' for " + chapter.program() +
                     "; variants: " + names + " (see --list)");
  }
  if (!v->supports(o.dtype, o.op)) {
    throw UsageError("variant '" + v->info.name + "' is not built for " +
                     std::string(dtype_name(o.dtype)) + " " + std::string(op_name(o.op)) +
                     " (tuning points are built for int32 and float sums)");
  }
  if (o.n > v->info.max_n) {
    throw UsageError("variant '" + v->info.name + "' takes n <= " + std::to_string(v->info.max_n) +
                     ": " + v->info.max_n_reason);
  }
  return {v};
}

void check_block_option(const std::vector<const Variant*>& variants, const Options& o) {
  if (o.block == 0) return;
  for (const Variant* v : variants) {
    if (!v->info.takes_block) {
      std::cerr << "note: --block does not apply to '" << v->info.name << "' (its shape is fixed)\n";
    } else if (o.block < v->info.block_min) {
      throw UsageError("--block " + std::to_string(o.block) + " is too small for '" + v->info.name +
                       "', which needs at least " + std::to_string(v->info.block_min));
    }
  }
}

template <class T>
void print_trace(std::ostream& out, const std::string& name, const std::vector<T>& input,
                 const Trace& trace) {
  out << "\ntrace of " << name << ":\n";
  // The input first, then one row per recorded step; '-' marks a poisoned
  // (not yet written) element.
  std::vector<std::string> labels{"input"};
  std::vector<std::vector<T>> values{input};
  for (const auto& row : trace.rows()) {
    labels.push_back(row.label);
    std::vector<T> decoded(static_cast<std::size_t>(trace.n()));
    std::memcpy(decoded.data(), row.data.data(), decoded.size() * sizeof(T));
    values.push_back(std::move(decoded));
  }
  std::size_t label_width = 0, value_width = 1;
  std::vector<std::vector<std::string>> cells;
  for (std::size_t r = 0; r < values.size(); ++r) {
    label_width = std::max(label_width, labels[r].size());
    std::vector<std::string> texts;
    for (const T& value : values[r]) {
      texts.push_back(detail::same_bits(value, poison_value<T>()) ? "-" : format_value(value));
      value_width = std::max(value_width, texts.back().size());
    }
    cells.push_back(std::move(texts));
  }
  for (std::size_t r = 0; r < cells.size(); ++r) {
    out << "  " << labels[r] << std::string(label_width - labels[r].size(), ' ') << " |";
    for (const auto& v : cells[r]) out << ' ' << std::string(value_width - v.size(), ' ') << v;
    out << '\n';
  }
  if (trace.rows().empty()) out << "  (this variant records no steps)\n";
}

template <class T>
std::string join_values(const std::vector<T>& values) {
  std::string text;
  for (const auto& v : values) {
    if (!text.empty()) text += ' ';
    text += format_value(v);
  }
  return text;
}

/// Everything a typed run produces, for printing.
struct RunResult {
  std::vector<Row> rows;
  double copy_ms = 0;       ///< the copy ceiling's median (0: not measured)
  double copy_bytes = 0;    ///< what the copy moves: 2 n sizeof(T) (less than `bytes` for a segmented scan)
  double cub_ms = 0;        ///< CUB's median (0: not measured)
  double bytes = 0;         ///< 2 n sizeof(T)
  bool any_failed = false;
};

/// True for a chapter of segmented scans (chapter 12).
bool segmented(const Chapter& chapter) {
  return std::any_of(chapter.variants.begin(), chapter.variants.end(),
                     [](const Variant& v) { return v.info.segmented; });
}

/// The library baseline a chapter's variants are compared with: CUB's scan,
/// or CUB's scan by key for segmented scans.
const Variant& baseline_for(const Chapter& chapter) {
  return segmented(chapter) ? cub_by_key_variant() : cub_variant();
}

/// The chapter's selected variants, followed by its CUB baseline when it is wanted.
std::vector<const Variant*> with_cub(const Chapter& chapter, const std::vector<const Variant*>& variants,
                                     bool include_cub) {
  std::vector<const Variant*> all = variants;
  if (include_cub) all.push_back(&baseline_for(chapter));
  return all;
}

/// Bytes a scan of n elements must move at least: each element read and
/// written once, and for a segmented scan its head flag read too.
double bytes_moved(const Chapter& chapter, std::int64_t n, std::size_t element_bytes) {
  return static_cast<double>(n) * (2.0 * static_cast<double>(element_bytes) + (segmented(chapter) ? 1.0 : 0.0));
}

/// The head flags of a segmented run: from `--heads`, or generated.
std::vector<std::uint8_t> heads_for(const Chapter& chapter, const Options& o, std::int64_t n) {
  if (!segmented(chapter)) return {};
  if (o.heads) {
    std::vector<std::uint8_t> heads;
    for (const auto& item : *o.heads) heads.push_back(item == "1" ? 1 : 0);
    return heads;
  }
  return generate_heads(n, static_cast<double>(o.segments > 0 ? o.segments : kDefaultSegmentLength), o.lengths,
                        o.seed);
}

/// Refuses, with a reason, an n the device or the host cannot hold, before
/// anything is allocated (an input the host cannot hold would otherwise be
/// ended by the kernel's out-of-memory killer, not by a message).
template <class T>
void check_memory(const Chapter& chapter, const Options& o, const std::vector<const Variant*>& variants,
                  bool include_cub, const DeviceInfo* device) {
  const std::int64_t n = o.n;
  // Segmented scans keep a head flag and a key per element beside the values.
  const std::size_t array_bytes = static_cast<std::size_t>(n) * (sizeof(T) + (segmented(chapter) ? 3 : 0));
  const std::string what = "n = " + std::to_string(n) + " " + std::string(dtype_name(o.dtype));
  // The host keeps the input, one output copy and the oracle's pass over them.
  const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page_size > 0 && 2 * array_bytes > static_cast<std::size_t>(pages) * page_size) {
    throw UsageError(what + " needs " + format_bytes(2 * array_bytes) + " of host memory but the host has " +
                     format_bytes(static_cast<std::size_t>(pages) * page_size) + "; choose a smaller --n");
  }
  if (device == nullptr) return;
  std::size_t largest_workspace = 0;
  for (const Variant* v : with_cub(chapter, variants, include_cub)) {
    if (n <= v->info.max_n) {
      largest_workspace = std::max(largest_workspace, v->workspace_bytes(o.dtype, o.op, n, v->block_for(o.block)));
    }
  }
  const std::size_t needed = 2 * array_bytes + largest_workspace;
  if (needed > device->free_bytes) {
    throw UsageError(what + " needs " + format_bytes(needed) + " of device memory (input, output, workspace) but " +
                     format_bytes(device->free_bytes) + " is free; choose a smaller --n");
  }
}

template <class T, class Op>
RunResult run_typed(const Chapter& chapter, const Options& o,
                    const std::vector<const Variant*>& variants) {
  RunResult result;
  // What the run is doing, on stderr: at n = 2^30 each step takes seconds.
  Progress progress(!o.quiet && !o.input && !o.trace);
  const std::string run_name = chapter.program() + ", n = " + exponent(o.n) + " " + std::string(dtype_name(o.dtype));
  // The host's share of the run (making the input, computing the expected
  // output and comparing), reported at the end of a long run.
  double input_seconds = 0, checking_seconds = 0;
  std::vector<T> input;
  if (o.input) {
    for (std::size_t i = 0; i < o.input->size(); ++i) {
      input.push_back(parse_value<T>((*o.input)[i], i + 1));
    }
  } else {
    progress.step(run_name + ": generating the input", o.n);
    add_seconds(input_seconds, [&] { input = generate_input<T>(o.n, o.seed); });
  }
  const std::int64_t n = static_cast<std::int64_t>(input.size());
  result.bytes = bytes_moved(chapter, n, sizeof(T));
  result.copy_bytes = 2.0 * static_cast<double>(n) * sizeof(T);

  const std::vector<const Variant*> all =
      with_cub(chapter, variants, chapter.where == Where::device && o.baselines);

  std::vector<std::uint8_t> heads;
  add_seconds(input_seconds, [&] { heads = heads_for(chapter, o, n); });
  Harness<T> harness(chapter.where, std::move(input), std::move(heads));
  const bool timing = !o.input && !o.trace && n > 0 && o.reps > 0;
  if (o.input && o.format == OutputFormat::table) {
    std::cout << "input:  " << join_values(harness.input()) << "\n";
    if (o.heads) {
      std::cout << "heads: ";
      for (const auto& item : *o.heads) std::cout << ' ' << item;
      std::cout << "\n";
    }
  }

  // The oracle's pass over the input, made once for every variant that scans
  // the whole array (tile-wise building blocks restart every tile: checked apart).
  std::optional<ScanChecker<T, Op>> checker;
  const auto check = [&](const std::vector<T>& output, std::int64_t segment) {
    if (segment > 0) return verify_scan(harness.input(), output, o.kind, Op{}, harness.restarts(segment));
    if (!checker) checker.emplace(harness.input(), Op{}, harness.restarts(0));
    return checker->check(output, o.kind);
  };

  for (const Variant* v : all) {
    Row row;
    row.name = v->info.name;
    row.is_cub = v == &baseline_for(chapter);
    if (v->info.segment > 0) row.note = "tile-wise scan of " + std::to_string(v->info.segment) + "-element tiles";
    if (n > v->info.max_n) {
      row.status = Status::skip;
      row.note = "n > " + std::to_string(v->info.max_n) + ": " + v->info.max_n_reason;
      result.rows.push_back(row);
      continue;
    }
    const int block = v->block_for(o.block);
    const std::string step = run_name + ", " + v->info.name + ": ";
    VerifyReport report;
    if (timing) {
      // Timed runs write a freshly poisoned output; what the last one wrote is checked.
      progress.step(step + "timing " + std::to_string(o.reps) + " runs", n);
      row.timing = harness.time(*v, o.op, o.kind, block, o.warmup, o.reps);
      row.timed = true;
      progress.step(step + "verifying the timed output", n);
      add_seconds(checking_seconds, [&] { report = check(harness.output(), v->info.segment); });
    } else {
      progress.step(step + "running once and verifying", n);
      Trace trace(n, sizeof(T));
      const std::vector<T>& output = harness.run_once(*v, o.op, o.kind, block, o.trace ? &trace : nullptr);
      add_seconds(checking_seconds, [&] { report = check(output, v->info.segment); });
      if (o.trace && o.format == OutputFormat::table) print_trace<T>(std::cout, v->info.name, harness.input(), trace);
      if (o.input && o.format == OutputFormat::table) {
        std::cout << v->info.name << ": " << join_values(output) << "\n";
      }
    }
    if (!report.ok) {
      progress.clear();
      row.status = Status::fail;
      row.timed = false;
      result.any_failed = true;
      std::cerr << "FAIL: " << chapter.program() << " variant '" << v->info.name << "', n = " << n
                << ", " << dtype_name(o.dtype) << " " << op_name(o.op) << " " << kind_name(o.kind)
                << ", seed " << o.seed << ":\n  " << report.describe() << "\n";
    }
    if (row.is_cub && row.timed) result.cub_ms = row.timing.median_ms;  // only a verified CUB
    result.rows.push_back(row);
  }

  if (timing && o.baselines) {
    Row copy;
    copy.name = chapter.where == Where::device ? "copy (cudaMemcpy D2D)" : "copy (memcpy)";
    copy.status = Status::reference;
    copy.timed = true;
    progress.step(run_name + ", " + copy.name + ": timing " + std::to_string(o.reps) + " runs", n);
    copy.timing = harness.time_copy(o.warmup, o.reps);
    result.copy_ms = copy.timing.median_ms;
    result.rows.push_back(copy);
  }
  if (n >= Progress::kLongRun) {
    progress.print(run_name + ": host work " + fixed(input_seconds + checking_seconds, 1) + " s (input " +
                   fixed(input_seconds, 1) + " s, checking " + fixed(checking_seconds, 1) + " s)");
  }
  return result;
}

/// A row's bandwidth: the copy's own bytes for the copy row, the scan's for the others.
double row_gbps(const RunResult& r, const Row& row) {
  const double bytes = row.status == Status::reference ? r.copy_bytes : r.bytes;
  return gigabytes_per_second(bytes, row.timing.median_ms);
}

/// A row's bandwidth as a fraction of the copy's (0 when the copy was not timed).
double copy_fraction(const RunResult& r, const Row& row) {
  return r.copy_ms > 0 ? row_gbps(r, row) / gigabytes_per_second(r.copy_bytes, r.copy_ms) : 0;
}

void print_table(const Chapter& chapter, const RunResult& r, std::int64_t n) {
  const double cub_ms = r.cub_ms;
  std::size_t width = 8;
  for (const auto& row : r.rows) width = std::max(width, row.name.size());
  const auto pad = [&](const std::string& s, std::size_t w) {
    return s.size() >= w ? s : s + std::string(w - s.size(), ' ');
  };
  const auto right = [](const std::string& s, std::size_t w) {
    return s.size() >= w ? s : std::string(w - s.size(), ' ') + s;
  };
  std::cout << "\n" << pad("variant", width) << right("median ms", 12) << right("GB/s", 10)
            << right("% copy", 9) << right("x CUB", 8) << "  check\n";
  for (const auto& row : r.rows) {
    std::cout << pad(row.name, width);
    if (row.timed) {
      const double gbps = row_gbps(r, row);
      std::cout << right(fixed(row.timing.median_ms, 4), 12) << right(fixed(gbps, 1), 10)
                << right(r.copy_ms > 0 ? fixed(100.0 * copy_fraction(r, row), 1) + "%" : "-", 9)
                << right(cub_ms > 0 && row.status != Status::reference
                             ? fixed(cub_ms / row.timing.median_ms, 2)
                             : "-",
                         8);
    } else {
      std::cout << right("-", 12) << right("-", 10) << right("-", 9) << right("-", 8);
    }
    std::cout << "  " << status_text(row.status);
    if (!row.note.empty()) std::cout << "  (" << row.note << ")";
    std::cout << "\n";
  }
  if (n > 0 && n < (std::int64_t{1} << 22) && chapter.where == Where::device) {
    std::cout << "\nnote: below about 2^22 elements the data sit in L2 and launch latency "
                 "dominates; these times say little about DRAM bandwidth.\n";
  }
}

void print_csv(const Chapter& chapter, const Options& o, const RunResult& r, std::int64_t n,
               const std::string& device_line) {
  const double cub_ms = r.cub_ms;
  if (!device_line.empty()) std::cout << "# device: " << device_line << "\n";
  std::cout << "program,variant,n,type,op,kind,status,median_ms,min_ms,max_ms,gbps,copy_fraction,x_cub\n";
  for (const auto& row : r.rows) {
    std::cout << chapter.program() << ',' << row.name << ',' << n << ',' << dtype_name(o.dtype) << ','
              << op_name(o.op) << ',' << kind_name(o.kind) << ',' << status_text(row.status) << ',';
    if (row.timed) {
      std::cout << fixed(row.timing.median_ms, 6) << ',' << fixed(row.timing.min_ms, 6) << ','
                << fixed(row.timing.max_ms, 6) << ',' << fixed(row_gbps(r, row), 2) << ','
                << (r.copy_ms > 0 ? fixed(copy_fraction(r, row), 4) : "") << ','
                << (cub_ms > 0 && row.status != Status::reference ? fixed(cub_ms / row.timing.median_ms, 4) : "");
    } else {
      std::cout << ",,,,,";
    }
    std::cout << "\n";
  }
}

void print_json(const Chapter& chapter, const Options& o, const RunResult& r, std::int64_t n,
                const std::string& device_line) {
  nlohmann::ordered_json doc = {{"program", chapter.program()}, {"device", device_line}, {"n", n},
                                {"type", dtype_name(o.dtype)},  {"op", op_name(o.op)},  {"kind", kind_name(o.kind)},
                                {"seed", o.seed},               {"reps", o.reps},       {"warmup", o.warmup},
                                {"rows", nlohmann::ordered_json::array()}};
  for (const auto& row : r.rows) {
    nlohmann::ordered_json entry = {{"variant", row.name}, {"status", status_text(row.status)}};
    if (!row.note.empty()) entry["note"] = row.note;
    if (row.timed) {
      entry["median_ms"] = rounded(row.timing.median_ms, 6);
      entry["min_ms"] = rounded(row.timing.min_ms, 6);
      entry["max_ms"] = rounded(row.timing.max_ms, 6);
      entry["gbps"] = rounded(row_gbps(r, row), 2);
      if (r.copy_ms > 0) entry["copy_fraction"] = rounded(copy_fraction(r, row), 4);
      if (r.cub_ms > 0 && row.status != Status::reference) entry["x_cub"] = rounded(r.cub_ms / row.timing.median_ms, 4);
    }
    doc["rows"].push_back(std::move(entry));
  }
  std::cout << doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
}

int run_chapter_or_throw(const Chapter& chapter, int argc, char** argv) {
  const Options o = parse_options(std::vector<std::string>(argv + 1, argv + argc));
  if (o.help) {
    std::cout << usage_text(chapter);
    return kExitOk;
  }
  if (o.list) {
    for (const auto& v : chapter.variants) {
      std::cout << v.info.name << (v.info.tuning ? "  [tuning]" : "") << "\n    " << v.info.summary << "\n";
      if (v.info.max_n != kNoLimit) std::cout << "    n <= " << v.info.max_n << ": " << v.info.max_n_reason << "\n";
    }
    return kExitOk;
  }
  const auto variants = select_variants(chapter, o);
  check_block_option(variants, o);
  if (!segmented(chapter) && (o.segments > 0 || o.heads)) {
    throw UsageError("--segments and --heads are for segmented scans (chapter 12); " + chapter.program() +
                     " scans whole arrays");
  }
  if (o.heads && o.heads->front() != "1") {
    throw UsageError("--heads: the first item must be 1 (element 0 always starts a segment)");
  }
  if (o.input) {
    // Bad values are bad usage, whatever the machine: check them before the device.
    visit_combo(o.dtype, o.op, [&]<class T, class Op>() {
      for (std::size_t i = 0; i < o.input->size(); ++i) (void)parse_value<T>((*o.input)[i], i + 1);
    });
  }

  std::string device_line;
  DeviceInfo device;
  if (chapter.where == Where::device) {
    device = query_device();  // throws CudaError (exit 3) without a usable device
    require_architecture(chapter.program(), chapter.needs, device);  // exit 3 with one line on an older GPU
    device_line = describe(device);
  } else {
    device_line = "host, " + std::to_string(std::max(1u, std::thread::hardware_concurrency())) + " threads";
  }

  visit_combo(o.dtype, o.op, [&]<class T, class Op>() {
    check_memory<T>(chapter, o, variants, chapter.where == Where::device && o.baselines,
                    chapter.where == Where::device ? &device : nullptr);
  });

  if (o.format == OutputFormat::table) {
    std::cout << chapter.program() << ": " << chapter.title << "\n"
              << (chapter.where == Where::device ? "device: " : "") << device_line << "\n"
              << "input:  n = " << format_count(o.n) << " " << dtype_name(o.dtype) << ", op "
              << op_name(o.op) << ", " << kind_name(o.kind) << " scan, seed " << o.seed;
    if (segmented(chapter) && !o.input) {
      std::cout << "; segments of " << (o.lengths == Lengths::fixed ? "exactly " : "mean length ")
                << (o.segments > 0 ? o.segments : kDefaultSegmentLength);
    }
    if (!o.input && !o.trace && o.reps > 0) {
      std::cout << "; median of " << o.reps << " runs after " << o.warmup << " warm-ups";
    }
    std::cout << "\n";
    if (o.input) std::cout << "\n";
  }

  RunResult result;
  visit_combo(o.dtype, o.op, [&]<class T, class Op>() {
    result = run_typed<T, Op>(chapter, o, variants);
  });

  switch (o.format) {
    case OutputFormat::table:
      if (!o.input && !o.trace) print_table(chapter, result, o.n);
      else {
        std::cout << "\n";
        for (const auto& row : result.rows) {
          std::cout << row.name << ": " << status_text(row.status);
          if (!row.note.empty()) std::cout << " (" << row.note << ")";
          std::cout << "\n";
        }
      }
      break;
    case OutputFormat::csv: print_csv(chapter, o, result, o.n, device_line); break;
    case OutputFormat::json: print_json(chapter, o, result, o.n, device_line); break;
  }
  return result.any_failed ? kExitWrongResult : kExitOk;
}

}  // namespace

int guarded_main(const std::string& program, const std::function<int()>& body) {
  try {
    return body();
  } catch (const UsageError& e) {
    std::cerr << program << ": " << e.what() << "\n";
    return kExitUsage;
  } catch (const UnsupportedGpu& e) {
    // The architecture check's line already names the program.
    const std::string line = e.what();
    std::cerr << (line.starts_with(program + " ") ? "" : program + ": ") << line << "\n";
    return kExitCuda;
  } catch (const CudaError& e) {
    std::cerr << program << ": CUDA error: " << e.what() << "\n";
    return kExitCuda;
  } catch (const std::bad_alloc&) {
    std::cerr << program << ": out of host memory for this n; choose a smaller --n\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << program << ": internal error: " << e.what() << "\n";
    return kExitCuda;
  }
}

int run_chapter(const Chapter& chapter, int argc, char** argv) {
  return guarded_main(chapter.program(), [&] { return run_chapter_or_throw(chapter, argc, argv); });
}

}  // namespace scan
