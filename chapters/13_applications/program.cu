// Chapter 13's program: each application run, checked against its CPU
// reference, timed, and compared with NVIDIA's library doing the same job
// in the same run, on the same input.
#include "applications.cuh"
#include "program.hpp"
#include "segmented.cuh"  // chapter 12: the batched recurrence as a segmented scan

#include <scan/cli.hpp>
#include <scan/device_buffer.hpp>
#include <scan/device_info.hpp>
#include <scan/error.hpp>
#include <scan/format.hpp>
#include <scan/generate.hpp>
#include <scan/runner.hpp>
#include <scan/timing.hpp>

#include <CLI/CLI.hpp>
#include <cub/device/device_partition.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>

#include <chrono>
#include <cmath>
#include <cstring>
#include <iostream>
#include <map>
#include <numbers>

namespace scan::ch13 {

std::vector<std::uint32_t> sort_reference(std::vector<std::uint32_t> keys) {
  std::vector<std::uint32_t> other(keys.size());
  for (int shift = 0; shift < 32; shift += 8) {
    std::vector<std::size_t> start(257, 0);
    for (std::uint32_t k : keys) ++start[((k >> shift) & 0xFFu) + 1];
    for (int d = 0; d < 256; ++d) start[d + 1] += start[d];
    for (std::uint32_t k : keys) other[start[(k >> shift) & 0xFFu]++] = k;
    keys.swap(other);
  }
  return keys;
}

std::vector<float> recurrence_slopes(std::int64_t n, Slopes kind, std::uint64_t seed) {
  std::vector<float> a(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const double unit = std::ldexp(static_cast<double>(random_bits(seed, static_cast<std::uint64_t>(i)) >> 11), -53);
    float value = 1.0f;
    switch (kind) {
      case Slopes::decaying: value = static_cast<float>(0.9 + 0.0999 * unit); break;  // in [0.9, 0.9999)
      case Slopes::one: value = 1.0f; break;
      case Slopes::mixed: value = i % 3 == 0 ? 1.0f : static_cast<float>(-0.99 + 1.98 * unit); break;
    }
    a[static_cast<std::size_t>(i)] = value;
  }
  return a;
}

std::vector<float> recurrence_offsets(std::int64_t n, Slopes kind, std::uint64_t seed) {
  std::vector<float> b(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint64_t bits = random_bits(seed + 1, static_cast<std::uint64_t>(i));
    // a = 1 is a plain running sum: small integers keep it exact; otherwise
    // a noisy signal, as a model's inputs are.
    b[static_cast<std::size_t>(i)] =
        kind == Slopes::one ? static_cast<float>(static_cast<int>(bits >> 60) - 8)
                            : static_cast<float>(std::sin(0.001 * static_cast<double>(i)) +
                                                 0.5 * (std::ldexp(static_cast<double>(bits >> 11), -53) - 0.5));
  }
  return b;
}

double recurrence_depth(std::int64_t i, std::int64_t row) {
  const std::int64_t within = row > 0 ? i % row : i;
  // Per tile of the look-back chain: a window's warp scan (5), its combine
  // and the publish (2), and one more for a second window: 8. In the tile:
  // a thread's total is a chain over its items (kItems), the block scan
  // adds warp scans and combines (16), and the final pass is a chain over
  // the items again (kItems).
  return 8.0 * static_cast<double>(within / kTile) + 2 * kItems + 16;
}

namespace {

/// The maps of a batched recurrence as chapter 12 scans them: (a, b) packed
/// in one 64-bit word, composed "first left, then right".
struct PackedCompose {
  /// The identity map, packed.
  template <class T>
  __host__ __device__ static T identity() {
    return pack({1.0f, 0.0f});
  }
  /// Packs a map.
  __host__ __device__ static std::uint64_t pack(Affine f) {
    std::uint64_t word;
    std::memcpy(&word, &f, sizeof word);
    return word;
  }
  /// Composes two packed maps.
  __host__ __device__ std::uint64_t operator()(std::uint64_t first, std::uint64_t then) const {
    Affine f, g;
    std::memcpy(&f, &first, sizeof f);
    std::memcpy(&g, &then, sizeof g);
    return pack(Compose{}(f, g));
  }
};

/// Keeps the b half of each packed map: x.
__global__ void unpack_x(const std::uint64_t* maps, float* x, std::int64_t n) {
  const std::int64_t i = global_thread_index();
  if (i < n) {
    Affine f;
    std::memcpy(&f, &maps[i], sizeof f);
    x[i] = f.b;
  }
}

/// One row of the results table.
struct Row {
  std::string app;       ///< compact, split, sort, recurrence
  std::string variant;   ///< ours, or the library's
  std::string param;     ///< what else sets the case (kept fraction, bit, row length)
  std::int64_t n = 0;
  double bytes = 0;      ///< the least the job must move
  TimingStats timing;
  bool timed = false;
  bool library = false;  ///< the library row the others are compared with
  std::string status = "PASS";
};

/// Runs, checks and times one case after another, and prints the table.
class Session {
 public:
  explicit Session(const AppOptions& o) : o_(o), progress_(!o.quiet) {}

