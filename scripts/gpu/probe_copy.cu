// probe_copy: how close can a kernel's own loads and stores come to
// cudaMemcpy's device-to-device copy on this GPU, and which structure gets
// there? An exploration tool for chapter 11 (not part of the tutorial's
// programs): it times copies of one buffer of N bytes into another, each the
// median of REPS runs after 3 warm-ups, against cudaMemcpy measured in the same
// process (first and last, so drift shows), and prints CSV:
//
//   probe_copy [MiB (default 1024)] [reps (default 20)]
//
// Structures: grid-stride 16-byte copies with 1, 4 or 8 loads in flight per
// thread (with and without streaming cache hints), a one-tile-per-block copy
// as the per-tile scans move data, and persistent bulk-copy (TMA) rings: a
// block loads tiles into shared-memory stages and stores them back with bulk
// copies, tiles taken from an atomic ticket or by block index, with the
// threads touching each stage (as a scan does) or not. Plus a read-only and
// a write-only kernel for the memory's one-way rates.
//
// Build: `cmake --build build/ci --target probe_copy` (bin/probe_copy; not
// part of the default build), or by hand from the repository root:
//   nvcc -O3 -std=c++20 -arch=sm_90 -Ichapters/11_copy_ceiling -o probe_copy scripts/gpu/probe_copy.cu
#include "bulk_copy.cuh"  // chapter 11: the PTX of bulk copies and mbarriers

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#define CHECK(call)                                                                                 \
  do {                                                                                              \
    const cudaError_t status_ = (call);                                                             \
    if (status_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "probe_copy: %s: %s (%s:%d)\n", #call, cudaGetErrorString(status_),      \
                   __FILE__, __LINE__);                                                             \
      std::exit(3);                                                                                 \
    }                                                                                               \
  } while (0)

namespace {

// ---- plain copies ----------------------------------------------------------

/// Grid-stride copy, `InFlight` 16-byte loads per thread before the stores.
template <int InFlight, bool Streaming>
__global__ void grid_stride_copy(const int4* __restrict__ src, int4* __restrict__ dst, std::size_t count) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + (InFlight - 1) * stride < count; i += InFlight * stride) {
    int4 v[InFlight];
#pragma unroll
    for (int k = 0; k < InFlight; ++k) v[k] = Streaming ? __ldcs(src + i + k * stride) : src[i + k * stride];
#pragma unroll
    for (int k = 0; k < InFlight; ++k) {
      if (Streaming) {
        __stcs(dst + i + k * stride, v[k]);
      } else {
        dst[i + k * stride] = v[k];
      }
    }
  }
  for (; i < count; i += stride) dst[i] = src[i];
}

/// One tile per block, `Vectors` 16-byte loads per thread, coalesced across
/// the block: the data movement of chapter 10's per-tile kernel.
template <int Vectors>
__global__ void tile_copy(const int4* __restrict__ src, int4* __restrict__ dst, std::size_t count) {
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * blockDim.x * Vectors + threadIdx.x;
  int4 v[Vectors];
#pragma unroll
  for (int k = 0; k < Vectors; ++k) {
    const std::size_t i = base + static_cast<std::size_t>(k) * blockDim.x;
    if (i < count) v[k] = src[i];
  }
#pragma unroll
  for (int k = 0; k < Vectors; ++k) {
    const std::size_t i = base + static_cast<std::size_t>(k) * blockDim.x;
    if (i < count) dst[i] = v[k];
  }
}

/// Reads everything (16-byte loads, 8 in flight), writes one word per block.
__global__ void read_only(const int4* __restrict__ src, std::size_t count, int* sink) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  int acc = 0;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + 7 * stride < count; i += 8 * stride) {
    int4 v[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) v[k] = src[i + k * stride];
#pragma unroll
    for (int k = 0; k < 8; ++k) acc ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
  }
  for (; i < count; i += stride) acc ^= src[i].x;
  if (acc == 0x7fffffff) sink[blockIdx.x] = acc;  // keeps the loads; practically never stores
}

/// Writes everything (16-byte stores, grid-stride).
__global__ void write_only(int4* __restrict__ dst, std::size_t count) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const int4 v = make_int4(1, 2, 3, 4);
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
    dst[i] = v;
}

