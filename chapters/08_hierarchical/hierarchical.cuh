/// \file
/// \brief Chapter 08: scans of any length, three ways to glue tiles together.
///
/// All three use chapter 07's tile (256 threads x 16 items, vector loads) and
/// differ in how tiles learn the combination of everything before them:
/// - scan-then-propagate: scan tiles and write their totals, scan the totals
///   (recursively), add each tile's carry in a third pass: about 4n moves;
/// - reduce-then-scan: reduce tiles to totals, scan the totals, scan each
///   tile again seeded with its carry: about 3n moves;
/// - fixed grid: as many blocks as the GPU holds at once, each owning a
///   contiguous chunk of tiles, so the totals always fit one tile: 3n moves
///   and three launches for any n, no recursion.
#pragma once

#include "coarsening.cuh"    // chapter 07: the tile pieces
#include "warp_shuffle.cuh"  // chapter 06: block scans

#include "block_sums.cuh"  // chapter 02: the block-sums glue
#include <scan/device.cuh>
#include <scan/registry.hpp>

#include <cstdint>

namespace scan::ch08 {

/// The chapter's variants.
const Chapter& chapter();

using ch07::Arrangement;
/// Threads per block (chapter 07's shape).
inline constexpr int kThreads = ch07::kThreads;
/// Items per thread (chapter 07's shape).
inline constexpr int kItems = ch07::kItems;
/// Elements per tile.
inline constexpr int kTile = kThreads * kItems;
/// Shared memory of one tile.
template <class T>
using Storage = ch07::TileStorage<T, kThreads, kItems, ch07::kBestArrangement>;

// kit: region reduce-tile body "T reduce_tile(const T* in, TileSpan span, Op op, Storage<T>& storage)"
// kit: todo The combination of one tile's elements, returned to every thread: load the tile with
// kit: todo ch07::load_tile<ch07::kBestArrangement, kThreads, kItems>(in, span.start, span.valid, items,
// kit: todo storage.exchange, identity), fold each thread's kItems items from left to right, combine
// kit: todo the threads' totals with ch06::block_reduce(thread_total, op, storage.scan), and end with a
// kit: todo barrier (the caller reuses storage at once).
// kit: stub (void)in; (void)span; (void)op; (void)storage;
// kit: stub return Op::template identity<T>();
// [reduce tile]
/// The combination of one tile's elements, known to every thread: load
/// (16-byte vectors), fold each thread's items, combine across the block.
/// Reads the tile once and writes nothing. Ends with a barrier, so the
/// caller may reuse `storage` at once.
template <class T, class Op>
__device__ T reduce_tile(const T* in, TileSpan span, Op op, Storage<T>& storage) {
  T items[kItems];
  ch07::load_tile<ch07::kBestArrangement, kThreads, kItems>(in, span.start, span.valid, items,
                                                            storage.exchange, Op::template identity<T>());
  T thread_total = items[0];
#pragma unroll
  for (int j = 1; j < kItems; ++j) thread_total = op(thread_total, items[j]);
  const T tile_total = ch06::block_reduce(thread_total, op, storage.scan);
  __syncthreads();  // every thread has read storage.scan
  return tile_total;
}
// [reduce tile]

// [reduce-then-scan kernels]
/// Pass 1 of reduce-then-scan: one block per tile writes the tile's total.
template <class T, class Op>
__global__ void __launch_bounds__(kThreads) reduce_tiles(const T* in, std::int64_t n, T* tile_totals, Op op) {
  __shared__ Storage<T> storage;
  const T total = reduce_tile(in, tile_span(blockIdx.x, kTile, n), op, storage);
  if (threadIdx.x == 0) tile_totals[blockIdx.x] = total;
}

/// Pass 3: one block per tile scans it, starting from `carries[tile]` (the
/// combination of all earlier tiles; null for a single tile).
template <class T, class Op>
__global__ void __launch_bounds__(kThreads)
    scan_tiles_seeded(const T* in, T* out, std::int64_t n, Kind kind, const T* carries, Op op) {
  __shared__ Storage<T> storage;
  const T seed = carries != nullptr ? carries[blockIdx.x] : Op::template identity<T>();
  const TileSpan span = tile_span(blockIdx.x, kTile, n);
  (void)ch07::scan_tile<ch07::kBestArrangement, kThreads, kItems>(in, out, span.start, span.valid, kind,
                                                                   seed, op, storage, StepLog<T>{});
}
// [reduce-then-scan kernels]

// [reduce-then-scan host]
/// Reduce-then-scan of `in` (n elements) into `out`, recursing on the tile
/// totals until they fit one tile. `levels` holds each level's totals and
/// their exclusive scan (the carries), taken from the workspace.
template <class T, class Op>
void reduce_then_scan(const T* in, T* out, std::int64_t n, Kind kind, Op op,
                      const std::array<detail::TotalsLevel<T>, detail::kMaxLevels>& levels, int level,
                      cudaStream_t stream) {
  const unsigned tiles = tile_count(n, kTile);
  if (tiles == 1) {
    scan_tiles_seeded<<<1, kThreads, 0, stream>>>(in, out, n, kind, static_cast<const T*>(nullptr), op);
    SCAN_CUDA_LAUNCH();
    return;
  }
  const detail::TotalsLevel<T>& here = levels[level];
  reduce_tiles<<<tiles, kThreads, 0, stream>>>(in, n, here.totals, op);                  // read n
  SCAN_CUDA_LAUNCH();
  reduce_then_scan(here.totals, here.scanned, tiles, Kind::exclusive, op, levels, level + 1, stream);
  scan_tiles_seeded<<<tiles, kThreads, 0, stream>>>(in, out, n, kind, here.scanned, op);  // read n, write n
  SCAN_CUDA_LAUNCH();
}
// [reduce-then-scan host]

// kit: region chunk-scan body "scan_chunks(const T* in, T* out, std::int64_t n, Kind kind, std::int64_t tiles_per_chunk,"
// kit: todo Pass 3 of the fixed grid: block b scans its chunk, the tiles [b * tiles_per_chunk,
// kit: todo (b + 1) * tiles_per_chunk) clipped to the last tile, one tile after another with
// kit: todo ch07::scan_tile<ch07::kBestArrangement, kThreads, kItems>(in, out, span.start, span.valid,
// kit: todo kind, carry, op, storage, StepLog<T>{}), which returns the tile's own total. The carry starts
// kit: todo as chunk_carries[blockIdx.x] and takes each tile's total on its right; storage is shared
// kit: todo by the tiles (a barrier between them). Declare the shared storage as reduce_chunks does.
// kit: stub (void)in; (void)out; (void)n; (void)kind; (void)tiles_per_chunk; (void)chunk_carries; (void)op;
// [fixed-grid kernels]
/// Pass 1 of the fixed grid: block b reduces tiles [b * per_chunk, (b + 1) *
/// per_chunk) one after another, keeping the running total in a register.
template <class T, class Op>
__global__ void __launch_bounds__(kThreads)
    reduce_chunks(const T* in, std::int64_t n, std::int64_t tiles_per_chunk, T* chunk_totals, Op op) {
  __shared__ Storage<T> storage;
  const std::int64_t tiles = ceil_div<std::int64_t>(n, kTile);
  const std::int64_t first = blockIdx.x * tiles_per_chunk;
  const std::int64_t last = first + tiles_per_chunk < tiles ? first + tiles_per_chunk : tiles;
  T total = Op::template identity<T>();
  for (std::int64_t tile = first; tile < last; ++tile) {
    total = op(total, reduce_tile(in, tile_span(tile, kTile, n), op, storage));  // earlier tiles on the left
  }
  if (threadIdx.x == 0) chunk_totals[blockIdx.x] = total;
}

/// Pass 3: block b scans its chunk tile by tile, carrying the running prefix
/// from one tile to the next: `carry` starts as the chunk's exclusive prefix.
template <class T, class Op>
__global__ void __launch_bounds__(kThreads)
    scan_chunks(const T* in, T* out, std::int64_t n, Kind kind, std::int64_t tiles_per_chunk,
                const T* chunk_carries, Op op) {
  __shared__ Storage<T> storage;
  const std::int64_t tiles = ceil_div<std::int64_t>(n, kTile);
  const std::int64_t first = blockIdx.x * tiles_per_chunk;
  const std::int64_t last = first + tiles_per_chunk < tiles ? first + tiles_per_chunk : tiles;
  T carry = chunk_carries[blockIdx.x];
  for (std::int64_t tile = first; tile < last; ++tile) {
    const TileSpan span = tile_span(tile, kTile, n);
    const T tile_total = ch07::scan_tile<ch07::kBestArrangement, kThreads, kItems>(
        in, out, span.start, span.valid, kind, carry, op, storage, StepLog<T>{});
    carry = op(carry, tile_total);
    __syncthreads();  // storage is reused by the next tile
  }
}
// [fixed-grid kernels]

/// Blocks of the fixed grid: as many as fit on the device at once
/// (resident_blocks() of scan_chunks, queried once per process).
int fixed_grid_blocks();

/// Registry entry: chapter 07's tile scan with the block-sum fix-up.
struct ScanThenPropagate {
  /// Name, summary and limits, for the registry.
  static VariantInfo info() {
    return {.name = "scan-then-propagate",
            .summary = "scan tiles and write totals, scan totals recursively, add carries: ~4n moves",
            .block = kThreads, .items_per_thread = kItems};
  }
  /// The scratch memory run() takes.
  template <class T, class Op>
  static void reserve(Workspace& workspace, std::int64_t n, int) {
    reserve_by_tiles<T>(workspace, n, kTile);
  }
  /// Scans r.in into r.out on r.stream.
  template <class T, class Op>
  static void run(const ScanRequest<T>& r, Op op) {
    ch07::Coarsened<ch07::kBestArrangement, kThreads, kItems>::run(r, op);
  }
};

/// Registry entry: reduce-then-scan.
struct ReduceThenScan {
  /// Name, summary and limits, for the registry.
  static VariantInfo info() {
    return {.name = "reduce-then-scan",
            .summary = "reduce tiles, scan the totals recursively, rescan tiles seeded: ~3n moves",
            .block = kThreads, .items_per_thread = kItems};
  }
  /// The scratch memory run() takes.
  template <class T, class Op>
  static void reserve(Workspace& workspace, std::int64_t n, int) {
    (void)detail::take_levels<T>(workspace, n, kTile);
  }
  /// Scans r.in into r.out on r.stream.
  template <class T, class Op>
  static void run(const ScanRequest<T>& r, Op op) {
    Workspace workspace = r.workspace;
    const auto levels = detail::take_levels<T>(workspace, r.n, kTile);
    reduce_then_scan(r.in, r.out, r.n, r.kind, op, levels, 0, r.stream);
  }
};

/// Registry entry: the fixed grid.
struct FixedGrid {
  /// Name, summary and limits, for the registry.
  static VariantInfo info() {
    return {.name = "fixed-grid",
            .summary = "one contiguous chunk per resident block: reduce, scan the chunk totals, rescan: 3n",
            .block = kThreads, .items_per_thread = kItems};
  }
  /// Chunks and tiles per chunk for n elements.
  struct Plan {
    std::int64_t tiles_per_chunk;  ///< tiles each block walks through
    std::int64_t chunks;           ///< blocks launched
  };
  /// Splits n elements into at most fixed_grid_blocks() chunks of whole tiles.
  static Plan plan(std::int64_t n) {
    const std::int64_t tiles = ceil_div<std::int64_t>(n, kTile);
    const std::int64_t per_chunk = ceil_div<std::int64_t>(tiles, fixed_grid_blocks());
    return {per_chunk, ceil_div(tiles, per_chunk)};
  }
  /// The scratch memory run() takes.
  template <class T, class Op>
  static void reserve(Workspace& workspace, std::int64_t n, int) {
    const Plan p = plan(n);
    workspace.take<T>(static_cast<std::size_t>(p.chunks));
    workspace.take<T>(static_cast<std::size_t>(p.chunks));
    (void)detail::take_levels<T>(workspace, p.chunks, kTile);
  }
  /// Scans r.in into r.out on r.stream.
  template <class T, class Op>
  static void run(const ScanRequest<T>& r, Op op) {
    Workspace workspace = r.workspace;
    const Plan p = plan(r.n);
    T* chunk_totals = workspace.take<T>(static_cast<std::size_t>(p.chunks));
    T* chunk_carries = workspace.take<T>(static_cast<std::size_t>(p.chunks));
    const auto levels = detail::take_levels<T>(workspace, p.chunks, kTile);
    const auto blocks = static_cast<unsigned>(p.chunks);
    reduce_chunks<<<blocks, kThreads, 0, r.stream>>>(r.in, r.n, p.tiles_per_chunk, chunk_totals, op);
    SCAN_CUDA_LAUNCH();
    // A few thousand chunk totals at most: one tile, one block.
    reduce_then_scan(chunk_totals, chunk_carries, p.chunks, Kind::exclusive, op, levels, 0, r.stream);
    scan_chunks<<<blocks, kThreads, 0, r.stream>>>(r.in, r.out, r.n, r.kind, p.tiles_per_chunk,
                                                   chunk_carries, op);
    SCAN_CUDA_LAUNCH();
  }
};

}  // namespace scan::ch08
