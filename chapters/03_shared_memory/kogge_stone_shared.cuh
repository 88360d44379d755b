/// \file
/// \brief Chapter 03: Kogge-Stone in shared memory.
///
/// Each block loads its tile from global memory once, runs the log2(tile)
/// steps of Kogge-Stone in shared memory, and writes the tile once. The
/// common block-sum fix-up (block_sums.cuh) makes the tile scans a full scan.
#pragma once

#include <scan/block_sums.cuh>
#include <scan/device.cuh>
#include <scan/registry.hpp>
#include <scan/trace.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace scan::ch03 {

/// The chapter's variants.
const Chapter& chapter();

// [kogge-stone shared]
/// Scans one tile of blockDim.x elements per block in shared memory
/// (blockDim.x * sizeof(T) bytes of dynamic shared memory).
///
/// Step k reads tile[t - 2^k] and writes tile[t]. Two barriers per step:
/// - after the reads: no thread may overwrite tile[t] while thread
///   t + offset still has to read its old value (write-after-read);
/// - after the writes: no thread may read, in the next step, a slot whose
///   owner has not yet written this step's value (read-after-write).
template <class T, class Op>
__global__ void kogge_stone_shared_tiles(const T* in, T* out, std::int64_t n, Kind kind,
                                         T* tile_totals, Op op, StepLog<T> log) {
  T* tile = dynamic_shared<T>();
  const int t = threadIdx.x;
  const std::int64_t tile_start = static_cast<std::int64_t>(blockIdx.x) * blockDim.x;
  const std::int64_t i = tile_start + t;
  const std::int64_t remaining = n - tile_start;
  const int tile_size = remaining < blockDim.x ? static_cast<int>(remaining) : blockDim.x;

  if (t < tile_size) tile[t] = load_for_scan(in, i, kind, op);
  __syncthreads();

  int step = 0;
  for (int offset = 1; offset < tile_size; offset *= 2, ++step) {
    const bool combines = t < tile_size && t >= offset;
    T left{};
    if (combines) left = tile[t - offset];
    __syncthreads();  // write-after-read: every read of this step is done
    if (combines) tile[t] = op(left, tile[t]);
    __syncthreads();  // read-after-write: every write of this step is visible
    if (t < tile_size) log.record(step, i, tile[t]);
  }

  if (t < tile_size) out[i] = tile[t];
  if (tile_totals != nullptr && t == tile_size - 1) tile_totals[blockIdx.x] = tile[t];
}
// [kogge-stone shared]

/// "offset 1", "offset 2", ... for a tile of `tile` elements.
std::vector<std::string> step_labels(std::int64_t tile);

/// Registry entry: shared-memory Kogge-Stone with the block-sum fix-up.
struct KoggeStoneShared {
  /// Name, summary and limits, for the registry.
  static VariantInfo info() {
    return {.name = "kogge-stone",
            .summary = "Kogge-Stone on a shared-memory tile, two barriers per step, block-sum fix-up",
            .block = 128,
            .takes_block = true,
            .block_min = 2,
            .items_per_thread = 1};
  }
  /// The scratch memory run() takes.
  template <class T, class Op>
  static void reserve(Workspace& workspace, std::int64_t n, int block_threads) {
    reserve_by_tiles<T>(workspace, n, block_threads);
  }
  /// Scans r.in into r.out on r.stream.
  template <class T, class Op>
  static void run(const ScanRequest<T>& r, Op op) {
    const int threads = r.block_threads;
    scan_by_tiles(r, op, threads, [&](const TileLaunch<T>& t) {
      const std::int64_t traced_tile = t.n < threads ? t.n : threads;
      StepRecorder<T> steps(t.top_level ? r.trace : nullptr, ceil_log2(traced_tile));
      kogge_stone_shared_tiles<<<grid_size(t.n, threads), threads, threads * sizeof(T), r.stream>>>(
          t.in, t.out, t.n, t.kind, t.tile_totals, op, steps.log());
      SCAN_CUDA_LAUNCH();
      steps.publish(step_labels(traced_tile));
    });
  }
};

}  // namespace scan::ch03
