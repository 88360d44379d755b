/// \file
/// \brief Chapter 05: Brent-Kung, the work-efficient tree scan, in five variants.
///
/// An up-sweep (a reduction tree) followed by a down-sweep that spreads the
/// partial sums back, about 2n operations per tile instead of Kogge-Stone's
/// n log2 n. The variants differ in how threads map onto the tree
/// (divergent or contiguous), in elements per thread, in the kind of
/// down-sweep (Brent-Kung's inclusive one or Blelloch's exclusive one), and
/// in shared-memory layout (padding against bank conflicts).
#pragma once

#include "block_sums.cuh"  // chapter 02: the block-sums glue
#include <scan/device.cuh>
#include <scan/registry.hpp>
#include <scan/trace.hpp>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace scan::ch05 {

/// The chapter's variants.
const Chapter& chapter();

/// Shared-memory layout: element j of the tile lives at a[j].
struct PlainLayout {
  /// Shared-memory slots for `elements` elements.
  static constexpr int slots(int elements) { return elements; }
  /// The slot of element j.
  __device__ __forceinline__ int operator()(int j) const { return j; }
};

// [padded layout]
/// Shared-memory layout with one empty slot after every 32 elements.
///
/// Shared memory has 32 banks of 4 bytes; addresses 128 bytes apart share a
/// bank. In a tree step with stride s the active threads touch elements 2s
/// apart, so (for 4-byte elements) a warp's accesses fall in only
/// max(1, 32 / 2s) banks. With the default tile of `two-per-thread` and
/// `padded`, 256 elements (128 threads, two elements each), the worst steps
/// are 8-way conflicts (strides 4, 8 and 16 of the up-sweep, 8 and 4 of the
/// down-sweep): eight words of one bank, served one after another. A tile
/// of T elements reaches min(T/32, 32)-way, so a 32-way conflict needs a
/// tile of at least 1024 (`--block 512` or more). Shifting element j by
/// j / 32 slots spreads the accesses over the banks: for the default tile
/// the up-sweep becomes conflict-free and only the down-sweep's last two
/// steps (strides 2 and 1) keep a 2-way conflict.
struct PaddedLayout {
  /// Shared-memory slots for `elements` elements.
  static constexpr int slots(int elements) { return elements + elements / 32; }
  /// The slot of element j.
  __device__ __forceinline__ int operator()(int j) const { return j + (j >> 5); }
};
// [padded layout]

/// The smallest power of two >= x (x >= 1).
__device__ __forceinline__ int next_pow2(int x) {
  int p = 1;
  while (p < x) p *= 2;
  return p;
}

/// Loads a tile of `tile_size` elements into shared memory, padded with the
/// identity up to `span` (a power of two), each thread taking every
/// blockDim.x-th element so that global reads are coalesced.
template <class T, class Op, class Layout>
__device__ void load_tile(const T* in, T* a, std::int64_t tile_start, int tile_size, int span,
                          Kind kind, Op op, Layout at) {
  for (int j = threadIdx.x; j < span; j += blockDim.x) {
    a[at(j)] = j < tile_size ? load_for_scan(in, tile_start + j, kind, op) : Op::template identity<T>();
  }
}

/// Writes the first `tile_size` elements of the tile back, coalesced.
template <class T, class Layout>
__device__ void store_tile(T* out, const T* a, std::int64_t tile_start, int tile_size, Layout at) {
  for (int j = threadIdx.x; j < tile_size; j += blockDim.x) out[tile_start + j] = a[at(j)];
}

/// Records the whole tile as one row of the trace. A thread records slots
/// that other threads write in the next step, so when tracing, a barrier
/// keeps the next step's writes after these reads. (`log` is the same for the
/// whole block, so the barrier is reached by all threads or by none.)
template <class T, class Layout>
__device__ void record_tile(const StepLog<T>& log, int step, const T* a, std::int64_t tile_start,
                            int tile_size, Layout at) {
  if (log.rows == nullptr) return;
  for (int j = threadIdx.x; j < tile_size; j += blockDim.x) log.record(step, tile_start + j, a[at(j)]);
  __syncthreads();
}