  /// Checks `run`'s result with `check` (empty: right), then times it.
  template <class Run, class Check>
  void measure(Row row, Run run, Check check) {
    progress_.step(row.app + " " + row.variant + ": running once and checking", row.n);
    run();
    SCAN_CUDA(cudaDeviceSynchronize());
    const std::string wrong = check();
    if (!wrong.empty()) {
      row.status = "FAIL";
      failed_ = true;
      progress_.clear();
      std::cerr << "FAIL: " << row.app << " " << row.variant << ", n = " << row.n << " (" << row.param
                << "), seed " << o_.seed << ": " << wrong << "\n";
    } else if (o_.reps > 0 && row.n > 0) {
      progress_.step(row.app + " " + row.variant + ": timing " + std::to_string(o_.reps) + " runs", row.n);
      row.timing = time_device(run, o_.warmup, o_.reps, nullptr);
      row.timed = true;
      // The timed runs must have computed the same thing.
      const std::string after = check();
      if (!after.empty()) {
        row.status = "FAIL";
        row.timed = false;
        failed_ = true;
        std::cerr << "FAIL after timing: " << row.app << " " << row.variant << ": " << after << "\n";
      }
    }
    rows_.push_back(row);
  }
  /// Adds a row timed on the host (the CPU's loop).
  void host_row(Row row, const TimingStats& timing) {
    row.timing = timing;
    row.timed = true;
    rows_.push_back(row);
  }
  /// The device copy of `bytes`, the ceiling the rows of `app` are compared with.
  void copy_ceiling(const std::string& app, const void* from, void* to, std::size_t bytes) {
    if (o_.reps == 0 || bytes == 0) return;
    progress_.step(app + ": timing the copy", static_cast<std::int64_t>(bytes / 4));
    copy_ms_[app] = time_device([&] { SCAN_CUDA(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice)); },
                                o_.warmup, o_.reps, nullptr)
                        .median_ms;
    copy_bytes_[app] = static_cast<double>(2 * bytes);
  }
  bool failed() const { return failed_; }

  void print(const std::string& device_line) {
    progress_.clear();
    if (o_.format == OutputFormat::csv) {
      std::cout << "# device: " << device_line << "\n"
                << "program,app,variant,param,n,status,median_ms,min_ms,max_ms,gbps,copy_fraction,x_library\n";
    } else {
      std::cout << "ch13_applications: what scan is for\ndevice: " << device_line << "\n\n";
      std::cout << pad("app / variant", 44) << right("n", 12) << right("median ms", 12) << right("GB/s", 9)
                << right("% copy", 9) << right("x lib", 8) << "  check\n";
    }
    for (const Row& r : rows_) {
      const double gbps = r.timed ? gigabytes_per_second(r.bytes, r.timing.median_ms) : 0;
      const auto copy = copy_ms_.find(r.app);
      const double copy_gbps = copy != copy_ms_.end() ? gigabytes_per_second(copy_bytes_[r.app], copy->second) : 0;
      const double library = library_ms(r);
      const bool ratio = r.timed && library > 0 && !r.library;
      if (o_.format == OutputFormat::csv) {
        std::cout << "ch13_applications," << r.app << ',' << r.variant << ',' << r.param << ',' << r.n << ','
                  << r.status << ',';
        if (r.timed) {
          std::cout << fixed(r.timing.median_ms, 6) << ',' << fixed(r.timing.min_ms, 6) << ','
                    << fixed(r.timing.max_ms, 6) << ',' << fixed(gbps, 2) << ','
                    << (copy_gbps > 0 ? fixed(gbps / copy_gbps, 4) : "") << ','
                    << (ratio ? fixed(library / r.timing.median_ms, 4) : "");
        } else {
          std::cout << ",,,,,";
        }
        std::cout << "\n";
      } else {
        std::cout << pad(r.app + " " + r.variant + " (" + r.param + ")", 44) << right(std::to_string(r.n), 12);
        if (r.timed) {
          std::cout << right(fixed(r.timing.median_ms, 4), 12) << right(fixed(gbps, 1), 9)
                    << right(copy_gbps > 0 ? fixed(100 * gbps / copy_gbps, 1) + "%" : "-", 9)
                    << right(ratio ? fixed(library / r.timing.median_ms, 2) : "-", 8);
        } else {
          std::cout << right("-", 12) << right("-", 9) << right("-", 9) << right("-", 8);
        }
        std::cout << "  " << r.status << "\n";
      }
    }
  }

