#include "run_output.hpp"

#include <scan/format.hpp>

#include <nlohmann/json.hpp>

#include <iostream>

namespace scan::run_output {
namespace {

/// A row's bandwidth: the copy's own bytes for the copy row, the scan's for the others.
double row_gbps(const RunResult& r, const Row& row) {
  const double bytes = row.status == Status::reference ? r.copy_bytes : r.bytes;
  return gigabytes_per_second(bytes, row.timing.median_ms);
}

/// A row's bandwidth as a fraction of the copy's (0 when the copy was not timed).
double copy_fraction(const RunResult& r, const Row& row) {
  return r.copy_ms > 0 ? row_gbps(r, row) / gigabytes_per_second(r.copy_bytes, r.copy_ms) : 0;
}

}  // namespace

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

}  // namespace scan::run_output
