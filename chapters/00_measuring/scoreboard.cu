// ch00_scoreboard: every chapter's variants against CUB, Thrust and the copy
// ceiling, over a sweep of n; a table on stdout, progress on stderr, CSV and
// JSON files with the metadata every published number needs.
//
//   ch00_scoreboard [--n-min 1K] [--n-max 256M] [--types int32,float] [--chapters 02,07,10]
//                   [--reps 20] [--warmup 3] [--seed 1] [--csv FILE] [--json FILE] [--tour] [--quiet]
//
// Each variant is verified (poisoned output, sequential oracle) before it is
// timed; a wrong one is marked FAIL instead of getting a speed, and the
// program exits 1. Rows reach the CSV file as they are measured, so an
// interrupted sweep leaves a valid CSV of what finished.
#include "copy_kernel.cuh"

#include <scan/baselines.hpp>
#include <scan/cli.hpp>
#include <scan/device_info.hpp>
#include <scan/error.hpp>
#include <scan/format.hpp>
#include <scan/generate.hpp>
#include <scan/harness.hpp>
#include <scan/registry.hpp>
#include <scan/runner.hpp>
#include <scan/segments.hpp>
#include <scan/verify.hpp>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "git_commit.h"  // SCAN_GIT_COMMIT, written at build time

namespace {

using namespace scan;

struct Options : RunOptions {
  std::int64_t n_min = std::int64_t{1} << 10;
  std::int64_t n_max = std::int64_t{1} << 28;
  std::vector<DType> types = {DType::i32};
  std::vector<std::string> chapters;  // empty: every GPU chapter
  std::string csv_path, json_path;
  bool tour = false;
};

/// One measured (or failed, or skipped) entry.
struct Row {
  std::string chapter, variant, scope;  // scope: "full", "tile" (a building block), "segmented" or "reference"
  DType dtype = DType::i32;
  std::int64_t n = 0;
  std::string status;  // PASS, FAIL, SKIP, REF
  TimingStats timing;
  double gbps = 0, copy_fraction = 0, x_cub = 0;
};

/// The command line, or nothing after `--help` was printed.
std::optional<Options> parse(int argc, char** argv) {
  Options o;
  CLI::App app("Times the copy, CUB, Thrust and every variant of every GPU chapter for n = n-min,\n"
               "4 n-min, ... up to n-max (powers of two), after verifying each.",
               "ch00_scoreboard");
  configure_app(app);
  add_count_option(app, "--n-min", o.n_min, "smallest n, with K/M/G suffixes [1K]");
  add_count_option(app, "--n-max", o.n_max, "largest n [256M]");
  add_value_option(app, "--types", "LIST", "element types, comma-separated [int32]", [&o](const std::string& v) {
    o.types.clear();
    for (const auto& item : split_list(v)) {
      const auto d = parse_dtype(item);
      if (!d) throw UsageError("--types: '" + item + "' is not int32, uint32, int64, float or double");
      o.types.push_back(*d);
    }
  });
  add_value_option(app, "--chapters", "LIST", "chapter numbers, comma-separated [every GPU chapter]",
                   [&o](const std::string& v) { o.chapters = split_list(v); });
  add_run_options(app, o, 1);
  add_value_option(app, "--csv", "FILE", "write the rows to FILE as CSV, each as it is measured",
                   [&o](const std::string& v) { o.csv_path = v; });
  add_value_option(app, "--json", "FILE", "write the rows and the metadata to FILE as JSON at the end",
                   [&o](const std::string& v) { o.json_path = v; });
  app.add_flag("--tour", o.tour, "n = 2^26 only, 10 runs (unless --n-min, --n-max or --reps say otherwise)");
  if (!parse_command_line(app, std::vector<std::string>(argv + 1, argv + argc))) {
    std::cout << app.help();
    return std::nullopt;
  }
  if (o.tour) {
    if (app.count("--n-min") == 0) o.n_min = std::int64_t{1} << 26;
    if (app.count("--n-max") == 0) o.n_max = std::int64_t{1} << 26;
    if (app.count("--reps") == 0) o.reps = 10;
  }
  if (o.n_min < 1 || o.n_max < o.n_min) throw UsageError("need 1 <= --n-min <= --n-max");
  return o;
}

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return text;
}

