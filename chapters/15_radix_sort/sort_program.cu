// Chapter 15's program: sorts keys (or key-value pairs) with the onesweep
// radix sort for each digit width asked for, checks every result against a
// CPU reference, and times it next to cub::DeviceRadixSort and a copy of the
// keys in the same run, on the same input.
#include "sort_program.hpp"
#include "radix_sort.hpp"

#include <scan/cli.hpp>
#include <scan/device_buffer.hpp>
#include <scan/device_info.hpp>
#include <scan/error.hpp>
#include <scan/format.hpp>
#include <scan/runner.hpp>
#include <scan/timing.hpp>

#include <CLI/CLI.hpp>
#include <cub/device/device_radix_sort.cuh>

#include <iomanip>
#include <iostream>
#include <sstream>

namespace scan::ch15 {
namespace {

/// One row of the results table.
struct Row {
  std::string variant;  ///< "onesweep", "cub::DeviceRadixSort::SortKeys", "copy"
  int digit_bits = 8;   ///< of the onesweep rows
  double bytes = 0;     ///< what the passes move: read and write every key (and value) once a pass
  TimingStats timing;
  bool timed = false;
  bool library = false;
  std::string status = "PASS";
};

const char* type_name(KeyType t) {
  switch (t) {
    case KeyType::u32: return "uint32";
    case KeyType::i32: return "int32";
    case KeyType::f32: return "float";
    case KeyType::u64: return "uint64";
  }
  return "?";
}

const char* dist_name(KeyDistribution d) {
  switch (d) {
    case KeyDistribution::uniform: return "uniform";
    case KeyDistribution::few: return "few";
    case KeyDistribution::equal: return "equal";
    case KeyDistribution::sorted: return "sorted";
  }
  return "?";
}

/// Sorts, checks and times one key type (and value type: void for keys alone).
template <class Key, class Value>
class SortRun {
  static constexpr bool kPairs = !std::is_void_v<Value>;
  using V = std::conditional_t<kPairs, Value, std::uint32_t>;  // a stand-in type where there are no values

 public:
  explicit SortRun(const SortOptions& o) : o_(o), progress_(!o.quiet) {}

  /// Runs everything; returns the rows.
  std::vector<Row> run() {
    const std::int64_t n = o_.n;
    progress_.step("making the keys and the CPU reference", n);
    const std::vector<Key> keys = make_keys<Key>(n, o_.dist, o_.seed);
    std::vector<V> values;
    if constexpr (kPairs) {
      values.resize(keys.size());
      for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<V>(i);  // stability shows in them
    }
    expected_keys_ = keys;
    expected_values_ = values;
    reference_sort<Key, V>(expected_keys_, kPairs ? &expected_values_ : nullptr);

    DeviceBuffer<Key> d_keys(keys), d_out(keys.size());
    DeviceBuffer<V> d_values(values), d_values_out(values.size());
    d_out_ = &d_out;
    d_values_out_ = &d_values_out;
    const double item_bytes = sizeof(Key) + (kPairs ? sizeof(V) : 0);
    auto sort_bytes = [&](int digit_bits) {  // every pass reads and writes every item; the histogram reads the keys
      const int passes = int(sizeof(Key) * 8) / digit_bits;
      return static_cast<double>(n) * (2.0 * passes * item_bytes + sizeof(Key));
    };

    for (int digit_bits : o_.digit_bits) {
      DeviceBuffer<std::byte> scratch(sort_scratch_bytes<Key, Value>(n, digit_bits));
      Row row{"onesweep", digit_bits, sort_bytes(digit_bits)};
      measure(row, [&] {
        if constexpr (kPairs) {
          onesweep_sort<Key, Value>(d_keys.data(), d_out.data(), d_values.data(), d_values_out.data(), n, digit_bits,
                                    scratch.data(), scratch.bytes());
        } else {
          onesweep_sort<Key, void>(d_keys.data(), d_out.data(), nullptr, nullptr, n, digit_bits, scratch.data(),
                                   scratch.bytes());
        }
      });
    }
    if (o_.baselines) {
      std::size_t cub_bytes = 0;
      constexpr int kEndBit = sizeof(Key) * 8;
      auto cub_sort = [&](void* temp) {
        if constexpr (kPairs) {
          SCAN_CUDA(cub::DeviceRadixSort::SortPairs(temp, cub_bytes, d_keys.data(), d_out.data(), d_values.data(),
                                                    d_values_out.data(), n, 0, kEndBit));
        } else {
          SCAN_CUDA(cub::DeviceRadixSort::SortKeys(temp, cub_bytes, d_keys.data(), d_out.data(), n, 0, kEndBit));
        }
      };
      cub_sort(nullptr);
      DeviceBuffer<std::byte> cub_temp(std::max<std::size_t>(cub_bytes, 1));
      Row row{kPairs ? "cub::DeviceRadixSort::SortPairs" : "cub::DeviceRadixSort::SortKeys", 8, sort_bytes(8)};
      row.library = true;
      measure(row, [&] { cub_sort(cub_temp.data()); });
      if (o_.reps > 0 && n > 0) {
        progress_.step("timing the copy", n);
        Row copy{"copy of the keys", 0, 2.0 * static_cast<double>(n) * sizeof(Key)};
        copy.timing = time_device(
            [&] { SCAN_CUDA(cudaMemcpyAsync(d_out.data(), d_keys.data(), d_keys.bytes(), cudaMemcpyDeviceToDevice)); },
            o_.warmup, o_.reps, nullptr);
        copy.timed = true;
        rows_.push_back(copy);
      }
    }
    progress_.clear();
    return rows_;
  }
  bool failed() const { return failed_; }

