/// \file
/// \brief Chapter 14: one scan across several GPUs, through NCCL.
///
/// Each of P GPUs holds a contiguous shard of the array. It reduces its
/// shard (n/P elements read), the P totals are exchanged with one
/// ncclAllGather, each GPU combines the totals of the GPUs before it into
/// its carry, and scans its shard seeded with that carry with chapter 11's
/// single-pass kernel (n/P read, n/P written): 3n/P element moves per GPU,
/// against 4n/P for a scan followed by adding the carry. With the carry
/// deferred (the program's `--carry deferred`: scan_shard_alone()) each GPU
/// scans its shard alone (2n/P moves), and its carry is left for whoever
/// reads the output next.
#pragma once

#include "coarsening.cuh"    // chapter 07: the tile
#include "copy_ceiling.cuh"  // chapter 11: the seeded single-pass scan
#include "warp_shuffle.cuh"  // chapter 06: block reduce

#include <scan/device.cuh>
#include <scan/ops.hpp>
#include <scan/registry.hpp>

#include <nccl.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace scan::ch14 {

/// Throws CudaError-like errors for NCCL results (exit code 3, with NCCL's text).
void check_nccl(ncclResult_t result, const char* what);

/// The NCCL element type of T.
template <class T>
ncclDataType_t nccl_type() {
  if constexpr (std::is_same_v<T, std::int32_t>) return ncclInt32;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return ncclUint32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return ncclInt64;
  else if constexpr (std::is_same_v<T, float>) return ncclFloat32;
  else return ncclFloat64;
}

// [reduce]
/// Whether an operator lets a reduction combine elements in any order. The
/// operators known to commute are listed; any other, a new one included,
/// takes the ordered path, which is right for every associative operator.
template <class Op>
inline constexpr bool kCommutative = std::is_same_v<Op, Add> || std::is_same_v<Op, Max> || std::is_same_v<Op, Min>;

/// Step 1, part 1: block b combines its share of in[0, n) into partials[b].
/// A commutative operator takes 16-byte vectors in a grid-stride loop (the
/// order does not matter, so every load can be as wide and as early as
/// possible); a non-commutative one takes one contiguous chunk per block,
/// tile by tile in order (chapter 07's tile, chapter 06's block reduce).
template <int Threads, class T, class Op>
__global__ void __launch_bounds__(Threads) reduce_blocks(const T* in, std::int64_t n, T* partials, Op op) {
  __shared__ ch06::BlockScanStorage<T> storage;
  T mine = Op::template identity<T>();
  if constexpr (kCommutative<Op>) {
    constexpr int kWidth = kVectorItems<T>;
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * Threads;
    const std::int64_t vectors = reinterpret_cast<std::uintptr_t>(in) % 16 == 0 ? n / kWidth : 0;
    const auto* packed = reinterpret_cast<const Vector<T>*>(in);
    for (std::int64_t v = global_thread_index(); v < vectors; v += stride) {
      const Vector<T> loaded = packed[v];
#pragma unroll
      for (int k = 0; k < kWidth; ++k) mine = op(mine, loaded.values[k]);
    }
    for (std::int64_t i = vectors * kWidth + global_thread_index(); i < n; i += stride) mine = op(mine, in[i]);
  } else {
    // One contiguous chunk of whole tiles per block, combined in order.
    constexpr int kItems = 16;
    constexpr int kTile = Threads * kItems;
    __shared__ ch07::TileStorage<T, Threads, kItems, ch07::kBestArrangement> tile_storage;
    const std::int64_t tiles = ceil_div<std::int64_t>(n, kTile);
    const std::int64_t per_block = ceil_div<std::int64_t>(tiles, gridDim.x);
    const std::int64_t first = blockIdx.x * per_block;
    const std::int64_t last = first + per_block < tiles ? first + per_block : tiles;
    for (std::int64_t t = first; t < last; ++t) {
      const TileSpan span = tile_span(t, kTile, n);
      T items[kItems];
      ch07::load_tile<ch07::kBestArrangement, Threads, kItems>(in, span.start, span.valid, items,
                                                               tile_storage.exchange, Op::template identity<T>());
      T thread_total = items[0];
#pragma unroll
      for (int j = 1; j < kItems; ++j) thread_total = op(thread_total, items[j]);
      const T tile_total = ch06::block_reduce(thread_total, op, storage);
      __syncthreads();  // storage is used again by the next tile
      mine = op(mine, tile_total);  // the same value in every thread: the block's running total
    }
    if (threadIdx.x == 0) partials[blockIdx.x] = mine;
    return;
  }
  const T block_total = ch06::block_reduce(mine, op, storage);
  if (threadIdx.x == 0) partials[blockIdx.x] = block_total;
}