 private:
  static std::string pad(const std::string& s, std::size_t w) { return s.size() >= w ? s : s + std::string(w - s.size(), ' '); }
  static std::string right(const std::string& s, std::size_t w) { return s.size() >= w ? s : std::string(w - s.size(), ' ') + s; }
  /// The library's time for the case of `r` (0 if none was timed).
  double library_ms(const Row& r) const {
    for (const Row& other : rows_) {
      if (other.library && other.app == r.app && other.param == r.param && other.n == r.n && other.timed) {
        return other.timing.median_ms;
      }
    }
    return 0;
  }

  const AppOptions& o_;
  Progress progress_;
  std::vector<Row> rows_;
  std::map<std::string, double> copy_ms_;
  std::map<std::string, double> copy_bytes_;
  bool failed_ = false;
};

// [compact app]
template <class T>
void run_compact(const AppOptions& o, Session& session) {
  const std::int64_t n = o.n;
  const auto threshold = static_cast<std::uint32_t>(std::min(std::ldexp(o.select, 32), 4294967295.0));
  const KeepBelow keep{threshold};
  // Uniform random 32-bit patterns, so `keep` keeps the fraction asked for.
  std::vector<T> in(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const auto bits = static_cast<std::uint32_t>(random_bits(o.seed, i) >> 32);
    std::memcpy(&in[i], &bits, sizeof bits);
  }
  const std::vector<T> expected = compact_reference(in, keep);
  const std::string param = "keep " + fixed(100 * o.select, 0) + "%";
  const double bytes = 4.0 * static_cast<double>(n + static_cast<std::int64_t>(expected.size()));

  DeviceBuffer<T> d_in(in), d_out(in.size());
  DeviceBuffer<unsigned long long> d_kept(1);
  DeviceBuffer<std::byte> scratch(scatter_scratch_bytes(n));
  session.copy_ceiling("compact", d_in.data(), d_out.data(), d_in.bytes());
  const auto check = [&] {
    unsigned long long kept = 0;
    SCAN_CUDA(cudaMemcpy(&kept, d_kept.data(), sizeof kept, cudaMemcpyDeviceToHost));
    if (kept != expected.size()) return "kept " + std::to_string(kept) + ", expected " + std::to_string(expected.size());
    std::vector<T> got(expected.size());
    if (!got.empty()) SCAN_CUDA(cudaMemcpy(got.data(), d_out.data(), got.size() * sizeof(T), cudaMemcpyDeviceToHost));
    // Compared bit for bit (a float NaN pattern must survive the move too).
    return std::memcmp(got.data(), expected.data(), got.size() * sizeof(T)) == 0
               ? std::string()
               : "the kept elements differ from the reference";
  };
  // Every kernel on the same input; the output is poisoned before each, so
  // a kernel's check never sees what the one before it wrote.
  for (const ScatterKernel kernel : kScatterKernels) {
    poison(d_out);
    poison(d_kept);
    session.measure({"compact", "single-pass (" + scatter_kernel_name(kernel) + ")", param, n, bytes},
                    [&] {
                      select_if(d_in.data(), d_out.data(), n, keep, d_kept.data(), scratch.data(), nullptr, kernel);
                    },
                    check);
  }
  if (!o.baselines) return;
  std::size_t cub_bytes = 0;
  SCAN_CUDA(cub::DeviceSelect::If(nullptr, cub_bytes, d_in.data(), d_out.data(), d_kept.data(), n, keep));
  DeviceBuffer<std::byte> cub_scratch(cub_bytes);
  Row library{"compact", "cub::DeviceSelect::If", param, n, bytes};
  library.library = true;
  poison(d_out);
  poison(d_kept);
  session.measure(library,
                  [&] {
                    SCAN_CUDA(cub::DeviceSelect::If(cub_scratch.data(), cub_bytes, d_in.data(), d_out.data(),
                                                    d_kept.data(), n, keep));
                  },
                  check);
}
// [compact app]

void run_split(const AppOptions& o, Session& session) {
  const std::int64_t n = o.n;
  std::vector<std::uint32_t> in(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) in[i] = static_cast<std::uint32_t>(random_bits(o.seed, i) >> 32);
  const BitIsZero zero{o.bit};
  const std::vector<std::uint32_t> stable = split_reference(in, zero, false);
  const std::vector<std::uint32_t> reversed = split_reference(in, zero, true);
  const std::string param = "bit " + std::to_string(o.bit);
  const double bytes = 8.0 * static_cast<double>(n);

  DeviceBuffer<std::uint32_t> d_in(in), d_out(in.size());
  DeviceBuffer<unsigned long long> d_zeros(1);
  DeviceBuffer<std::byte> scratch(scatter_scratch_bytes(n));
  session.copy_ceiling("split", d_in.data(), d_out.data(), d_in.bytes());
  const auto check_against = [&](const std::vector<std::uint32_t>& expected) {
    return [&] { return first_difference(d_out.to_host(), expected); };
  };
  for (const ScatterKernel kernel : kScatterKernels) {
    poison(d_out);
    session.measure({"split", "stable (count then one pass; " + scatter_kernel_name(kernel) + ")", param, n, bytes},
                    [&] {
                      split_by_bit(d_in.data(), d_out.data(), n, o.bit, d_zeros.data(), false, scratch.data(), nullptr,
                                   kernel);
                    },
                    check_against(stable));
  }
  for (const ScatterKernel kernel : kScatterKernels) {
    poison(d_out);
    session.measure({"split", "partition (one pass: ones reversed; " + scatter_kernel_name(kernel) + ")", param, n,
                     bytes},
                    [&] {
                      partition_by_bit(d_in.data(), d_out.data(), n, o.bit, d_zeros.data(), scratch.data(), nullptr,
                                       kernel);
                    },
                    check_against(reversed));
  }
  if (!o.baselines) return;
  std::size_t cub_bytes = 0;
  SCAN_CUDA(cub::DevicePartition::If(nullptr, cub_bytes, d_in.data(), d_out.data(), d_zeros.data(), n, zero));
  DeviceBuffer<std::byte> cub_scratch(cub_bytes);
  Row library{"split", "cub::DevicePartition::If", param, n, bytes};
  library.library = true;
  poison(d_out);
  session.measure(library,
                  [&] {
                    SCAN_CUDA(cub::DevicePartition::If(cub_scratch.data(), cub_bytes, d_in.data(), d_out.data(),
                                                       d_zeros.data(), n, zero));
                  },
                  check_against(reversed));
}

void run_sort(const AppOptions& o, Session& session) {
  const std::int64_t n = o.n;
  std::vector<std::uint32_t> in(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) in[i] = static_cast<std::uint32_t>(random_bits(o.seed, i) >> 32);
  const std::vector<std::uint32_t> expected = sort_reference(in);
  const double bytes = 8.0 * static_cast<double>(n);
  DeviceBuffer<std::uint32_t> d_in(in), d_keys(in.size());
  DeviceBuffer<std::byte> scratch(sort_scratch_bytes(n));
  session.copy_ceiling("sort", d_in.data(), d_keys.data(), d_in.bytes());
  const auto check = [&] { return first_difference(d_keys.to_host(), expected); };
  // Each run sorts a fresh copy of the input (the copy is timed with it).
  for (const ScatterKernel kernel : {ScatterKernel::per_tile, ScatterKernel::bulk}) {
    session.measure({"sort", "32 splits of one bit (" + scatter_kernel_name(kernel) + ")", "32-bit keys", n, bytes},
                    [&] {
                      SCAN_CUDA(cudaMemcpyAsync(d_keys.data(), d_in.data(), d_in.bytes(), cudaMemcpyDeviceToDevice));
                      radix_sort(d_keys.data(), n, scratch.data(), nullptr, kernel);
                    },
                    check);
  }
  if (!o.baselines) return;
  std::size_t cub_bytes = 0;
  SCAN_CUDA(cub::DeviceRadixSort::SortKeys(nullptr, cub_bytes, d_in.data(), d_keys.data(), n));
  DeviceBuffer<std::byte> cub_scratch(cub_bytes);
  Row library{"sort", "cub::DeviceRadixSort::SortKeys", "32-bit keys", n, bytes};
  library.library = true;
  session.measure(library,
                  [&] { SCAN_CUDA(cub::DeviceRadixSort::SortKeys(cub_scratch.data(), cub_bytes, d_in.data(), d_keys.data(), n)); },
                  check);
}

// [recurrence app]
void run_recurrence(const AppOptions& o, Session& session) {
  const std::int64_t n = o.n;
  for (const std::int64_t row : {std::int64_t{0}, o.row}) {
    if (row > 0 && (row > n || n % row != 0)) continue;  // a batch needs whole rows
    const std::vector<float> a = recurrence_slopes(n, o.slopes, o.seed);
    const std::vector<float> b = recurrence_offsets(n, o.slopes, o.seed);
    const RecurrenceReference reference =
        recurrence_reference(a, b, row, [row](std::int64_t i) { return recurrence_depth(i, row); });
    const std::string param = row == 0 ? "one sequence" : std::to_string(n / row) + " rows of " + std::to_string(row);
    const double bytes = 12.0 * static_cast<double>(n);
    DeviceBuffer<float> d_a(a), d_b(b), d_x(a.size());
    DeviceBuffer<std::byte> scratch(recurrence_scratch_bytes(n));
    session.copy_ceiling("recurrence", d_a.data(), d_x.data(), d_a.bytes());
    const auto check = [&] { return judge_recurrence(d_x.to_host(), reference); };
    session.measure({"recurrence", "single-pass", param, n, bytes},
                    [&] { linear_recurrence(d_a.data(), d_b.data(), d_x.data(), n, row, scratch.data(), nullptr); },
                    check);
    if (!o.baselines) continue;
    // The CPU's loop, in float, as a program would write it.
    std::vector<float> host_x(a.size());
    const auto loop = [&] {
      float x = 0;
      for (std::int64_t i = 0; i < n; ++i) {
        if (row > 0 && i % row == 0) x = 0;
        x = a[i] * x + b[i];
        host_x[i] = x;
      }
    };
    loop();
    const std::string host_wrong = judge_recurrence(host_x, reference);
    Row host{"recurrence", "CPU loop (one core)", param, n, bytes};
    host.library = true;
    if (!host_wrong.empty()) host.status = "FAIL";
    session.host_row(host, time_host(loop, 1, std::max(1, std::min(o.reps, 5))));
    if (row == 0) continue;
    // Chapter 12's segmented scan of the packed maps, one segment per row.
    std::vector<std::uint64_t> maps(a.size());
    std::vector<std::uint8_t> heads(a.size(), 0);
    for (std::int64_t i = 0; i < n; ++i) {
      maps[i] = PackedCompose::pack({a[i], b[i]});
      heads[i] = i % row == 0;
    }
    DeviceBuffer<std::uint64_t> d_maps(maps), d_scanned(maps.size());
    DeviceBuffer<std::uint8_t> d_heads(heads);
    using Segmented = ch12::SegmentedScan<ch12::PerTileRecipe{.construction = ch12::Construction::transformed}>;
    Workspace measuring;
    Segmented::reserve<std::uint64_t, PackedCompose>(measuring, n, 0);
    DeviceBuffer<std::byte> segmented_scratch(measuring.used());
    ScanRequest<std::uint64_t> request;
    request.in = d_maps.data();
    request.out = d_scanned.data();
    request.n = n;
    request.heads = d_heads.data();
    request.workspace = Workspace(segmented_scratch.data(), measuring.used());
    session.measure({"recurrence", "chapter 12 segmented scan of (a b) pairs", param, n, 16.0 * static_cast<double>(n)},
                    [&] {
                      Segmented::run<std::uint64_t>(request, PackedCompose{});
                      unpack_x<<<grid_size(n, 256), 256>>>(d_scanned.data(), d_x.data(), n);
                      SCAN_CUDA_LAUNCH();
                    },
                    check);
  }
}
// [recurrence app]

}  // namespace

