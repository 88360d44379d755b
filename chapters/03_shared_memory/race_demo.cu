// ch03_race_demo: the shared-memory Kogge-Stone with one of its two barriers
// removed, for compute-sanitizer to catch.
//
//   ch03_race_demo --missing war   # drop the barrier between reads and writes
//   ch03_race_demo --missing raw   # drop the barrier after the writes
//   compute-sanitizer --tool racecheck ch03_race_demo --missing war
//
// The program scans a few tiles of 1024 int32 values and reports how many
// results were wrong on this run. Often none are: the race is real whether or
// not it shows. racecheck reports the hazard every time.
#include <scan/device.cuh>
#include <scan/device_buffer.hpp>
#include <scan/error.hpp>
#include <scan/generate.hpp>
#include <scan/oracle.hpp>

#include <cstdio>
#include <cstring>
#include <vector>

namespace {

enum class Missing { none, war, raw };

/// Kogge-Stone on one tile per block, with a barrier left out on purpose.
__global__ void racy_kogge_stone(const int* in, int* out, Missing missing) {
  extern __shared__ int tile[];
  const int t = threadIdx.x;
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + t;
  tile[t] = in[i];
  __syncthreads();
  for (int offset = 1; offset < blockDim.x; offset *= 2) {
    const int left = t >= offset ? tile[t - offset] : 0;
    if (missing != Missing::war) __syncthreads();
    if (t >= offset) tile[t] += left;
    if (missing != Missing::raw) __syncthreads();
  }
  out[i] = tile[t];
}

}  // namespace

int main(int argc, char** argv) {
  Missing missing = Missing::war;
  for (int a = 1; a < argc; ++a) {
    if (std::strcmp(argv[a], "--missing") == 0 && a + 1 < argc) {
      const char* which = argv[++a];
      if (std::strcmp(which, "war") == 0) missing = Missing::war;
      else if (std::strcmp(which, "raw") == 0) missing = Missing::raw;
      else if (std::strcmp(which, "none") == 0) missing = Missing::none;
      else {
        std::fprintf(stderr, "ch03_race_demo: --missing takes war, raw or none, not '%s'\n", which);
        return scan::kExitUsage;
      }
    } else {
      std::fprintf(stderr, "usage: ch03_race_demo [--missing war|raw|none]\n");
      return scan::kExitUsage;
    }
  }
  try {
    constexpr int kThreads = 1024, kTiles = 64, kN = kThreads * kTiles;
    const std::vector<int> host_in = scan::generate_input<int>(kN, 3);
    scan::DeviceBuffer<int> in(host_in), out(kN);
    racy_kogge_stone<<<kTiles, kThreads, kThreads * sizeof(int)>>>(in.data(), out.data(), missing);
    SCAN_CUDA_LAUNCH();
    const std::vector<int> got = out.to_host();
    std::vector<int> expected(kN);
    for (int b = 0; b < kTiles; ++b) {
      scan::reference_scan(host_in.data() + b * kThreads, expected.data() + b * kThreads, kThreads,
                           scan::Kind::inclusive, scan::Add{});
    }
    int wrong = 0;
    for (int i = 0; i < kN; ++i) wrong += got[i] != expected[i];
    const char* names[] = {"none", "war", "raw"};
    std::printf("missing barrier: %s; %d of %d results wrong on this run%s\n",
                names[static_cast<int>(missing)], wrong, kN,
                missing == Missing::none ? "" : " (run under compute-sanitizer --tool racecheck to see the hazard)");
    return scan::kExitOk;
  } catch (const scan::CudaError& e) {
    std::fprintf(stderr, "ch03_race_demo: CUDA error: %s\n", e.what());
    return scan::kExitCuda;
  }
}
