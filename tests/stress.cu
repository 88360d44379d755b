// scan_stress: runs one variant many times on one input and checks every run
// on the device, for the single-pass chapters whose correctness depends on
// timing (chained and look-back scans).
//
//   scan_stress --chapter 10 --variant tuned --n 16777219 --runs 1000 [--streams 2]
//
// Each run writes a freshly poisoned output; a kernel compares it with the
// reference (computed once on the host) and counts mismatches. With
// --streams 2 two scans with separate workspaces run concurrently on two
// streams, so per-launch state that leaked between calls would show.
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
#include <scan/verify.hpp>

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace {

using scan::DeviceBuffer;

__global__ void count_mismatches(const std::int32_t* got, const std::int32_t* expected, std::int64_t n,
                                 unsigned long long* wrong, unsigned long long* first_bad) {
  const std::int64_t i = scan::global_thread_index();
  if (i < n && got[i] != expected[i]) {
    atomicAdd(wrong, 1ull);
    atomicMin(first_bad, static_cast<unsigned long long>(i));
  }
}

struct Options {
  std::string chapter = "10", variant = "tuned";
  std::int64_t n = (std::int64_t{1} << 24) + 3;
  int runs = 1000, streams = 1;
  scan::Kind kind = scan::Kind::inclusive;
};

/// The command line, or nothing after `--help` was printed.
std::optional<Options> parse(int argc, char** argv) {
  Options o;
  CLI::App app("Runs one single-pass variant many times and checks every run on the device.", "scan_stress");
  scan::configure_app(app);
  scan::add_value_option(app, "--chapter", "NN", "chapter number [10]", [&o](const std::string& v) { o.chapter = v; });
  scan::add_value_option(app, "--variant", "V", "variant name [tuned]", [&o](const std::string& v) { o.variant = v; });
  scan::add_count_option(app, "--n", o.n, "elements, with K/M/G suffixes [16777219]");
  scan::add_int_option(app, "--runs", o.runs, 1, 100000000, "runs per stream [1000]");
  scan::add_int_option(app, "--streams", o.streams, 1, 8, "concurrent streams, each with its own workspace [1]");
  scan::add_kind_option(app, o.kind);
  if (!scan::parse_command_line(app, std::vector<std::string>(argv + 1, argv + argc))) {
    std::printf("%s", app.help().c_str());
    return std::nullopt;
  }
  if (o.n < 1) throw scan::UsageError("--n must be at least 1");
  return o;
}

int stress(const Options& o) {
  const scan::Variant* variant = nullptr;
  for (const scan::Chapter* c : scan::all_chapters()) {
    if (c->number == o.chapter) variant = c->find(o.variant);
  }
  if (variant == nullptr || variant->where != scan::Where::device) {
    throw scan::UsageError("no GPU variant '" + o.variant + "' in chapter " + o.chapter);
  }
  scan::require_device();

  const auto input = scan::generate_input<std::int32_t>(o.n, 2024);
  std::vector<std::int32_t> expected(input.size());
  scan::reference_scan(input.data(), expected.data(), o.n, o.kind, scan::Add{});
  DeviceBuffer<std::int32_t> d_in(input), d_expected(expected);
  DeviceBuffer<unsigned long long> counters(2);

  struct Lane {
    cudaStream_t stream{};
    DeviceBuffer<std::int32_t> out;
    DeviceBuffer<std::byte> workspace;
  };
  std::vector<Lane> lanes(static_cast<std::size_t>(o.streams));
  const std::size_t ws_bytes = variant->workspace_bytes(scan::DType::i32, scan::OpId::add, o.n, variant->info.block);
  for (auto& lane : lanes) {
    SCAN_CUDA(cudaStreamCreateWithFlags(&lane.stream, cudaStreamNonBlocking));
    lane.out = DeviceBuffer<std::int32_t>(static_cast<std::size_t>(o.n));
    lane.workspace = DeviceBuffer<std::byte>(ws_bytes);
  }

  const auto begin = std::chrono::steady_clock::now();
  long long failed_runs = 0;
  for (int run = 0; run < o.runs; ++run) {
    for (auto& lane : lanes) {
      SCAN_CUDA(cudaMemsetAsync(lane.out.data(), scan::poison_byte<std::int32_t>(), lane.out.bytes(), lane.stream));
      scan::ErasedRequest r;
      r.in = d_in.data();
      r.out = lane.out.data();
      r.n = o.n;
      r.kind = o.kind;
      r.workspace = scan::Workspace(lane.workspace.data(), ws_bytes);
      r.stream = lane.stream;
      r.block_threads = variant->info.block;
      variant->run(scan::DType::i32, scan::OpId::add, r);
    }
    for (std::size_t s = 0; s < lanes.size(); ++s) {
      SCAN_CUDA(cudaStreamSynchronize(lanes[s].stream));
      const unsigned long long reset[2] = {0, ~0ull};
      SCAN_CUDA(cudaMemcpy(counters.data(), reset, sizeof reset, cudaMemcpyHostToDevice));
      count_mismatches<<<scan::grid_size(o.n, 256), 256>>>(lanes[s].out.data(), d_expected.data(), o.n,
                                                          counters.data(), counters.data() + 1);
      SCAN_CUDA_LAUNCH();
      unsigned long long result[2];
      SCAN_CUDA(cudaMemcpy(result, counters.data(), sizeof result, cudaMemcpyDeviceToHost));
      if (result[0] != 0) {
        if (failed_runs++ < 5) {
          std::int32_t got = 0;
          SCAN_CUDA(cudaMemcpy(&got, lanes[s].out.data() + result[1], sizeof got, cudaMemcpyDeviceToHost));
          std::printf("run %d, stream %zu: %llu of %lld wrong; first at %llu: expected %d, got %d\n", run, s,
                      result[0], static_cast<long long>(o.n), result[1], expected[result[1]], got);
        }
      }
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  for (auto& lane : lanes) (void)cudaStreamDestroy(lane.stream);
  std::printf("scan_stress: chapter %s variant %s, n = %lld, %s, %d runs x %d streams (%u tiles per run): "
              "%lld wrong runs, %.1f s\n",
              o.chapter.c_str(), o.variant.c_str(), static_cast<long long>(o.n),
              std::string(scan::kind_name(o.kind)).c_str(), o.runs, o.streams,
              variant->info.items_per_thread > 0
                  ? scan::tile_count(o.n, static_cast<std::int64_t>(variant->info.block) * variant->info.items_per_thread)
                  : 0u,
              failed_runs, seconds);
  return failed_runs == 0 ? scan::kExitOk : scan::kExitWrongResult;
}

}  // namespace

int main(int argc, char** argv) {
  return scan::guarded_main("scan_stress", [&] {
    const std::optional<Options> o = parse(argc, argv);
    return o ? stress(*o) : scan::kExitOk;
  });
}