/// Step 1, part 2: one thread combines the partials in order into `*total`.
template <class T, class Op>
__global__ void reduce_partials(const T* partials, int count, T* total, Op op) {
  T total_so_far = Op::template identity<T>();
  for (int b = 0; b < count; ++b) total_so_far = op(total_so_far, partials[b]);
  *total = total_so_far;
}
// [reduce]

// [carry]
/// Step 3: the carry of GPU `rank`, the combination of the totals of every
/// GPU before it, in order: the earlier GPU on the left, so that a
/// non-commutative operator stays right.
template <class T, class Op>
__global__ void carry_before(const T* totals, int rank, T* carry, Op op) {
  T combined = Op::template identity<T>();
  for (int k = 0; k < rank; ++k) combined = op(combined, totals[k]);
  *carry = combined;
}
// [carry]

/// Deferred carry: the shard's total, read off its own scan (the last
/// inclusive element; an exclusive scan's last element combined with the
/// last input), so no separate reduce pass is needed.
template <class T, class Op>
__global__ void total_from_scan(const T* in, const T* out, std::int64_t count, Kind kind, T* total, Op op) {
  if (count == 0) {
    *total = Op::template identity<T>();
  } else {
    *total = kind == Kind::inclusive ? out[count - 1] : op(out[count - 1], in[count - 1]);
  }
}

/// The scan each GPU runs on its shard: chapter 11's `deterministic`, the
/// grouped look-back in the recipe measured fastest on that GPU (the
/// overlapped ring on an H200, the 2 MiB prefetch on an H100), chosen per
/// device. It takes a seed, so the carry goes in as the value before the
/// shard's first tile, and its float sums are the same on every run.
using ShardScan = ch11::Deterministic;

/// What one GPU needs for its part: its shard, its stream, its
/// communicator, and scratch memory (partials, total, totals, carry, the
/// scan's workspace), all on that GPU.
template <class T>
struct Part {
  int device = 0;              ///< the CUDA device
  int rank = 0;                ///< its place among the GPUs (shard order)
  int ranks = 1;               ///< how many GPUs
  ncclComm_t comm = nullptr;   ///< its NCCL communicator
  cudaStream_t stream = nullptr;  ///< the stream its work goes to
  const T* in = nullptr;       ///< its shard of the input
  T* out = nullptr;            ///< its shard of the output
  std::int64_t count = 0;      ///< elements in the shard
  T* partials = nullptr;       ///< one per reduce block
  T* total = nullptr;          ///< the shard's total
  T* totals = nullptr;         ///< every GPU's total, after the all-gather
  T* carry = nullptr;          ///< the combination of the totals before this GPU
  Workspace scan_workspace;    ///< the shard scan's workspace
};

/// Blocks of the reduction (a persistent grid: four blocks per SM).
int reduce_block_count(int device);
/// Threads per block of the reduction.
inline constexpr int kReduceThreads = 256;

/// Scratch bytes one GPU needs for a shard of `count` elements.
template <class T, class Op>
std::size_t part_scratch_bytes(std::int64_t count, int ranks, int device) {
  Workspace measuring;
  (void)measuring.take<T>(static_cast<std::size_t>(reduce_block_count(device)));
  (void)measuring.take<T>(1);
  (void)measuring.take<T>(static_cast<std::size_t>(ranks));
  (void)measuring.take<T>(1);
  std::size_t scan_bytes = 0;
  if (count > 0) {
    Workspace scan_measuring;
    ShardScan::reserve<T, Op>(scan_measuring, count, 0);
    scan_bytes = scan_measuring.used();
  }
  (void)measuring.take<std::byte>(scan_bytes);
  return measuring.used();
}

