/// \file
/// \brief Chapter 03: Kogge-Stone in shared memory.
///
/// Each block loads its tile from global memory once, runs the log2(tile)
/// steps of Kogge-Stone in shared memory, and writes the tile once. The
/// block-sum fix-up of chapter 02 (block_sums.cuh) makes the tile scans a full scan.
#pragma once

#include "naive_global.cuh"  // chapter 02: the Kogge-Stone step labels

#include "block_sums.cuh"  // chapter 02: the block-sums glue
#include <scan/device.cuh>
#include <scan/registry.hpp>
#include <scan/trace.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace scan::ch03 {

/// The chapter's variants.
const Chapter& chapter();

// kit: region tile-scan from "if (t < tile_size) tile[t] = load_for_scan(in, i, kind, op);"
// kit: to "if (tile_totals != nullptr && t == tile_size - 1) tile_totals[blockIdx.x] = tile[t];"
// kit: todo Scan this block's tile in shared memory with Kogge-Stone steps.
// kit: todo Load: each thread t < tile_size puts load_for_scan(in, i, kind, op) in tile[t]
// kit: todo (it shifts the input right by one element for an exclusive scan).
// kit: todo Steps, offset = 1, 2, 4, ... while below tile_size: thread t >= offset (t < tile_size)
// kit: todo combines tile[t - offset] on the LEFT of tile[t]. Every read of a step must come
// kit: todo before any write of that step, and every write before the next step's reads.
// kit: todo After each step, threads t < tile_size call log.record(step, i, tile[t]) (step 0, 1, ...).
// kit: todo Finally out[i] = tile[t] for t < tile_size, and the tile's last thread writes the tile's
// kit: todo total to tile_totals[blockIdx.x] when tile_totals is not null (the fix-up needs it).
// kit: stub (void)in; (void)out; (void)kind; (void)tile_totals; (void)op; (void)log; (void)tile; (void)i;
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
  const auto [tile_start, tile_size] = tile_span(blockIdx.x, blockDim.x, n);  // this block's tile
  const std::int64_t i = tile_start + t;

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

/// Registry entry (through ScanByTiles): shared-memory Kogge-Stone with the
/// block-sum fix-up.
struct KoggeStoneShared {
  /// Name, summary and limits, for the registry.
  static VariantInfo info() {
    return {.name = "kogge-stone",
            .summary = "Kogge-Stone on a shared-memory tile, two barriers per step, block-sum fix-up",
            .block = 128,
            .takes_block = true,
            .block_min = 2};
  }
  /// One element per thread.
  static constexpr int kItems = 1;
  /// The tile kernel.
  template <class T, class Op>
  static auto kernel() { return kogge_stone_shared_tiles<T, Op>; }
  /// One shared slot per element of the tile.
  static int shared_slots(int tile) { return tile; }
  /// One row per step, labelled as in chapter 02.
  static std::vector<std::string> trace_labels(std::int64_t tile) { return ch02::kogge_stone_labels(tile); }
};

}  // namespace scan::ch03