class Scoreboard {
 public:
  /// `skipped`: the chapters this GPU cannot run, each with the reason.
  Scoreboard(Options o, DeviceInfo device, std::string command, std::map<std::string, std::string> skipped)
      : o_(std::move(o)), device_(std::move(device)), command_(std::move(command)), skipped_(std::move(skipped)),
        progress_(!o_.quiet) {
    if (!o_.csv_path.empty()) {
      csv_.open(o_.csv_path);
      if (!csv_) throw UsageError("cannot write --csv file '" + o_.csv_path + "'");
      for (const auto& [key, value] : metadata()) csv_ << "# " << key << ": " << value << "\n";
      for (const auto& [chapter, reason] : skipped_) csv_ << "# chapter " << chapter << " skipped: " << reason << "\n";
      csv_ << "chapter,variant,scope,type,n,status,median_ms,min_ms,max_ms,gbps,copy_fraction,x_cub\n";
      csv_.flush();
    }
  }

  std::vector<std::pair<std::string, std::string>> metadata() const {
    return {{"gpu", device_.name},
            {"sms", std::to_string(device_.sm_count)},
            {"peak_gbps", fixed(device_.peak_gbps, 0)},
            {"cuda_runtime", cuda_version_string(device_.runtime_version)},
            {"driver", device_.driver_release.empty() ? cuda_version_string(device_.driver_api_version)
                                                      : device_.driver_release},
            {"commit", SCAN_GIT_COMMIT},
            {"date", now_utc()},
            {"command", command_}};
  }

  /// Measures everything at one (type, n): the copies, then every plain
  /// scan against CUB's scan; then, if any, the segmented scans (chapter 12,
  /// segments of mean length kDefaultSegmentLength) against CUB's scan by
  /// key, on the same values.
  template <class T>
  void measure(std::int64_t n, const std::vector<std::pair<std::string, const Variant*>>& entries) {
    const std::string at = std::string(dtype_name(dtype_of<T>())) + " n = " + exponent(n);
    progress_.step(at + ": generating the input", n);
    Harness<T> harness(Where::device, generate_input<T>(n, o_.seed + static_cast<std::uint64_t>(n)));

    copy_ms_ = cub_ms_ = 0;
    const double bytes = 2.0 * static_cast<double>(n) * sizeof(T);
    Row copy{"00", "cudaMemcpy", "reference", dtype_of<T>(), n, "REF"};
    progress_.step(at + ", copies: timing", n);
    copy.timing = harness.time_copy(o_.warmup, o_.reps);
    copy_ms_ = copy.timing.median_ms;
    add(copy, bytes);
    Row kernel{"00", "copy-kernel", "reference", dtype_of<T>(), n, "REF"};
    kernel.timing = ch00::measure_copy_kernel(static_cast<std::size_t>(n) * sizeof(T), o_.warmup, o_.reps);
    add(kernel, bytes);

    const auto plain = [](const Variant* v) { return !v->info.segmented; };
    for (const auto& [chapter, v] : entries) {
      if (plain(v)) measure_entry<T>(harness, chapter, *v, v->info.segment > 0 ? "tile" : "full", bytes, at);
    }
    if (std::none_of(entries.begin(), entries.end(), [&](const auto& e) { return !plain(e.second); })) return;
    // Segmented scans move a head flag per element too.
    progress_.step(at + ": segments", n);
    Harness<T> segmented(Where::device, harness.input(),
                         generate_heads(n, static_cast<double>(kDefaultSegmentLength), Lengths::random, o_.seed));
    cub_ms_ = 0;
    const double segmented_bytes = static_cast<double>(n) * (2.0 * sizeof(T) + 1);
    measure_entry<T>(segmented, "00", cub_by_key_variant(), "segmented", segmented_bytes, at);
    for (const auto& [chapter, v] : entries) {
      if (!plain(v)) measure_entry<T>(segmented, chapter, *v, "segmented", segmented_bytes, at);
    }
  }
  void finish() {
    progress_.clear();
    if (!o_.json_path.empty()) write_json();
    print_summary();
  }

  bool failed() const { return failed_; }
  /// A line on stderr, below the progress line (none with --quiet).
  void note(const std::string& line) { progress_.print(line); }

 private:
  /// Completes a row's rates from its time and emits it.
  void add(Row row, double bytes) {
    if (row.status == "PASS" || row.status == "REF") {
      row.gbps = gigabytes_per_second(bytes, row.timing.median_ms);
      row.copy_fraction = copy_ms_ > 0 ? gigabytes_per_second(bytes, row.timing.median_ms) /
                                             gigabytes_per_second(2.0 * static_cast<double>(row.n) * dtype_size(row.dtype),
                                                                  copy_ms_)
                                       : 0;
      row.x_cub = cub_ms_ > 0 && row.status == "PASS" ? cub_ms_ / row.timing.median_ms : 0;
    }
    emit(row);
  }

