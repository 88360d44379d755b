/// \file
/// \brief How the runner prints a run (internal to scan_app): the results
/// table, CSV and JSON, and the `--trace` picture of every step.
#pragma once

#include <scan/cli.hpp>
#include <scan/registry.hpp>
#include <scan/timing.hpp>
#include <scan/trace.hpp>
#include <scan/verify.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <string>
#include <vector>

namespace scan::run_output {

enum class Status { pass, fail, skip, reference };

/// One line of the results table.
struct Row {
  std::string name;
  Status status = Status::pass;
  std::string note;       ///< why a row was skipped, or what a building block scans
  bool timed = false;
  TimingStats timing;
  bool is_cub = false;
};

/// Everything a typed run produces, for printing.
struct RunResult {
  std::vector<Row> rows;
  double copy_ms = 0;       ///< the copy ceiling's median (0: not measured)
  double copy_bytes = 0;    ///< what the copy moves: 2 n sizeof(T) (less than `bytes` for a segmented scan)
  double cub_ms = 0;        ///< CUB's median (0: not measured)
  double bytes = 0;         ///< 2 n sizeof(T)
  bool any_failed = false;
};

/// PASS, FAIL, SKIP, or - for a reference row.
const char* status_text(Status s);

/// n, and its K/M/G form where it is an exact power of two: "1048576 (1M)".
std::string format_count(std::int64_t n);

/// The table a reader sees (with the L2 note for small device runs).
void print_table(const Chapter& chapter, const RunResult& r, std::int64_t n);

/// One CSV row per variant, after a `# device:` line.
void print_csv(const Chapter& chapter, const Options& o, const RunResult& r, std::int64_t n,
               const std::string& device_line);

/// The same as one JSON document.
void print_json(const Chapter& chapter, const Options& o, const RunResult& r, std::int64_t n,
                const std::string& device_line);

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

}  // namespace scan::run_output