/// Lays out a Part's scratch memory at `scratch` (part_scratch_bytes()).
template <class T, class Op>
void place_scratch(Part<T>& part, std::byte* scratch) {
  const std::size_t bytes = part_scratch_bytes<T, Op>(part.count, part.ranks, part.device);
  Workspace workspace(scratch, bytes);
  part.partials = workspace.take<T>(static_cast<std::size_t>(reduce_block_count(part.device)));
  part.total = workspace.take<T>(1);
  part.totals = workspace.take<T>(static_cast<std::size_t>(part.ranks));
  part.carry = workspace.take<T>(1);
  std::size_t scan_bytes = 0;
  if (part.count > 0) {
    Workspace scan_measuring;
    ShardScan::reserve<T, Op>(scan_measuring, part.count, 0);
    scan_bytes = scan_measuring.used();
  }
  part.scan_workspace = Workspace(workspace.take<std::byte>(scan_bytes), scan_bytes);
}

// [phases]
/// Step 1 on one GPU: reduce the shard into part.total.
template <class T, class Op>
void reduce_shard(const Part<T>& part, Op op) {
  const int blocks = reduce_block_count(part.device);
  reduce_blocks<kReduceThreads><<<blocks, kReduceThreads, 0, part.stream>>>(part.in, part.count, part.partials, op);
  SCAN_CUDA_LAUNCH();
  reduce_partials<<<1, 1, 0, part.stream>>>(part.partials, blocks, part.total, op);
  SCAN_CUDA_LAUNCH();
}

/// Step 2 on one GPU: contribute its total to the all-gather (call it for
/// every GPU between ncclGroupStart and ncclGroupEnd when one thread
/// drives several GPUs).
template <class T>
void exchange_totals(const Part<T>& part) {
  check_nccl(ncclAllGather(part.total, part.totals, 1, nccl_type<T>(), part.comm, part.stream), "ncclAllGather");
}

/// Step 3 on one GPU: its carry, the combination of the totals before it.
template <class T, class Op>
void combine_carry(const Part<T>& part, Op op) {
  carry_before<<<1, 1, 0, part.stream>>>(part.totals, part.rank, part.carry, op);
  SCAN_CUDA_LAUNCH();
}

/// The shard's scan with chapter 11's kernel, seeded with `seed` (nullptr:
/// the identity, a scan of the shard alone).
template <class T, class Op>
void run_shard_scan(const Part<T>& part, Kind kind, const T* seed, Op op) {
  if (part.count == 0) return;
  ScanRequest<T> request;
  request.in = part.in;
  request.out = part.out;
  request.n = part.count;
  request.kind = kind;
  request.workspace = part.scan_workspace;
  request.stream = part.stream;
  request.seed = seed;
  ShardScan::run<T, Op>(request, op);
}

/// Steps 3 and 4 on one GPU: its carry, then its shard scanned with it.
template <class T, class Op>
void scan_shard(const Part<T>& part, Kind kind, Op op) {
  combine_carry(part, op);
  run_shard_scan(part, kind, part.carry, op);
}
// [phases]

// [deferred]
/// Deferred carry, step 1 on one GPU: the shard scanned alone, its total
/// read off the scan's end. (Then exchange_totals() and combine_carry(),
/// as with the carry applied; nothing reads the shard a second time.)
template <class T, class Op>
void scan_shard_alone(const Part<T>& part, Kind kind, Op op) {
  run_shard_scan(part, kind, static_cast<const T*>(nullptr), op);
  total_from_scan<<<1, 1, 0, part.stream>>>(part.in, part.out, part.count, kind, part.total, op);
  SCAN_CUDA_LAUNCH();
}
// [deferred]

/// Where shard k of n elements over P GPUs begins: n/P each, the remainder
/// spread over the first GPUs, and every boundary on a multiple of 4096 when
/// n is large enough (whole tiles and aligned vectors in every shard).
std::int64_t shard_begin(std::int64_t n, int ranks, int k);

}  // namespace scan::ch14