 private:
  std::string check() {
    const std::vector<Key> got = d_out_->to_host();
    std::vector<V> got_values;
    if constexpr (kPairs) got_values = d_values_out_->to_host();
    return first_difference<Key, V>(got, expected_keys_, kPairs ? &got_values : nullptr,
                                    kPairs ? &expected_values_ : nullptr);
  }

  /// Poisons the output, runs once and checks, then times and checks again.
  template <class Sort>
  void measure(Row row, Sort sort) {
    const std::string name = row.variant + (row.library ? "" : " " + std::to_string(row.digit_bits) + "-bit");
    poison(*d_out_);
    poison(*d_values_out_);
    progress_.step(name + ": sorting once and checking", o_.n);
    sort();
    SCAN_CUDA(cudaDeviceSynchronize());
    std::string wrong = check();
    if (wrong.empty() && o_.reps > 0 && o_.n > 0) {
      progress_.step(name + ": timing " + std::to_string(o_.reps) + " runs", o_.n);
      row.timing = time_device(sort, o_.warmup, o_.reps, nullptr);
      row.timed = true;
      wrong = check();  // the timed runs must have sorted the same way
      if (!wrong.empty()) row.timed = false;
    }
    if (!wrong.empty()) {
      row.status = "FAIL";
      failed_ = true;
      progress_.clear();
      std::cerr << "FAIL: " << name << ", " << type_name(o_.type) << (kPairs ? " pairs" : " keys") << ", "
                << dist_name(o_.dist) << ", n = " << o_.n << ", seed " << o_.seed << ": " << wrong << "\n";
    }
    rows_.push_back(row);
  }

