/// \file
/// \brief Chapter 04: Kogge-Stone with two shared buffers, one barrier per step.
#pragma once

#include "naive_global.cuh"  // chapter 02: the Kogge-Stone step labels

#include "block_sums.cuh"  // chapter 02: the block-sums glue
#include <scan/device.cuh>
#include <scan/registry.hpp>
#include <scan/trace.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace scan::ch04 {

/// The chapter's variants.
const Chapter& chapter();

// kit: region double-buffer from "T* src = buffers;"
// kit: to "if (tile_totals != nullptr && t == tile_size - 1) tile_totals[blockIdx.x] = src[t];"
// kit: todo Scan this block's tile with Kogge-Stone steps in two shared buffers: buffers holds
// kit: todo 2 * blockDim.x slots, buffers[0 .. blockDim.x) and buffers[blockDim.x .. 2 * blockDim.x).
// kit: todo Load: each thread t < tile_size puts load_for_scan(in, i, kind, op) in slot t of the first
// kit: todo buffer (it shifts the input right by one element for an exclusive scan).
// kit: todo Steps, offset = 1, 2, 4, ... while below tile_size: each step reads one buffer and writes
// kit: todo the other, the next step the other way round. Every thread t < tile_size writes its slot
// kit: todo of the written buffer: the read buffer's slot t - offset combined on the LEFT of its slot t
// kit: todo when t >= offset (op need not commute), else its slot t copied. One barrier per step.
// kit: todo After each step's barrier, threads t < tile_size call log.record(step, i, the value they
// kit: todo wrote) (step 0, 1, ...). Finally, for t < tile_size, out[i] is slot t of the buffer the last
// kit: todo step wrote (the loaded one if there was no step), and the tile's last thread also writes that
// kit: todo value, the tile's total, to tile_totals[blockIdx.x] when tile_totals is not null (the fix-up
// kit: todo needs it).
// kit: stub (void)buffers; (void)in; (void)out; (void)kind; (void)tile_totals; (void)op; (void)log; (void)i;
// [double-buffered kernel]
/// Kogge-Stone on one tile per block with two shared buffers
/// (2 * blockDim.x * sizeof(T) bytes of dynamic shared memory).
///
/// Each step reads one buffer and writes the other, so no thread can
/// overwrite a value another thread has yet to read in the same step: the
/// write-after-read barrier of chapter 03 is gone. One barrier per step is
/// left, and it does two jobs: the writes of step k are visible to the reads
/// of step k + 1 (read-after-write), and every read of step k is finished
/// before step k + 1 writes into the buffer step k read from.
template <class T, class Op>
__global__ void kogge_stone_double_buffered(const T* in, T* out, std::int64_t n, Kind kind,
                                            T* tile_totals, Op op, StepLog<T> log) {
  T* buffers = dynamic_shared<T>();
  const int t = threadIdx.x;
  const auto [tile_start, tile_size] = tile_span(blockIdx.x, blockDim.x, n);  // this block's tile
  const std::int64_t i = tile_start + t;

  T* src = buffers;
  T* dst = buffers + blockDim.x;
  if (t < tile_size) src[t] = load_for_scan(in, i, kind, op);
  __syncthreads();

  int step = 0;
  for (int offset = 1; offset < tile_size; offset *= 2, ++step) {
    if (t < tile_size) dst[t] = t >= offset ? op(src[t - offset], src[t]) : src[t];
    __syncthreads();  // dst is complete before anyone reads it, src is no longer read
    if (t < tile_size) log.record(step, i, dst[t]);
    T* const swap = src;
    src = dst;
    dst = swap;
  }

  if (t < tile_size) out[i] = src[t];
  if (tile_totals != nullptr && t == tile_size - 1) tile_totals[blockIdx.x] = src[t];
}
// [double-buffered kernel]

/// Registry entry (through ScanByTiles): double-buffered Kogge-Stone with the
/// block-sum fix-up.
struct KoggeStoneDoubleBuffered {
  /// Name, summary and limits, for the registry.
  static VariantInfo info() {
    return {.name = "double-buffer",
            .summary = "Kogge-Stone with two shared buffers, one barrier per step, block-sum fix-up",
            .block = 128,
            .takes_block = true,
            .block_min = 2};
  }
  /// One element per thread.
  static constexpr int kItems = 1;
  /// The tile kernel.
  template <class T, class Op>
  static auto kernel() { return kogge_stone_double_buffered<T, Op>; }
  /// Two buffers of one slot per element of the tile.
  static int shared_slots(int tile) { return 2 * tile; }
  /// One row per step, labelled as in chapter 02.
  static std::vector<std::string> trace_labels(std::int64_t tile) { return ch02::kogge_stone_labels(tile); }
};

}  // namespace scan::ch04
