/// \file
/// \brief Small device-side helpers every GPU chapter uses.
#pragma once

#include <scan/device_info.hpp>
#include <scan/error.hpp>
#include <scan/types.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace scan {

/// Lanes in a warp on every NVIDIA GPU so far (chapter 06 is where warps
/// first do the work together).
inline constexpr int kWarpSize = 32;
/// A mask of all 32 lanes: every lane takes part in a shuffle or a ballot.
inline constexpr unsigned kFullMask = 0xFFFFFFFFu;

/// \f$ \lceil a / b \rceil \f$ for positive integers.
template <class I>
SCAN_HD constexpr I ceil_div(I a, I b) {
  return (a + b - 1) / b;
}

/// The smallest s with \f$ 2^s \ge n \f$ (0 for n <= 1).
SCAN_HD constexpr int ceil_log2(std::int64_t n) {
  int s = 0;
  while ((std::int64_t{1} << s) < n) ++s;
  return s;
}

/// Elements in one 16-byte vector.
template <class T>
inline constexpr int kVectorItems = 16 / static_cast<int>(sizeof(T));

/// One 16-byte vector of T, so that one load instruction moves 16 bytes.
template <class T>
struct alignas(16) Vector {
  T values[kVectorItems<T>];  ///< the elements, in memory order
};

/// Element i of the sequence a scan kernel works on.
///
/// An exclusive scan is an inclusive scan of the input shifted right by one,
/// with the identity moved in at the front:
/// \f$ \mathrm{excl}(x)_i = \mathrm{incl}(e, x_0, \ldots, x_{n-2})_i \f$.
/// So a kernel that reads its input through this function computes either
/// kind with the same code. (Chapters 07 and later build the exclusive scan
/// into the tile itself, because the shifted read breaks vector loads.)
template <class T, class Op>
__device__ __forceinline__ T load_for_scan(const T* in, std::int64_t i, Kind kind, Op) {
  if (kind == Kind::inclusive) return in[i];
  return i == 0 ? Op::template identity<T>() : in[i - 1];
}

/// Global index of this thread in a one-dimensional grid, in 64 bits (so n
/// may exceed 2^31).
__device__ __forceinline__ std::int64_t global_thread_index() {
  return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

/// The block's dynamic shared memory as an array of T. (A templated kernel
/// cannot declare `extern __shared__ T tile[]` itself: every instantiation
/// would redeclare one symbol with a different type.)
template <class T>
__device__ __forceinline__ T* dynamic_shared() {
  extern __shared__ __align__(16) unsigned char scan_dynamic_shared[];
  return reinterpret_cast<T*>(scan_dynamic_shared);
}

/// Blocks needed for `count` threads at `threads` per block, checked against
/// the grid limit. Throws UsageError if the grid would be too large.
unsigned grid_size(std::int64_t count, int threads);

/// Tiles of `tile` elements needed for n elements (one block each), checked
/// against the grid limit like grid_size().
inline unsigned tile_count(std::int64_t n, std::int64_t tile) {
  return grid_size(ceil_div(n, tile), 1);
}

/// One tile of a tiled scan: where it starts and how many elements it holds.
struct TileSpan {
  std::int64_t start;  ///< index of the tile's first element
  int valid;           ///< its elements: the tile size, fewer in the last tile
};

/// Tile number `index` of n elements cut into tiles of `tile` elements. A
/// kernel with one tile per block asks for `tile_span(blockIdx.x, tile, n)`.
/// (Templated so that the index arithmetic keeps the caller's integer types,
/// e.g. the unsigned `blockIdx.x * blockDim.x`, and with them its code.)
template <class Index, class Size>
__device__ __forceinline__ TileSpan tile_span(Index index, Size tile, std::int64_t n) {
  const std::int64_t start = static_cast<std::int64_t>(index) * tile;
  return {start, n - start < tile ? static_cast<int>(n - start) : static_cast<int>(tile)};
}

/// Blocks of `kernel`, launched with `threads` threads and
/// `dynamic_shared_bytes` of dynamic shared memory, that the current device
/// holds at once: its SMs times the occupancy calculator's blocks per SM
/// (counted as one when not even one block fits, so the count stays
/// positive; launching such a kernel fails anyway). A grid of this many
/// blocks runs in a single wave.
template <class Kernel>
int resident_blocks(Kernel kernel, int threads, std::size_t dynamic_shared_bytes = 0) {
  int device = 0;
  int sms = 0;
  int per_sm = 0;
  SCAN_CUDA(cudaGetDevice(&device));
  SCAN_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  SCAN_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, dynamic_shared_bytes));
  return sms * (per_sm > 0 ? per_sm : 1);
}

/// The grid of a persistent kernel with `shared_bytes` of dynamic shared
/// memory (chapters 11-13): lets `Kernel` use that much on the current
/// device, and returns resident_blocks() for it.
///
/// Above 48 KiB a kernel must opt in, and the opt-in belongs to the device:
/// a program that scans on two GPUs from one thread (chapter 14) needs it
/// on both. Both the opt-in and the occupancy are done once per device and
/// remembered per device (two GPUs of different kinds each get their own
/// grid), so after the first call on a device no CUDA call but
/// cudaGetDevice() is made here: the timed path stays clean. `Kernel` is a
/// template argument so that each kernel has its own remembered state
/// (kernels of one signature share a pointer type).
template <auto Kernel>
int persistent_blocks(int threads, std::size_t shared_bytes) {
  constexpr int kDevices = 64;                  // devices remembered; any beyond are asked every time
  static std::atomic<int> remembered[kDevices];  // per device: its grid, 0 until asked
  int device = 0;
  SCAN_CUDA(cudaGetDevice(&device));
  const bool kept = device >= 0 && device < kDevices;
  if (kept) {
    const int known = remembered[device].load(std::memory_order_acquire);
    if (known != 0) return known;
  }
  require_shared_memory(shared_bytes);  // a clear message on a GPU with less, not a launch failure
  SCAN_CUDA(cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes)));
  const int resident = resident_blocks(Kernel, threads, shared_bytes);
  if (kept) remembered[device].store(resident, std::memory_order_release);
  return resident;
}

}  // namespace scan