  const SortOptions& o_;
  Progress progress_;
  std::vector<Row> rows_;
  std::vector<Key> expected_keys_;
  std::vector<V> expected_values_;
  DeviceBuffer<Key>* d_out_ = nullptr;
  DeviceBuffer<V>* d_values_out_ = nullptr;
  bool failed_ = false;
};

void print(const SortOptions& o, const std::vector<Row>& rows, const std::string& device_line) {
  double copy_gbps = 0, library_ms = 0;
  for (const Row& r : rows) {
    if (r.variant == "copy of the keys" && r.timed) copy_gbps = gigabytes_per_second(r.bytes, r.timing.median_ms);
    if (r.library && r.timed) library_ms = r.timing.median_ms;
  }
  const std::string input = std::string(type_name(o.type)) + (o.pairs ? " pairs" : " keys");
  if (o.format == OutputFormat::csv) {
    std::cout << "# device: " << device_line << "\n"
              << "program,keys,values,dist,variant,digit_bits,n,status,median_ms,min_ms,max_ms,gbps,copy_fraction,"
                 "x_cub\n";
  } else {
    std::cout << "ch15_radix_sort: " << input << ", " << dist_name(o.dist) << ", n = " << o.n << "\ndevice: "
              << device_line << "\n\n"
              << std::left << std::setw(40) << "variant" << std::right << std::setw(12) << "median ms"
              << std::setw(10) << "GB/s" << std::setw(9) << "% copy" << std::setw(8) << "x CUB" << "  check\n";
  }
  for (const Row& r : rows) {
    const double gbps = r.timed ? gigabytes_per_second(r.bytes, r.timing.median_ms) : 0;
    const bool ratio = r.timed && library_ms > 0 && !r.library && r.variant != "copy of the keys";
    const bool is_copy = r.variant == "copy of the keys";
    const std::string name = r.variant + (r.library || is_copy ? "" : ", " + std::to_string(r.digit_bits) + "-bit digits");
    if (o.format == OutputFormat::csv) {
      std::cout << "ch15_radix_sort," << type_name(o.type) << ',' << (o.pairs ? "uint32" : "") << ','
                << dist_name(o.dist) << ',' << r.variant << ',' << (is_copy ? "" : std::to_string(r.digit_bits)) << ','
                << o.n << ',' << (is_copy ? "" : r.status) << ',';
      if (r.timed) {
        std::cout << fixed(r.timing.median_ms, 6) << ',' << fixed(r.timing.min_ms, 6) << ','
                  << fixed(r.timing.max_ms, 6) << ',' << fixed(gbps, 2) << ','
                  << (copy_gbps > 0 ? fixed(gbps / copy_gbps, 4) : "") << ','
                  << (ratio ? fixed(library_ms / r.timing.median_ms, 4) : "");
      } else {
        std::cout << ",,,,,";
      }
      std::cout << "\n";
    } else {
      std::cout << std::left << std::setw(40) << name << std::right;
      if (r.timed) {
        std::cout << std::setw(12) << fixed(r.timing.median_ms, 4) << std::setw(10) << fixed(gbps, 1) << std::setw(9)
                  << (copy_gbps > 0 ? fixed(100 * gbps / copy_gbps, 1) + "%" : "-") << std::setw(8)
                  << (ratio ? fixed(library_ms / r.timing.median_ms, 3) : "-");
      } else {
        std::cout << std::setw(12) << "-" << std::setw(10) << "-" << std::setw(9) << "-" << std::setw(8) << "-";
      }
      std::cout << "  " << (is_copy ? "" : r.status) << "\n";
    }
  }
}

template <class Key>
bool run_key_type(const SortOptions& o, const std::string& device_line) {
  std::vector<Row> rows;
  bool failed = false;
  if (o.pairs) {
    SortRun<Key, std::uint32_t> run(o);
    rows = run.run();
    failed = run.failed();
  } else {
    SortRun<Key, void> run(o);
    rows = run.run();
    failed = run.failed();
  }
  print(o, rows, device_line);
  return !failed;
}

}  // namespace

int run_sort_program(int argc, char** argv) {
  SortOptions o;
  CLI::App app("Chapter 15: an LSD radix sort, one pass per digit with a look-back over digit counts,\n"
               "checked against a CPU reference and timed next to cub::DeviceRadixSort.",
               "ch15_radix_sort");
  configure_app(app);
  add_count_option(app, "--n", o.n, "keys, with K/M/G suffixes, below 2^32 [16M]");
  add_value_option(app, "--type", "T", "uint32, int32, float or uint64 [uint32]", [&o](const std::string& v) {
    if (v == "uint32") o.type = KeyType::u32;
    else if (v == "int32") o.type = KeyType::i32;
    else if (v == "float") o.type = KeyType::f32;
    else if (v == "uint64") o.type = KeyType::u64;
    else throw UsageError("--type must be uint32, int32, float or uint64, not '" + v + "'");
  });
  app.add_flag_callback("--pairs", [&o] { o.pairs = true; }, "sort key-value pairs (32-bit values)");
  add_value_option(app, "--dist", "D", "uniform, few (seven distinct keys), equal or sorted [uniform]",
                   [&o](const std::string& v) {
                     if (v == "uniform") o.dist = KeyDistribution::uniform;
                     else if (v == "few") o.dist = KeyDistribution::few;
                     else if (v == "equal") o.dist = KeyDistribution::equal;
                     else if (v == "sorted") o.dist = KeyDistribution::sorted;
                     else throw UsageError("--dist must be uniform, few, equal or sorted, not '" + v + "'");
                   });
  add_value_option(app, "--bits", "LIST", "digit widths to run, of 1, 4 and 8 (1 and 4: uint32 keys alone) [8]",
                   [&o](const std::string& v) {
                     o.digit_bits.clear();
                     for (const std::string& item : split_list(v)) {
                       if (item != "1" && item != "4" && item != "8") {
                         throw UsageError("--bits takes 1, 4 and 8, not '" + item + "'");
                       }
                       o.digit_bits.push_back(std::stoi(item));
                     }
                   });
  add_run_options(app, o);
  app.add_flag_callback("--csv", [&o] { o.format = OutputFormat::csv; }, "CSV on stdout");
  app.add_flag_callback("--no-baselines", [&o] { o.baselines = false; }, "leave out the CUB and copy rows");
  app.footer("exit codes: 0 verified, 1 a wrong result, 2 bad usage, 3 no usable CUDA device or a CUDA error");
  if (!parse_command_line(app, std::vector<std::string>(argv + 1, argv + argc))) {
    std::cout << app.help();
    return kExitOk;
  }
  if (o.n > kMaxKeys) throw UsageError("--n must be below 2^32, not " + std::to_string(o.n));
  for (int bits : o.digit_bits) {
    if (bits != 8 && (o.type != KeyType::u32 || o.pairs)) {
      throw UsageError("--bits " + std::to_string(bits) + " is built for uint32 keys alone (no --pairs); 8 runs for every type");
    }
  }
  const DeviceInfo device = query_device();
  // Input, output, CUB's output and the sort's second buffer, for keys and values; CUB's own scratch.
  const std::size_t item = (o.type == KeyType::u64 ? 8 : 4) + (o.pairs ? 4 : 0);
  const std::size_t needed = static_cast<std::size_t>(o.n) * item * 5;
  if (needed > device.free_bytes) {
    throw UsageError("n = " + std::to_string(o.n) + " needs about " + format_bytes(needed) + " of device memory but " +
                     format_bytes(device.free_bytes) + " is free; choose a smaller --n");
  }
  const std::string line = describe(device);
  bool right = true;
  switch (o.type) {
    case KeyType::u32: right = run_key_type<std::uint32_t>(o, line); break;
    case KeyType::i32: right = run_key_type<std::int32_t>(o, line); break;
    case KeyType::f32: right = run_key_type<float>(o, line); break;
    case KeyType::u64: right = run_key_type<std::uint64_t>(o, line); break;
  }
  return right ? kExitOk : kExitWrongResult;
}

}  // namespace scan::ch15