  /// Verifies, then times, one variant on `harness`'s input. A CUB row (its
  /// first in a group) sets the time the rows after it are compared with.
  template <class T>
  void measure_entry(Harness<T>& harness, const std::string& chapter, const Variant& v, const std::string& scope,
                     double bytes, const std::string& at) {
    const std::int64_t n = harness.n();
    Row row{chapter, v.info.name, scope, dtype_of<T>(), n, "PASS"};
    if (!v.supports(dtype_of<T>(), OpId::add)) return;
    if (n > v.info.max_n) {
      row.status = "SKIP";
      add(row, bytes);
      return;
    }
    if (skipped_.count(chapter)) {
      row.status = "SKIP";
      add(row, bytes);
      return;
    }
    const std::string step = at + ", ch" + chapter + " " + v.info.name + ": ";
    progress_.step(step + "timing " + std::to_string(o_.reps) + " runs", n);
    try {
      row.timing = harness.time(v, OpId::add, Kind::inclusive, v.info.block, o_.warmup, o_.reps);
    } catch (const UnsupportedGpu& e) {
      // Too little shared memory for a kernel's tiles: the chapter is left
      // out from here on, with the reason, as one of an older architecture.
      skipped_[chapter] = e.what();
      note("chapter " + chapter + " skipped: " + e.what());
      row.status = "SKIP";
      add(row, bytes);
      return;
    }
    progress_.step(step + "verifying the timed output", n);
    const VerifyReport report =
        verify_scan(harness.input(), harness.output(), Kind::inclusive, Add{}, harness.restarts(v.info.segment));
    if (!report.ok) {
      row.status = "FAIL";
      failed_ = true;
      progress_.clear();
      std::cerr << "FAIL: chapter " << chapter << " variant '" << v.info.name << "', n = " << n << " "
                << dtype_name(dtype_of<T>()) << ": " << report.describe() << "\n";
    }
    const bool baseline = &v == &cub_variant() || &v == &cub_by_key_variant();
    if (baseline && row.status == "PASS") cub_ms_ = row.timing.median_ms;
    add(row, bytes);
  }

  void emit(const Row& row) {
    rows_.push_back(row);
    progress_.print("  " + std::string(dtype_name(row.dtype)) + " n=" + exponent(row.n) + "  ch" + row.chapter + " " +
                    row.variant + ": " +
                    (row.status == "PASS" || row.status == "REF" ? fixed(row.gbps, 1) + " GB/s" : row.status));
    if (csv_.is_open()) {
      csv_ << row.chapter << ',' << row.variant << ',' << row.scope << ',' << dtype_name(row.dtype) << ','
           << row.n << ',' << row.status << ',';
      if (row.status == "PASS" || row.status == "REF") {
        csv_ << fixed(row.timing.median_ms, 6) << ',' << fixed(row.timing.min_ms, 6) << ','
             << fixed(row.timing.max_ms, 6) << ',' << fixed(row.gbps, 2) << ',' << fixed(row.copy_fraction, 4)
             << ',' << (row.x_cub > 0 ? fixed(row.x_cub, 4) : "");
      } else {
        csv_ << ",,,,,";
      }
      csv_ << "\n";
      csv_.flush();  // an interrupted sweep keeps every finished row
    }
  }

  void write_json() const {
    std::ofstream json(o_.json_path);
    if (!json) throw UsageError("cannot write --json file '" + o_.json_path + "'");
    nlohmann::ordered_json doc = {{"metadata", nlohmann::ordered_json::object()},
                                  {"rows", nlohmann::ordered_json::array()}};
    for (const auto& [key, value] : metadata()) doc["metadata"][key] = value;
    for (const Row& r : rows_) {
      nlohmann::ordered_json row = {{"chapter", r.chapter}, {"variant", r.variant}, {"scope", r.scope},
                                    {"type", dtype_name(r.dtype)}, {"n", r.n}, {"status", r.status}};
      if (r.status == "PASS" || r.status == "REF") {
        row["median_ms"] = rounded(r.timing.median_ms, 6);
        row["min_ms"] = rounded(r.timing.min_ms, 6);
        row["max_ms"] = rounded(r.timing.max_ms, 6);
        row["gbps"] = rounded(r.gbps, 2);
        row["copy_fraction"] = rounded(r.copy_fraction, 4);
        if (r.x_cub > 0) row["x_cub"] = rounded(r.x_cub, 4);
      }
      doc["rows"].push_back(std::move(row));
    }
    json << doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
  }