// ---- bulk-copy rings ---------------------------------------------------------

// The bulk copies and mbarriers through chapter 11's wrappers (one PTX
// instruction each).
namespace tma = scan::ch11::tma;

/// How a ring's threads handle a stage between its load and its store.
enum class Touch {
  none,      ///< thread 0 alone: load, store (the engine's copy)
  once,      ///< every thread reads its part and writes it back changed (+1), one barrier
  twice,     ///< reads twice, writes once, three barriers (a scan's pattern)
};

/// Persistent ring copy: tiles of TileBytes through `Stages` stages.
template <int TileBytes, int Stages, bool Tickets, Touch How>
__global__ void ring_copy(const char* __restrict__ src, char* __restrict__ dst, unsigned tiles, unsigned* ticket) {
  extern __shared__ __align__(128) unsigned char shared[];
  auto* stage = reinterpret_cast<char(*)[TileBytes]>(shared);
  auto* landed = reinterpret_cast<std::uint64_t*>(shared + Stages * TileBytes);
  auto* tile_of = reinterpret_cast<unsigned*>(landed + Stages);
  __shared__ int block_total;
  unsigned next_static = blockIdx.x;
  auto take = [&]() -> unsigned {
    if (Tickets) return atomicAdd(ticket, 1u);
    const unsigned t = next_static;
    next_static += gridDim.x;
    return t;
  };
  auto refill = [&](int s) {
    const unsigned t = take();
    tile_of[s] = t;
    if (t < tiles) {
      tma::arrive_expecting(&landed[s], TileBytes);
      tma::load(stage[s], src + static_cast<std::size_t>(t) * TileBytes, TileBytes, &landed[s]);
    } else {
      tma::arrive(&landed[s]);
    }
  };
  if (threadIdx.x == 0) {
    for (int s = 0; s < Stages; ++s) tma::init(&landed[s], 1);
    tma::fence_init();
    for (int s = 0; s < Stages - 1; ++s) refill(s);
  }
  __syncthreads();
  for (unsigned i = 0;; ++i) {
    const int s = static_cast<int>(i % Stages);
    tma::wait(&landed[s], (i / Stages) % 2);
    const unsigned t = tile_of[s];
    if (t >= tiles) break;
    if (How != Touch::none) {
      constexpr int kVectors = TileBytes / 16;
      int4* v = reinterpret_cast<int4*>(stage[s]);
      int sum = 0;
      if (How == Touch::twice) {
        for (int k = threadIdx.x; k < kVectors; k += blockDim.x) sum += v[k].x;
        if (threadIdx.x == 0) block_total = 0;
        __syncthreads();
        atomicAdd_block(&block_total, sum);
        __syncthreads();
      }
      // 1 always (no input sums to INT_MIN here), but the compiler must read the total.
      const int add = How == Touch::twice && block_total == INT_MIN ? 2 : 1;
      for (int k = threadIdx.x; k < kVectors; k += blockDim.x) {
        int4 x = v[k];
        x.x += add;
        x.y += add;
        x.z += add;
        x.w += add;
        v[k] = x;
      }
      tma::fence_shared_writes();
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      tma::store(dst + static_cast<std::size_t>(t) * TileBytes, stage[s], TileBytes);
      tma::wait_stores_read<1>();
      refill(static_cast<int>((i + Stages - 1) % Stages));
    }
    if (How == Touch::none) __syncwarp();  // only thread 0 works; nothing to wait for
  }
  if (threadIdx.x == 0) tma::wait_stores_done();
}

// ---- timing -----------------------------------------------------------------