// [divergent]
/// Brent-Kung with the textbook's thread mapping: one element per thread,
/// thread t active in a step when t + 1 is a multiple of 2 * stride.
/// In every step the active threads are scattered over all warps, so every
/// warp runs the step even when only one of its lanes has work.
template <class T, class Op>
__global__ void brent_kung_divergent(const T* in, T* out, std::int64_t n, Kind kind,
                                     T* tile_totals, Op op, StepLog<T> log) {
  T* a = dynamic_shared<T>();
  const int t = threadIdx.x;
  const auto [tile_start, tile_size] = tile_span(blockIdx.x, blockDim.x, n);  // this block's tile
  const int span = next_pow2(tile_size);
  load_tile(in, a, tile_start, tile_size, span, kind, op, PlainLayout{});
  __syncthreads();

  int step = 0;
  for (int stride = 1; stride < span; stride *= 2) {  // up-sweep: a reduction tree
    if (t < span && (t + 1) % (2 * stride) == 0) a[t] = op(a[t - stride], a[t]);
    __syncthreads();
    record_tile(log, step++, a, tile_start, tile_size, PlainLayout{});
  }
  for (int stride = span / 4; stride >= 1; stride /= 2) {  // down-sweep
    if ((t + 1) % (2 * stride) == 0 && t + stride < span) a[t + stride] = op(a[t], a[t + stride]);
    __syncthreads();
    record_tile(log, step++, a, tile_start, tile_size, PlainLayout{});
  }
  store_tile(out, a, tile_start, tile_size, PlainLayout{});
  if (tile_totals != nullptr && t == 0) tile_totals[blockIdx.x] = a[tile_size - 1];
}
// [divergent]

// kit: region tree body "void brent_kung_tree("
// kit: todo The contiguous Brent-Kung tree over a[0 .. span) (span is a power of two; slots past the
// kit: todo tile hold the identity), element j living in slot a[at(j)].
// kit: todo Up-sweep, stride = 1, 2, 4, ... below span: element j = (k + 1) * 2 * stride - 1, while
// kit: todo below span, becomes a[at(j - stride)] op a[at(j)]; thread t takes k = t, t + blockDim.x, ...
// kit: todo so that the busy threads are the first ones.
// kit: todo Down-sweep, stride = span / 4, ..., 2, 1: for the same j, while j + stride is below span,
// kit: todo element j + stride becomes a[at(j)] op a[at(j + stride)].
// kit: todo After every step: a barrier, then record_tile(log, step++, a, tile_start, tile_size, at).
// kit: stub (void)a; (void)span; (void)op; (void)at; (void)log; (void)step; (void)tile_start; (void)tile_size;
// [contiguous]
/// Brent-Kung with a contiguous thread mapping: in a step with stride s,
/// thread t works on element (t + 1) * 2s - 1. The active threads are
/// t = 0, 1, 2, ..., so whole warps are either busy or idle.
///
/// With `Layout` and blockDim.x threads for a tile of `span` elements this
/// is the body of three variants: one element per thread, two elements per
/// thread, and two per thread with the padded layout.
template <class T, class Op, class Layout>
__device__ void brent_kung_tree(T* a, int span, Op op, Layout at, const StepLog<T>& log, int& step,
                                std::int64_t tile_start, int tile_size) {
  const int t = threadIdx.x;
  for (int stride = 1; stride < span; stride *= 2) {  // up-sweep
    for (int k = t; (k + 1) * 2 * stride - 1 < span; k += blockDim.x) {
      const int j = (k + 1) * 2 * stride - 1;
      a[at(j)] = op(a[at(j - stride)], a[at(j)]);
    }
    __syncthreads();
    record_tile(log, step++, a, tile_start, tile_size, at);
  }
  for (int stride = span / 4; stride >= 1; stride /= 2) {  // down-sweep
    for (int k = t; (k + 1) * 2 * stride - 1 + stride < span; k += blockDim.x) {
      const int j = (k + 1) * 2 * stride - 1;
      a[at(j + stride)] = op(a[at(j)], a[at(j + stride)]);
    }
    __syncthreads();
    record_tile(log, step++, a, tile_start, tile_size, at);
  }
}