  /// Per type: each chapter's fastest full scan at the largest n, with the baselines.
  void print_summary() const {
    std::cout << "\nscoreboard: " << device_.name << ", CUDA " << cuda_version_string(device_.runtime_version)
              << "; inclusive sums, median of " << o_.reps << " runs\n";
    for (DType d : o_.types) {
      std::int64_t largest = 0;
      for (const Row& r : rows_) {
        if (r.dtype == d) largest = std::max(largest, r.n);
      }
      std::cout << "\n" << dtype_name(d) << ", n = " << exponent(largest) << "\n";
      std::cout << "  chapter  best variant             median ms      GB/s   % copy   x CUB\n";
      std::map<std::string, const Row*> best;
      for (const Row& r : rows_) {
        if (r.dtype != d || r.n != largest) continue;
        const bool usable = (r.status == "PASS" && (r.scope == "full" || r.scope == "segmented")) || r.status == "REF";
        if (!usable) continue;
        const std::string key = r.chapter == "00" ? "00 " + r.variant : r.chapter;
        if (!best.count(key) || r.gbps > best[key]->gbps) best[key] = &r;
      }
      for (const auto& [key, r] : best) {
        char line[160];
        std::snprintf(line, sizeof line, "  %-7s  %-22s %10.4f %9.1f %7.1f%% %7s\n", r->chapter.c_str(),
                      r->variant.c_str(), r->timing.median_ms, r->gbps, 100.0 * r->copy_fraction,
                      r->x_cub > 0 ? fixed(r->x_cub, 2).c_str() : "-");
        std::cout << line;
      }
      for (const Row& r : rows_) {
        if (r.dtype == d && r.status == "FAIL") std::cout << "  FAIL: chapter " << r.chapter << " " << r.variant
                                                          << " at n = " << exponent(r.n) << "\n";
      }
      for (const auto& [chapter, reason] : skipped_) {
        std::string column = chapter;
        column.resize(7, ' ');  // the width of the chapter column above
        std::cout << "  " << column << "  skipped: " << reason << "\n";
      }
    }
  }

  Options o_;
  DeviceInfo device_;
  std::string command_;
  std::map<std::string, std::string> skipped_;
  Progress progress_;
  std::ofstream csv_;
  std::vector<Row> rows_;
  double copy_ms_ = 0, cub_ms_ = 0;
  bool failed_ = false;
};

int run(int argc, char** argv) {
  const std::optional<Options> parsed = parse(argc, argv);
  if (!parsed) return kExitOk;
  const Options& o = *parsed;
  std::string command = "ch00_scoreboard";
  for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
  const DeviceInfo device = query_device();  // exit 3 without a usable device

  // The entries: CUB and Thrust, then every chosen chapter's variants.
  std::vector<std::pair<std::string, const Variant*>> entries = {{"00", &cub_variant()},
                                                                 {"00", &thrust_variant()}};
  std::map<std::string, std::string> skipped;  // chapters this GPU cannot run, each with the reason
  for (const Chapter* c : all_chapters()) {
    if (c->where != Where::device) continue;
    if (!o.chapters.empty() && std::find(o.chapters.begin(), o.chapters.end(), c->number) == o.chapters.end()) {
      continue;
    }
    try {
      require_architecture(c->program(), c->needs, device);
    } catch (const UnsupportedGpu& e) {
      skipped[c->number] = e.what();
      continue;
    }
    for (const Variant& v : c->variants) {
      if (!v.info.tuning) entries.emplace_back(c->number, &v);
    }
  }

  Scoreboard board(o, device, command, skipped);
  board.note("ch00_scoreboard: " + describe(device));
  for (const auto& [chapter, reason] : skipped) board.note("chapter " + chapter + " skipped: " + reason);
  for (DType d : o.types) {
    for (std::int64_t n = o.n_min; n <= o.n_max; n *= 4) {
      board.note(std::string(dtype_name(d)) + ", n = " + exponent(n));
      visit_combo(d, OpId::add, [&]<class T, class Op>() { board.measure<T>(n, entries); });
    }
  }
  board.finish();
  return board.failed() ? kExitWrongResult : kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  return scan::guarded_main("ch00_scoreboard", [&] { return run(argc, argv); });
}