const std::vector<std::string>& application_names() {
  static const std::vector<std::string> names = {"compact", "split", "sort", "recurrence"};
  return names;
}

int run_applications(int argc, char** argv) {
  AppOptions o;
  CLI::App app("Chapter 13: stream compaction, the radix-sort split, a radix sort and linear recurrences,\n"
               "each checked against a CPU reference and timed next to NVIDIA's library.",
               "ch13_applications");
  configure_app(app);
  add_count_option(app, "--n", o.n, "elements, with K/M/G suffixes [16M]");
  add_value_option(app, "--app", "A", "compact, split, sort, recurrence or all [all]", [&o](const std::string& v) {
    const auto& names = application_names();
    if (v != "all" && std::find(names.begin(), names.end(), v) == names.end()) {
      throw UsageError("--app must be compact, split, sort, recurrence or all, not '" + v + "'");
    }
    o.app = v;
  });
  add_value_option(app, "--select", "F", "compact: the fraction kept, 0 to 1 [0.5]", [&o](const std::string& v) {
    char* end = nullptr;
    o.select = std::strtod(v.c_str(), &end);
    if (end == v.c_str() || *end != '\0' || !(o.select >= 0 && o.select <= 1)) {
      throw UsageError("--select must be a fraction from 0 to 1, not '" + v + "'");
    }
  });
  add_value_option(app, "--type", "T", "compact: int32, uint32 or float (32-bit elements) [int32]",
                   [&o](const std::string& v) {
                     const auto d = parse_dtype(v);
                     if (!d || (*d != DType::i32 && *d != DType::u32 && *d != DType::f32)) {
                       throw UsageError("--type must be int32, uint32 or float here, not '" + v + "'");
                     }
                     o.dtype = *d;
                   });
  add_int_option(app, "--bit", o.bit, 0, 31, "split: the bit that splits the keys [0]");
  add_count_option(app, "--rows", o.row, "recurrence: row length of the batch, a multiple of 4096 (0: none) [64K]");
  add_value_option(app, "--slopes", "S", "recurrence: decaying (|a| < 1), one (a plain sum) or mixed [decaying]",
                   [&o](const std::string& v) {
                     if (v == "decaying") o.slopes = Slopes::decaying;
                     else if (v == "one") o.slopes = Slopes::one;
                     else if (v == "mixed") o.slopes = Slopes::mixed;
                     else throw UsageError("--slopes must be decaying, one or mixed, not '" + v + "'");
                   });
  add_run_options(app, o);
  app.add_flag_callback("--csv", [&o] { o.format = OutputFormat::csv; }, "CSV on stdout");
  app.add_flag_callback("--no-baselines", [&o] { o.baselines = false; }, "leave out the library rows");
  app.footer("exit codes: 0 verified, 1 a wrong result, 2 bad usage, 3 no usable CUDA device or a CUDA error");
  if (!parse_command_line(app, std::vector<std::string>(argv + 1, argv + argc))) {
    std::cout << app.help();
    return kExitOk;
  }
  if (o.row % kTile != 0) {
    throw UsageError("--rows must be a multiple of " + std::to_string(kTile) + " (a whole number of tiles), not " +
                     std::to_string(o.row));
  }
  if (o.n >= (std::int64_t{1} << 32)) {
    throw UsageError("--n must be below 2^32 here (tile counts are 32-bit), not " + std::to_string(o.n));
  }
  const DeviceInfo device = query_device();
  require_architecture("ch13_applications", ch11::kNeedsHopper, device);  // exit 3 with one line on an older GPU
  const std::size_t needed = static_cast<std::size_t>(o.n) * 4 * 6;
  if (needed > device.free_bytes) {
    throw UsageError("n = " + std::to_string(o.n) + " needs about " + format_bytes(needed) + " of device memory but " +
                     format_bytes(device.free_bytes) + " is free; choose a smaller --n");
  }
  Session session(o);
  if (o.app == "all" || o.app == "compact") {
    switch (o.dtype) {
      case DType::u32: run_compact<std::uint32_t>(o, session); break;
      case DType::f32: run_compact<float>(o, session); break;
      default: run_compact<std::int32_t>(o, session); break;
    }
  }
  if (o.app == "all" || o.app == "split") run_split(o, session);
  if (o.app == "all" || o.app == "sort") run_sort(o, session);
  if (o.app == "all" || o.app == "recurrence") run_recurrence(o, session);
  session.print(describe(device));
  return session.failed() ? kExitWrongResult : kExitOk;
}

}  // namespace scan::ch13
