/// \file
/// \brief Chapter 06: the warp as the unit of a scan.
///
/// The 32 lanes of a warp can read each other's registers with
/// `__shfl_up_sync`, without shared memory and without barriers. A warp scan
/// is five such steps; a block scan is a warp scan in every warp, one more
/// warp scan over the warps' totals, and one combine. The device functions
/// here (warp_inclusive_scan, warp_exclusive_scan, block_inclusive_scan,
/// block_exclusive_scan) are reused by chapters 07 to 10.
#pragma once

#include "block_sums.cuh"  // chapter 02: the block-sums glue
#include <scan/device.cuh>
#include <scan/registry.hpp>
#include <scan/trace.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace scan::ch06 {

/// The chapter's variants.
const Chapter& chapter();

// kWarpSize (32 lanes) and kFullMask (every lane takes part in a shuffle)
// are scan_core's (scan/device.cuh): every later chapter uses them too.
/// Shuffle steps of a warp scan: offsets 1, 2, 4, 8, 16.
inline constexpr int kWarpSteps = 5;

/// A step hook that does nothing: what later chapters pass.
struct NoStepHook {
  /// Ignores the step.
  template <class T>
  __device__ void operator()(int, const T&) const {}
};

// kit: region warp-scan body "T warp_inclusive_scan(T x, Op op, Hook hook = {})"
// kit: todo Inclusive scan across the 32 lanes in five steps, offset = 1, 2, 4, 8, 16: read lane
// kit: todo (lane - offset)'s x with __shfl_up_sync(kFullMask, x, offset) and, on lanes >= offset,
// kit: todo combine it on the LEFT of x. Every lane takes part in every shuffle. After each step call
// kit: todo hook(step, x) (step 0 to 4). Return x.
// kit: stub (void)op; (void)hook;
// kit: stub return x;
// [warp inclusive scan]
/// Inclusive scan across the 32 lanes of a warp: lane k returns
/// x_0 op x_1 op ... op x_k, where x_j is lane j's argument.
///
/// Kogge-Stone again, but each step is one `__shfl_up_sync`: lane k reads
/// lane k - offset's value straight from its registers. The shuffle reads
/// every lane's value before any lane changes it, so there is no hazard to
/// guard against and no barrier. Every lane of the warp must call it.
/// `hook(step, x)` sees the value after each step (for `--trace`).
template <class T, class Op, class Hook = NoStepHook>
__device__ __forceinline__ T warp_inclusive_scan(T x, Op op, Hook hook = {}) {
  const int lane = threadIdx.x % kWarpSize;
#pragma unroll
  for (int step = 0, offset = 1; offset < kWarpSize; ++step, offset *= 2) {
    const T left = __shfl_up_sync(kFullMask, x, offset);
    if (lane >= offset) x = op(left, x);
    hook(step, x);
  }
  return x;
}
// [warp inclusive scan]

/// Exclusive scan across a warp: lane k returns identity op x_0 op ... op
/// x_{k-1}; `total` receives the combination of all 32 values.
template <class T, class Op>
__device__ __forceinline__ T warp_exclusive_scan(T x, Op op, T& total) {
  const int lane = threadIdx.x % kWarpSize;
  const T inclusive = warp_inclusive_scan(x, op);
  total = __shfl_sync(kFullMask, inclusive, kWarpSize - 1);
  const T shifted = __shfl_up_sync(kFullMask, inclusive, 1);
  return lane == 0 ? Op::template identity<T>() : shifted;
}

/// Shared memory of a block scan: one slot per warp (at most 32 warps).
template <class T>
struct BlockScanStorage {
  T warp_totals[kWarpSize];  ///< total of each warp, then their inclusive scan
};

// kit: region warp-prefix body "T warp_prefix_in_block("
// kit: todo From each thread's inclusive warp-scan value: (1) the last lane of each warp writes its
// kit: todo warp's total to storage.warp_totals[warp]; (2) after a barrier, warp 0 scans the totals of
// kit: todo the blockDim.x / 32 warps with warp_inclusive_scan (lanes past the last warp take the
// kit: todo identity) and writes the 32 results back; (3) after another barrier, block_total is the
// kit: todo last warp's scanned total, and the function returns the scanned total of the warps before
// kit: todo this thread's warp (the identity for warp 0).
// kit: stub (void)warp_inclusive; (void)op; (void)storage;
// kit: stub block_total = Op::template identity<T>();
// kit: stub return Op::template identity<T>();
// [block scan]
/// Prefix of this thread's warp inside the block, given each thread's
/// inclusive warp-scan value `warp_inclusive`: the combination of the totals
/// of all earlier warps (the identity for warp 0). `block_total` receives
/// the whole block's total. blockDim.x must be a multiple of 32.
///
/// 1. the last lane of each warp writes its warp's total to shared memory;
/// 2. barrier; warp 0 scans the (at most 32) totals with one warp scan;
/// 3. barrier; each thread reads the scanned total of the warps before it.
///
/// Two barriers per block scan, whatever the block size. Before `storage`
/// is used again the caller needs a barrier (every thread must have read
/// its slot first).
template <class T, class Op>
__device__ T warp_prefix_in_block(T warp_inclusive, Op op, BlockScanStorage<T>& storage, T& block_total) {
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  const int warps = blockDim.x / kWarpSize;
  if (lane == kWarpSize - 1) storage.warp_totals[warp] = warp_inclusive;
  __syncthreads();
  if (warp == 0) {
    const T total = lane < warps ? storage.warp_totals[lane] : Op::template identity<T>();
    storage.warp_totals[lane] = warp_inclusive_scan(total, op);
  }
  __syncthreads();
  block_total = storage.warp_totals[warps - 1];
  return warp == 0 ? Op::template identity<T>() : storage.warp_totals[warp - 1];
}