/// One tile of `ItemsPerThread * blockDim.x` elements per block, scanned by
/// the contiguous Brent-Kung tree in the given shared-memory layout.
template <int ItemsPerThread, class T, class Op, class Layout>
__global__ void brent_kung_contiguous(const T* in, T* out, std::int64_t n, Kind kind,
                                      T* tile_totals, Op op, StepLog<T> log) {
  T* a = dynamic_shared<T>();
  const int tile = ItemsPerThread * blockDim.x;
  const auto [tile_start, tile_size] = tile_span(blockIdx.x, tile, n);  // this block's tile
  const int span = next_pow2(tile_size);
  load_tile(in, a, tile_start, tile_size, span, kind, op, Layout{});
  __syncthreads();
  int step = 0;
  brent_kung_tree(a, span, op, Layout{}, log, step, tile_start, tile_size);
  store_tile(out, a, tile_start, tile_size, Layout{});
  if (tile_totals != nullptr && threadIdx.x == 0) tile_totals[blockIdx.x] = a[Layout{}(tile_size - 1)];
}
// [contiguous]

// kit: region blelloch from "int step = 0;"
// kit: to end
// kit: todo Blelloch's exclusive scan of a[0 .. span) (the tile's own elements, padded with the
// kit: todo identity up to span, a power of two). Up-sweep as in Brent-Kung: for stride = 1, 2, ...,
// kit: todo element j = (k + 1) * 2 * stride - 1 becomes a[j - stride] op a[j]. Then thread 0 writes the
// kit: todo root a[span - 1] (the tile's total) to tile_totals[blockIdx.x] when tile_totals is not null,
// kit: todo and replaces the root by the identity. Down-sweep, stride = span / 2, ..., 1: the left child
// kit: todo a[j - stride] receives the parent's a[j]; the right child a[j] becomes the parent's value
// kit: todo op the left child's old value, in that order (op need not commute). A barrier after every
// kit: todo step, and record_tile(log, step++, a, tile_start, tile_size, PlainLayout{}) after it (the
// kit: todo root's replacement is a step too). Finally, for j < tile_size, out[tile_start + j] is a[j]
// kit: todo (exclusive) or op(a[j], in[tile_start + j]) (inclusive).
// kit: stub (void)out; (void)kind; (void)tile_totals; (void)op; (void)log; (void)t; (void)span;
// [blelloch]
/// Blelloch's work-efficient *exclusive* scan: the same up-sweep, then the
/// root is replaced by the identity and a down-sweep pushes prefixes down
/// the tree. At each node the left child receives the parent's prefix p and
/// the right child receives p combined with the left subtree's total, in
/// that order: `op(p, left_total)`. (GPU Gems 3 writes the up-sweep as
/// `temp[bi] += temp[ai]`, right before left: right only for operators that
/// commute.)
///
/// Two elements per thread, tile = 2 * blockDim.x. The inclusive kind is the
/// exclusive result combined with each input element: `op(excl_i, x_i)`.
template <class T, class Op>
__global__ void blelloch_scan(const T* in, T* out, std::int64_t n, Kind kind, T* tile_totals,
                              Op op, StepLog<T> log) {
  T* a = dynamic_shared<T>();
  const int t = threadIdx.x;
  const int tile = 2 * blockDim.x;
  const auto [tile_start, tile_size] = tile_span(blockIdx.x, tile, n);  // this block's tile
  const int span = next_pow2(tile_size);
  // The tree scans the tile's own elements; the kind decides the output.
  load_tile(in, a, tile_start, tile_size, span, Kind::inclusive, op, PlainLayout{});
  __syncthreads();

  int step = 0;
  for (int stride = 1; stride < span; stride *= 2) {  // up-sweep, as in Brent-Kung
    for (int k = t; (k + 1) * 2 * stride - 1 < span; k += blockDim.x) {
      const int j = (k + 1) * 2 * stride - 1;
      a[j] = op(a[j - stride], a[j]);
    }
    __syncthreads();
    record_tile(log, step++, a, tile_start, tile_size, PlainLayout{});
  }
  if (t == 0) {
    if (tile_totals != nullptr) tile_totals[blockIdx.x] = a[span - 1];
    a[span - 1] = Op::template identity<T>();
  }
  __syncthreads();
  record_tile(log, step++, a, tile_start, tile_size, PlainLayout{});
  for (int stride = span / 2; stride >= 1; stride /= 2) {  // down-sweep
    for (int k = t; (k + 1) * 2 * stride - 1 < span; k += blockDim.x) {
      const int j = (k + 1) * 2 * stride - 1;
      const T left_total = a[j - stride];
      a[j - stride] = a[j];               // the left child gets the parent's prefix
      a[j] = op(a[j], left_total);        // the right child gets prefix, then left subtree
    }
    __syncthreads();
    record_tile(log, step++, a, tile_start, tile_size, PlainLayout{});
  }
  for (int j = t; j < tile_size; j += blockDim.x) {
    const T exclusive = a[j];
    out[tile_start + j] = kind == Kind::exclusive ? exclusive : op(exclusive, in[tile_start + j]);
  }
}
// [blelloch]

