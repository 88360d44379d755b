#include <scan/baselines.hpp>
#include <scan/cli.hpp>
#include <scan/device_info.hpp>
#include <scan/error.hpp>
#include <scan/format.hpp>
#include <scan/generate.hpp>
#include <scan/harness.hpp>
#include <scan/runner.hpp>
#include <scan/segments.hpp>
#include <scan/verify.hpp>

#include "run_output.hpp"

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

using namespace run_output;


/// Seconds of wall time spent in `work`, added to `total`.
template <class Work>
void add_seconds(double& total, Work&& work) {
  const auto start = std::chrono::steady_clock::now();
  work();
  total += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// The types and operators a variant is built for: "int32 add, float add".
std::string built_for(const Variant& v) {
  std::string list;
  for (DType dtype : kAllDTypes) {
    for (OpId op : kAllOps) {
      if (v.supports(dtype, op)) {
        list += (list.empty() ? "" : ", ") + std::string(dtype_name(dtype)) + " " + std::string(op_name(op));
      }
    }
  }
  return list.empty() ? "nothing" : list;
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
  // A comma-separated list of names: each checked as one name is.
  if (o.variant.find(',') != std::string::npos) {
    std::vector<const Variant*> listed;
    std::size_t from = 0;
    while (from <= o.variant.size()) {
      const std::size_t comma = std::min(o.variant.find(',', from), o.variant.size());
      Options one = o;
      one.variant = o.variant.substr(from, comma - from);
      if (one.variant.empty() || one.variant == "all" || one.variant == "sweep") {
        throw UsageError("--variant: a list names variants, each once, without 'all' or 'sweep': '" +
                         o.variant + "'");
      }
      const Variant* v = select_variants(chapter, one).front();
      if (std::find(listed.begin(), listed.end(), v) != listed.end()) {
        throw UsageError("--variant: '" + v->info.name + "' is listed twice");
      }
      listed.push_back(v);
      from = comma + 1;
    }
    return listed;
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
                     " (it is built for " + built_for(*v) + ")");
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
    } else if (const std::string why = v->block_problem(o.block); !why.empty()) {
      throw UsageError("--block: " + why);
    }
  }
}

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