float median_ms(const std::function<void()>& launch, int warmup, int reps) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  for (int w = 0; w < warmup; ++w) launch();
  CHECK(cudaGetLastError());
  std::vector<float> times;
  for (int r = 0; r < reps; ++r) {
    CHECK(cudaEventRecord(start));
    launch();
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  CHECK(cudaGetLastError());
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

struct Probe {
  std::size_t bytes;
  int reps;
  int sms;
  char* src;
  char* dst;
  unsigned* ticket;
  int* sink;
  float memcpy_ms = 0;

  void row(const std::string& name, const std::string& config, float ms, double moved_factor = 2.0) const {
    const double gbps = moved_factor * static_cast<double>(bytes) / (ms * 1e6);
    const double memcpy_gbps = 2.0 * static_cast<double>(bytes) / (memcpy_ms * 1e6);
    std::printf("%s,%s,%zu,%.5f,%.1f,%.4f\n", name.c_str(), config.c_str(), bytes, ms, gbps, gbps / memcpy_gbps);
    std::fflush(stdout);
  }

  bool verify_copy(const std::string& name, int added) const {
    // Checks a few thousand words spread over the buffer (the kernel wrote dst from src).
    const std::size_t words = bytes / 4;
    for (std::size_t k = 0; k < 4096; ++k) {
      const std::size_t w = (k * 2654435761ull) % words;
      int x = 0, y = 0;
      CHECK(cudaMemcpy(&x, reinterpret_cast<int*>(src) + w, 4, cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(&y, reinterpret_cast<int*>(dst) + w, 4, cudaMemcpyDeviceToHost));
      if (y != x + added) {
        std::printf("# %s: WRONG at word %zu: %d, expected %d\n", name.c_str(), w, y, x + added);
        return false;
      }
    }
    return true;
  }

  void measure_memcpy(const char* name, int warmup) {
    memcpy_ms = median_ms([&] { CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice)); }, warmup, reps);
    row(name, "-", memcpy_ms);
  }

  template <int InFlight, bool Streaming>
  void grid_stride(int blocks_per_sm) {
    const std::size_t count = bytes / 16;
    const int blocks = sms * blocks_per_sm;
    const float ms = median_ms(
        [&] {
          grid_stride_copy<InFlight, Streaming><<<blocks, 256>>>(reinterpret_cast<const int4*>(src),
                                                                 reinterpret_cast<int4*>(dst), count);
        },
        3, reps);
    const std::string name = "grid-stride-" + std::to_string(InFlight) + (Streaming ? "-streaming" : "");
    if (verify_copy(name, 0)) row(name, "256 threads x " + std::to_string(blocks_per_sm) + " blocks/SM", ms);
  }

  template <int Vectors>
  void tile(int threads) {
    const std::size_t count = bytes / 16;
    const std::size_t per_block = static_cast<std::size_t>(threads) * Vectors;
    const unsigned blocks = static_cast<unsigned>((count + per_block - 1) / per_block);
    const float ms = median_ms(
        [&] {
          tile_copy<Vectors><<<blocks, threads>>>(reinterpret_cast<const int4*>(src), reinterpret_cast<int4*>(dst),
                                                  count);
        },
        3, reps);
    const std::string name = "tile-" + std::to_string(threads) + "x" + std::to_string(Vectors * 4);
    if (verify_copy(name, 0)) row(name, std::to_string(per_block * 16 / 1024) + " KiB per block", ms);
  }

  template <int TileBytes, int Stages, bool Tickets, Touch How>
  void ring(int threads) {
    const auto kernel = ring_copy<TileBytes, Stages, Tickets, How>;
    const int shared_bytes = Stages * TileBytes + Stages * 12 + 64;
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes));
    int per_sm = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, shared_bytes));
    const unsigned tiles = static_cast<unsigned>(bytes / TileBytes);
    const unsigned blocks = std::min<unsigned>(tiles, static_cast<unsigned>(per_sm * sms));
    const float ms = median_ms(
        [&] {
          if (Tickets) CHECK(cudaMemsetAsync(ticket, 0, sizeof(unsigned)));
          kernel<<<blocks, threads, shared_bytes>>>(src, dst, tiles, ticket);
        },
        3, reps);
    const char* touch = How == Touch::none ? "none" : How == Touch::once ? "once" : "twice";
    const std::string name = std::string("ring-") + std::to_string(TileBytes / 1024) + "K-s" +
                             std::to_string(Stages) + (Tickets ? "-tickets" : "-static") + "-touch-" + touch;
    if (verify_copy(name, How == Touch::none ? 0 : 1)) {
      row(name, std::to_string(threads) + " threads; " + std::to_string(per_sm) + " blocks/SM", ms);
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  const std::size_t mib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1024;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 20;
  cudaDeviceProp props{};
  CHECK(cudaGetDeviceProperties(&props, 0));
  int clock_khz = 0, bus_bits = 0, driver = 0, runtime = 0;
  CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, 0));
  CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0));
  CHECK(cudaDriverGetVersion(&driver));
  CHECK(cudaRuntimeGetVersion(&runtime));
  Probe p{mib << 20, reps, props.multiProcessorCount, nullptr, nullptr, nullptr, nullptr};
  std::printf("# device: %s, %d SMs, L2 %d MiB, peak %.0f GB/s; CUDA runtime %d, driver API %d\n", props.name,
              p.sms, props.l2CacheSize >> 20, 2.0 * clock_khz * 1e3 * bus_bits / 8 / 1e9, runtime, driver);
  std::printf("# each row: the median of %d timed runs after 3 warm-ups; bytes moved = 2 x buffer (read + write);\n"
              "# copy_fraction against cudaMemcpy's median of the first row\n",
              reps);
  CHECK(cudaMalloc(&p.src, p.bytes));
  CHECK(cudaMalloc(&p.dst, p.bytes));
  CHECK(cudaMalloc(&p.ticket, sizeof(unsigned)));
  CHECK(cudaMalloc(&p.sink, 1 << 20));
  {  // a non-constant source, so that a wrong copy shows
    std::vector<int> host(p.bytes / 4);
    for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<int>(i * 2654435761u);
    CHECK(cudaMemcpy(p.src, host.data(), p.bytes, cudaMemcpyHostToDevice));
  }
  std::printf("structure,config,buffer_bytes,median_ms,gbps,copy_fraction\n");
  p.measure_memcpy("cudaMemcpy", 5);

  p.grid_stride<1, false>(8);
  p.grid_stride<4, false>(8);
  p.grid_stride<8, false>(8);
  p.grid_stride<4, true>(8);
  p.grid_stride<8, true>(4);
  p.grid_stride<4, false>(4);
  p.tile<8>(128);
  p.tile<8>(256);
  p.tile<4>(256);
  p.tile<16>(128);

  p.ring<16384, 4, true, Touch::none>(128);
  p.ring<16384, 4, false, Touch::none>(128);
  p.ring<16384, 4, true, Touch::once>(128);
  p.ring<16384, 4, false, Touch::once>(128);
  p.ring<16384, 4, true, Touch::twice>(128);
  p.ring<16384, 4, false, Touch::twice>(128);
  p.ring<16384, 3, true, Touch::twice>(128);
  p.ring<8192, 4, true, Touch::twice>(128);
  p.ring<8192, 6, true, Touch::twice>(128);
  p.ring<16384, 6, true, Touch::twice>(128);
  p.ring<16384, 4, true, Touch::twice>(256);
  p.ring<32768, 3, true, Touch::twice>(256);
  p.ring<32768, 6, true, Touch::twice>(256);
  p.ring<32768, 3, true, Touch::none>(128);
  p.ring<65536, 3, true, Touch::none>(128);

  {
    const std::size_t count = p.bytes / 16;
    const float ms = median_ms([&] { read_only<<<p.sms * 8, 256>>>(reinterpret_cast<const int4*>(p.src), count, p.sink); },
                               3, reps);
    p.row("read-only", "8 loads in flight; 256 x 8 blocks/SM (bytes read alone)", ms, 1.0);
    const float wms = median_ms([&] { write_only<<<p.sms * 8, 256>>>(reinterpret_cast<int4*>(p.dst), count); }, 3, reps);
    p.row("write-only", "256 x 8 blocks/SM (bytes written alone)", wms, 1.0);
    const float mms = median_ms([&] { CHECK(cudaMemsetAsync(p.dst, 1, p.bytes)); }, 3, reps);
    p.row("cudaMemset", "(bytes written alone)", mms, 1.0);
  }
  const float first = p.memcpy_ms;
  p.measure_memcpy("cudaMemcpy-again", 1);
  std::printf("# cudaMemcpy first %.5f ms, last %.5f ms\n", first, p.memcpy_ms);
  return 0;
}