/// The combination of all threads' values, returned to every thread.
/// (A warp scan and the warp-total pass of the block scan, without the
/// final combine.) The caller needs a barrier before reusing `storage`.
template <class T, class Op>
__device__ T block_reduce(T x, Op op, BlockScanStorage<T>& storage) {
  T block_total;
  (void)warp_prefix_in_block(warp_inclusive_scan(x, op), op, storage, block_total);
  return block_total;
}

/// Inclusive scan across the block: thread t returns x_0 op ... op x_t.
template <class T, class Op, class Hook = NoStepHook>
__device__ T block_inclusive_scan(T x, Op op, BlockScanStorage<T>& storage, T& block_total,
                                  Hook hook = {}) {
  const T in_warp = warp_inclusive_scan(x, op, hook);
  const T prefix = warp_prefix_in_block(in_warp, op, storage, block_total);
  const T result = op(prefix, in_warp);
  hook(kWarpSteps, result);
  return result;
}

/// Exclusive scan across the block: thread t returns identity op x_0 op ...
/// op x_{t-1}. Chapters 07 to 10 scan per-thread totals with it.
template <class T, class Op, class Hook = NoStepHook>
__device__ T block_exclusive_scan(T x, Op op, BlockScanStorage<T>& storage, T& block_total,
                                  Hook hook = {}) {
  const int lane = threadIdx.x % kWarpSize;
  const T in_warp = warp_inclusive_scan(x, op, hook);
  const T prefix = warp_prefix_in_block(in_warp, op, storage, block_total);
  const T shifted = __shfl_up_sync(kFullMask, in_warp, 1);
  const T result = lane == 0 ? prefix : op(prefix, shifted);
  hook(kWarpSteps, result);
  return result;
}
// [block scan]

// [tile kernel]
/// One element per thread, one tile of blockDim.x elements per block, of
/// either kind, computed directly (no shifted load). The tile total is the
/// combination of the tile's elements, as the block-sum fix-up expects.
template <class T, class Op>
__global__ void warp_shuffle_tiles(const T* in, T* out, std::int64_t n, Kind kind, T* tile_totals,
                                   Op op, StepLog<T> log) {
  __shared__ BlockScanStorage<T> storage;
  const std::int64_t i = global_thread_index();
  const bool inside = i < n;
  const T x = inside ? in[i] : Op::template identity<T>();  // padding keeps every lane in the scan
  const auto trace = [&](int step, const T& value) {
    if (inside) log.record(step, i, value);
  };
  T tile_total;
  const T y = kind == Kind::inclusive ? block_inclusive_scan(x, op, storage, tile_total, trace)
                                      : block_exclusive_scan(x, op, storage, tile_total, trace);
  if (inside) out[i] = y;
  if (tile_totals != nullptr && threadIdx.x == 0) tile_totals[blockIdx.x] = tile_total;
}
// [tile kernel]

/// Trace labels: the five shuffle steps, then the add-back.
std::vector<std::string> step_labels();

/// Registry entry (through ScanByTiles): block scan from warp shuffles,
/// block-sum fix-up.
struct WarpShuffle {
  /// Name, summary and limits, for the registry.
  static VariantInfo info() {
    return {.name = "warp-shuffle",
            .summary = "warp scans with __shfl_up_sync, one warp scans the warp totals, block-sum fix-up",
            .block = 512, .takes_block = true, .block_min = 32};
  }
  /// One element per thread.
  static constexpr int kItems = 1;
  /// The tile kernel.
  template <class T, class Op>
  static auto kernel() { return warp_shuffle_tiles<T, Op>; }
  /// No dynamic shared memory: the block scan's storage is static.
  static int shared_slots(int) { return 0; }
  /// The same steps for any tile: five shuffles and the add-back.
  static std::vector<std::string> trace_labels(std::int64_t) { return step_labels(); }
};

/// Registry entry: cub::BlockScan on the same tiles, for comparison.
struct CubBlockScan {
  /// Threads per block (CUB's block scan takes it as a template argument).
  static constexpr int kThreads = 512;
  /// Name, summary and limits, for the registry.
  static VariantInfo info() {
    return {.name = "cub-blockscan",
            .summary = "cub::BlockScan on the same one-element-per-thread tiles, block-sum fix-up",
            .block = kThreads, .items_per_thread = 1};
  }
  /// The scratch memory run() takes.
  template <class T, class Op>
  static void reserve(Workspace& workspace, std::int64_t n, int) {
    reserve_by_tiles<T>(workspace, n, kThreads);
  }
  /// Scans r.in into r.out on r.stream.
  template <class T, class Op>
  static void run(const ScanRequest<T>& r, Op op);
};

}  // namespace scan::ch06
