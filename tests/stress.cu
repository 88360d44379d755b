// scan_stress: runs one variant many times on one input and checks every run
// on the device, for the single-pass chapters whose correctness depends on
// timing (chained and look-back scans).
//
//   scan_stress --chapter 11 --variant tuned --n 16777219 --runs 1000 [--streams 2]
//   scan_stress --chapter 11 --variant deterministic --type float --identical
//   scan_stress --chapter 12 --variant direct --segments 256 --runs 1000
//
// Each run writes a freshly poisoned output; a kernel compares it with the
// reference and counts mismatches. int32 (the default): the reference is
// the oracle's, computed once on the host, and every element must match.
// float and double: the input is real-valued (sums round), the first run is checked
// on the host against the oracle within what the summation can lose
// (verify.hpp), and every later run is compared bit for bit with the first;
// the program reports how many runs differed and by how much, and with
// --identical a run that differs is a wrong run. With --streams 2 two scans
// with separate workspaces run concurrently on two streams, so per-launch
// state that leaked between calls would show. A segmented variant (chapter
// 12) scans random segments of mean length --segments (1024 unless given),
// the same head flags on every run.
// Exit codes as everywhere: 0 all runs right, 1 a wrong run, 2 usage, 3 CUDA.
#include <scan/device.cuh>
#include <scan/device_buffer.hpp>
#include <scan/device_info.hpp>
#include <scan/error.hpp>
#include <scan/generate.hpp>
#include <scan/oracle.hpp>
#include <scan/registry.hpp>
#include <scan/runner.hpp>
#include <scan/cli.hpp>
#include <scan/segments.hpp>
#include <scan/verify.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using scan::DeviceBuffer;

/// Counts the elements whose bits differ between `got` and `expected`, and
/// finds the first.
template <class T>
__global__ void count_mismatches(const T* got, const T* expected, std::int64_t n, unsigned long long* wrong,
                                 unsigned long long* first_bad) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "compared as 32- or 64-bit words");
  using Word = std::conditional_t<sizeof(T) == 8, unsigned long long, unsigned>;  // bits, not values: NaN == NaN
  const std::int64_t i = scan::global_thread_index();
  if (i < n && reinterpret_cast<const Word*>(got)[i] != reinterpret_cast<const Word*>(expected)[i]) {
    atomicAdd(wrong, 1ull);
    atomicMin(first_bad, static_cast<unsigned long long>(i));
  }
}

struct Options {
  std::string chapter = "11", variant = "tuned";
  std::int64_t n = (std::int64_t{1} << 24) + 3;
  int runs = 1000, streams = 1;
  std::int64_t segments = 0;  ///< segmented variants: mean segment length (0: not given)
  scan::Kind kind = scan::Kind::inclusive;
  scan::DType dtype = scan::DType::i32;  ///< int32, or float or double sums of real-valued inputs
  bool identical = false;                ///< float or double: a run that differs from the first is wrong
  /// Float or double: real-valued inputs, every run compared with the first.
  bool real() const { return dtype != scan::DType::i32; }
};

/// The command line, or nothing after `--help` was printed.
std::optional<Options> parse(int argc, char** argv) {
  Options o;
  CLI::App app("Runs one single-pass variant many times and checks every run on the device.", "scan_stress");
  scan::configure_app(app);
  scan::add_value_option(app, "--chapter", "NN", "chapter number [11]", [&o](const std::string& v) { o.chapter = v; });
  scan::add_value_option(app, "--variant", "V", "variant name [tuned]", [&o](const std::string& v) { o.variant = v; });
  scan::add_count_option(app, "--n", o.n, "elements, with K/M/G suffixes [16777219]");
  scan::add_int_option(app, "--runs", o.runs, 1, 100000000, "runs per stream [1000]");
  scan::add_int_option(app, "--streams", o.streams, 1, 8, "concurrent streams, each with its own workspace [1]");
  scan::add_kind_option(app, o.kind);
  std::string type = "int32";
  app.add_option("--type", type,
                 "int32 (checked against the oracle), float or double (real-valued, runs compared) [int32]")
      ->check(CLI::IsMember({"int32", "float", "double"}));
  scan::add_count_option(app, "--segments", o.segments,
                         "segmented variants: mean segment length [" + std::to_string(scan::kDefaultSegmentLength) +
                             "]");
  app.add_flag("--identical", o.identical, "float, double: every run must equal the first bit for bit");
  if (!scan::parse_command_line(app, std::vector<std::string>(argv + 1, argv + argc))) {
    std::printf("%s", app.help().c_str());
    return std::nullopt;
  }
  if (o.n < 1) throw scan::UsageError("--n must be at least 1");
  if (app.count("--segments") > 0 && o.segments < 1) throw scan::UsageError("--segments must be at least 1");
  o.dtype = *scan::parse_dtype(type);  // one of the three names checked above
  if (o.identical && !o.real()) throw scan::UsageError("--identical needs --type float or double");
  return o;
}