/// Trace labels for a Brent-Kung tree over a tile of `tile` elements
/// (padded to a power of two, as the kernels do).
std::vector<std::string> brent_kung_labels(std::int64_t tile);
/// Trace labels for Blelloch's scan over a tile of `tile` elements.
std::vector<std::string> blelloch_labels(std::int64_t tile);

/// Registry entry (through ScanByTiles): the textbook's divergent mapping.
struct Divergent {
  /// Name, summary and limits, for the registry.
  static VariantInfo info() {
    return {.name = "divergent",
            .summary = "Brent-Kung, one element per thread, active threads scattered over warps",
            .block = 128, .takes_block = true, .block_min = 2};
  }
  /// One element per thread.
  static constexpr int kItems = 1;
  /// The tile kernel.
  template <class T, class Op>
  static auto kernel() { return brent_kung_divergent<T, Op>; }
  /// One shared slot per element of the tile.
  static int shared_slots(int tile) { return tile; }
  /// One row per tree step.
  static std::vector<std::string> trace_labels(std::int64_t tile) { return brent_kung_labels(tile); }
};

/// Registry entry (through ScanByTiles): contiguous mapping, `Items`
/// elements per thread, a shared-memory layout.
template <int Items, class Layout>
struct Contiguous {
  /// Name, summary and limits, for the registry.
  static VariantInfo info() {
    if constexpr (std::is_same_v<Layout, PaddedLayout>) {
      return {.name = "padded",
              .summary = "two elements per thread, shared memory padded against bank conflicts",
              .block = 128, .takes_block = true, .block_min = 2};
    } else if constexpr (Items == 2) {
      return {.name = "two-per-thread",
              .summary = "Brent-Kung, contiguous mapping, two elements per thread: no idle first step",
              .block = 128, .takes_block = true, .block_min = 2};
    } else {
      return {.name = "contiguous",
              .summary = "Brent-Kung, one element per thread, active threads packed into few warps",
              .block = 128, .takes_block = true, .block_min = 2};
    }
  }
  /// Elements per thread.
  static constexpr int kItems = Items;
  /// The tile kernel.
  template <class T, class Op>
  static auto kernel() { return brent_kung_contiguous<Items, T, Op, Layout>; }
  /// The layout's shared slots for the tile.
  static int shared_slots(int tile) { return Layout::slots(tile); }
  /// One row per tree step.
  static std::vector<std::string> trace_labels(std::int64_t tile) { return brent_kung_labels(tile); }
};

/// Registry entry (through ScanByTiles): Blelloch's exclusive up-sweep /
/// down-sweep.
struct Blelloch {
  /// Name, summary and limits, for the registry.
  static VariantInfo info() {
    return {.name = "blelloch",
            .summary = "Blelloch's exclusive up-sweep/down-sweep, two elements per thread",
            .block = 128, .takes_block = true, .block_min = 2};
  }
  /// Two elements per thread.
  static constexpr int kItems = 2;
  /// The tile kernel.
  template <class T, class Op>
  static auto kernel() { return blelloch_scan<T, Op>; }
  /// One shared slot per element of the tile.
  static int shared_slots(int tile) { return tile; }
  /// One row per tree step, and one for the root.
  static std::vector<std::string> trace_labels(std::int64_t tile) { return blelloch_labels(tile); }
};

}  // namespace scan::ch05