template <class T>
int stress(const Options& o, const scan::Variant& variant) {
  constexpr scan::DType kType = scan::dtype_of<T>();
  const auto input = scan::generate_input<T>(o.n, 2024, o.real() ? scan::Distribution::real_valued
                                                               : scan::Distribution::typical);
  DeviceBuffer<T> d_in(input);
  DeviceBuffer<T> d_expected(static_cast<std::size_t>(o.n));
  DeviceBuffer<unsigned long long> counters(2);
  // Segmented variants: random segments, the same on every run.
  const std::vector<std::uint8_t> heads =
      variant.info.segmented ? scan::generate_heads(
                                   o.n, static_cast<double>(o.segments > 0 ? o.segments : scan::kDefaultSegmentLength),
                                   scan::Lengths::random, 2024)
                             : std::vector<std::uint8_t>{};
  const DeviceBuffer<std::uint8_t> d_heads(heads);
  const DeviceBuffer<std::int32_t> d_keys(scan::keys_from_heads(heads));  // what by-key variants read
  const scan::Restarts restarts = heads.empty() ? scan::Restarts{} : scan::Restarts(heads.data());
  if (!o.real()) {
    std::vector<T> expected(input.size());
    scan::reference_scan(input.data(), expected.data(), o.n, o.kind, scan::Add{}, restarts);
    d_expected = DeviceBuffer<T>(expected);
  }

  struct Lane {
    cudaStream_t stream{};
    DeviceBuffer<T> out;
    DeviceBuffer<std::byte> workspace;
  };
  std::vector<Lane> lanes(static_cast<std::size_t>(o.streams));
  const std::size_t ws_bytes = variant.workspace_bytes(kType, scan::OpId::add, o.n, 0);
  for (auto& lane : lanes) {
    SCAN_CUDA(cudaStreamCreateWithFlags(&lane.stream, cudaStreamNonBlocking));
    lane.out = DeviceBuffer<T>(static_cast<std::size_t>(o.n));
    lane.workspace = DeviceBuffer<std::byte>(ws_bytes);
  }

  const auto begin = std::chrono::steady_clock::now();
  long long failed_runs = 0, differing_runs = 0;
  unsigned long long most_differing = 0;
  bool have_first = !o.real();  // float, double: the first run becomes the expected output
  bool first_verified = true;
  for (int run = 0; run < o.runs; ++run) {
    for (auto& lane : lanes) {
      SCAN_CUDA(cudaMemsetAsync(lane.out.data(), scan::poison_byte<T>(), lane.out.bytes(), lane.stream));
      scan::ErasedRequest r;
      r.in = d_in.data();
      r.out = lane.out.data();
      r.n = o.n;
      r.heads = heads.empty() ? nullptr : d_heads.data();
      r.keys = heads.empty() ? nullptr : d_keys.data();
      r.kind = o.kind;
      r.workspace = scan::Workspace(lane.workspace.data(), ws_bytes);
      r.stream = lane.stream;
      variant.run(kType, scan::OpId::add, r);
    }
    for (std::size_t s = 0; s < lanes.size(); ++s) {
      SCAN_CUDA(cudaStreamSynchronize(lanes[s].stream));
      if (!have_first) {
        // The first real-valued run: checked on the host, then the reference for the others.
        const std::vector<T> first = lanes[s].out.to_host();
        const scan::VerifyReport report = scan::verify_scan(input, first, o.kind, scan::Add{}, restarts);
        if (!report.ok) {
          std::printf("run %d: %s\n", run, report.describe().c_str());
          ++failed_runs;
          first_verified = false;
        }
        SCAN_CUDA(cudaMemcpy(d_expected.data(), lanes[s].out.data(), lanes[s].out.bytes(), cudaMemcpyDeviceToDevice));
        have_first = true;
        continue;
      }
      const unsigned long long reset[2] = {0, ~0ull};
      SCAN_CUDA(cudaMemcpy(counters.data(), reset, sizeof reset, cudaMemcpyHostToDevice));
      count_mismatches<<<scan::grid_size(o.n, 256), 256>>>(lanes[s].out.data(), d_expected.data(), o.n,
                                                          counters.data(), counters.data() + 1);
      SCAN_CUDA_LAUNCH();
      unsigned long long result[2];
      SCAN_CUDA(cudaMemcpy(result, counters.data(), sizeof result, cudaMemcpyDeviceToHost));
      if (result[0] == 0) continue;
      if (o.real()) {
        ++differing_runs;
        most_differing = std::max(most_differing, result[0]);
        if (!o.identical) continue;
      }
      if (failed_runs++ < 5) {
        T got{}, want{};
        SCAN_CUDA(cudaMemcpy(&got, lanes[s].out.data() + result[1], sizeof got, cudaMemcpyDeviceToHost));
        SCAN_CUDA(cudaMemcpy(&want, d_expected.data() + result[1], sizeof want, cudaMemcpyDeviceToHost));
        std::printf("run %d, stream %zu: %llu of %lld differ from the %s; first at %llu: expected %s, got %s\n", run,
                    s, result[0], static_cast<long long>(o.n), o.real() ? "first run" : "reference", result[1],
                    scan::format_value(want).c_str(), scan::format_value(got).c_str());
      }
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  for (auto& lane : lanes) (void)cudaStreamDestroy(lane.stream);
  const long long compared = static_cast<long long>(o.runs) * o.streams - (o.real() ? 1 : 0);
  std::printf("scan_stress: chapter %s variant %s, n = %lld, %s %s, %d runs x %d streams (%u tiles per run): ",
              o.chapter.c_str(), o.variant.c_str(), static_cast<long long>(o.n),
              (std::string(scan::dtype_name(o.dtype)) + (o.real() ? " (real-valued)" : "")).c_str(),
              std::string(scan::kind_name(o.kind)).c_str(), o.runs, o.streams,
              variant.info.items_per_thread > 0
                  ? scan::tile_count(o.n, static_cast<std::int64_t>(variant.info.block) * variant.info.items_per_thread)
                  : 0u);
  if (!heads.empty()) {
    std::printf("%lld segments; ", static_cast<long long>(std::count(heads.begin(), heads.end(), std::uint8_t{1})));
  }
  if (o.real()) {
    std::printf("first run %s; %lld of %lld later runs differ bit for bit from it (at most %llu elements); ",
                first_verified ? "verified" : "WRONG", differing_runs, compared,
                most_differing);
  }
  std::printf("%lld wrong runs, %.1f s\n", failed_runs, seconds);
  return failed_runs == 0 ? scan::kExitOk : scan::kExitWrongResult;
}

int stress(const Options& o) {
  const scan::Variant* variant = nullptr;
  const scan::Chapter* chapter = nullptr;
  for (const scan::Chapter* c : scan::all_chapters()) {
    if (c->number == o.chapter) {
      chapter = c;
      variant = c->find(o.variant);
    }
  }
  if (variant == nullptr || variant->where != scan::Where::device) {
    throw scan::UsageError("no GPU variant '" + o.variant + "' in chapter " + o.chapter);
  }
  const scan::DType type = o.dtype;
  if (o.segments > 0 && !variant->info.segmented) {
    throw scan::UsageError("--segments is for segmented variants (chapter 12); '" + o.variant + "' scans whole arrays");
  }
  if (!variant->supports(type, scan::OpId::add)) {
    throw scan::UsageError("variant '" + o.variant + "' is not built for " + std::string(scan::dtype_name(type)) +
                           " sums");
  }
  scan::require_architecture("scan_stress --chapter " + o.chapter, chapter->needs, scan::query_device());
  switch (o.dtype) {
    case scan::DType::f64: return stress<double>(o, *variant);
    case scan::DType::f32: return stress<float>(o, *variant);
    default: return stress<std::int32_t>(o, *variant);
  }
}

}  // namespace

int main(int argc, char** argv) {
  return scan::guarded_main("scan_stress", [&] {
    const std::optional<Options> o = parse(argc, argv);
    return o ? stress(*o) : scan::kExitOk;
  });
}
