/// \file
/// \brief Chapter 13: what scan is for. Stream compaction, the radix-sort
///        split (and a radix sort built from it), and first-order linear
///        recurrences as a scan over affine maps.
///
/// Each application is the single-pass look-back scan of chapters 10 and 11
/// with a different thing scanned (counts of kept elements, counts of
/// zeros, affine maps) and a different thing done with the result (a
/// scatter, or the result itself).
#pragma once

#include "copy_ceiling.cuh"        // chapter 11: warp-private tile movement, 16-byte states
#include "decoupled_lookback.cuh"  // chapter 10: tile states, look-back, back-off
#include "stream_scan.cuh"         // chapter 09: take_ticket
#include "warp_shuffle.cuh"        // chapter 06: warp and block scans

#include <scan/device.cuh>
#include <scan/ops.hpp>

#include <cstdint>
#include <cstring>
#include <string>

namespace scan::ch13 {

using ch10::BackOff;
using ch10::Status;

/// Tile shape of the scatter kernels (chapter 11's per-tile shape).
inline constexpr int kThreads = 128;
/// Items per thread.
inline constexpr int kItems = 32;
/// Elements per tile.
inline constexpr int kTile = kThreads * kItems;

// ---------------------------------------------------------------------------
// Stream compaction and the split: a scan of counts, then a scatter.

// [predicates]
/// Keeps the elements whose bits, read as an unsigned number, lie below a
/// threshold: with uniform random bits, `threshold = fraction * 2^32` keeps
/// that fraction.
struct KeepBelow {
  std::uint32_t threshold;  ///< elements below it are kept
  /// True if `x` is kept.
  template <class T>
  __host__ __device__ bool operator()(const T& x) const {
    static_assert(sizeof(T) == 4, "a 32-bit element");
    std::uint32_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    return bits < threshold;
  }
};

/// Selects the keys whose bit `bit` is 0: the split of a radix sort.
struct BitIsZero {
  int bit;  ///< the bit looked at
  /// True if bit `bit` of `key` is 0.
  __host__ __device__ bool operator()(std::uint32_t key) const { return ((key >> bit) & 1u) == 0; }
};
// [predicates]

// [rejected]
/// Where the elements a predicate rejects go.
enum class Rejected {
  dropped,   ///< nowhere: stream compaction
  reversed,  ///< after the selected ones, from the end backwards (cub::DevicePartition's order)
  in_order,  ///< after the selected ones, in input order: a stable split (needs the selected total first)
};
// [rejected]

/// Which kernel moves the elements of a compaction, split or partition.
/// All of them compute the same thing; the program times them side by side.
enum class ScatterKernel {
  per_tile,         ///< scatter_selected(): one block per tile, in ticket order
  bulk,             ///< bulk_scatter_selected() with kBulkGrouped: persistent blocks, bulk copies
  bulk_any_prefix,  ///< the same with kBulkAnyPrefix (chapter 10's look-back, read wide)
  ballot,           ///< ballot_scatter_selected(): one block per tile, ranked by warp ballots, nothing staged
};

/// Every scatter kernel, in the order the program's tables list them.
inline constexpr ScatterKernel kScatterKernels[] = {ScatterKernel::per_tile, ScatterKernel::bulk,
                                                    ScatterKernel::bulk_any_prefix, ScatterKernel::ballot};

/// A scatter kernel's name in the program's rows and the tests' messages
/// (no commas: the program's CSV does not quote).
inline std::string scatter_kernel_name(ScatterKernel kernel) {
  switch (kernel) {
    case ScatterKernel::per_tile: return "per tile";
    case ScatterKernel::bulk: return "bulk persistent";
    case ScatterKernel::bulk_any_prefix: return "bulk persistent; any-prefix look-back";
    case ScatterKernel::ballot: return "per tile; warp ballots";
  }
  return "?";
}

// kit: region gather from "unsigned front = before;"
// kit: to end
// kit: todo The tile's scatter, after its count scan and look-back (both kernels call this function).
// kit: todo Gather in shared memory: thread t's selected items go to staged[before], staged[before + 1],
// kit: todo ... in order; unless Mode drops them, its rejected items follow all the tile's selected ones,
// kit: todo in order (the rejected items before thread t number t * Items - before). Barrier. Then
// kit: todo consecutive threads write consecutive entries of staged: the i-th selected element of the
// kit: todo tile goes to out[selected_before + i]; a rejected one goes to n - 1 - (rejected before it) for
// kit: todo Rejected::reversed, to *selected_total + (rejected before it) for Rejected::in_order. The
// kit: todo tile that ends the array writes *selected_total (not for in_order, which reads it).
// kit: stub (void)out; (void)n; (void)span; (void)items; (void)picked; (void)before; (void)tile_count;
// kit: stub (void)selected_before; (void)selected_total; (void)staged;
// [scatter tile]
/// The second half of every scatter kernel: given a tile's items, which
/// of them the predicate picked, this thread's count of picked items before
/// its own (`before`), the tile's count and (in shared memory, ready after
/// the barrier below) the count of everything selected before the tile,
/// it writes the tile's part of the output. The selected elements are
/// gathered in shared memory (`staged`, a tile's worth), in order, and
/// written out as one contiguous run, so the scatter stays coalesced; the
/// rejected ones likewise, where `Mode` sends them. The tile that ends the
/// array writes the total selected. `staged` (a pointer, or anything
/// indexed like one) must be free to overwrite: no thread may still read it.
template <int Threads, int Items, Rejected Mode, class T, class Staged>
__device__ __forceinline__ void scatter_tile(T* out, std::int64_t n, TileSpan span, const T (&items)[Items],
                                             const bool (&picked)[Items], unsigned before, unsigned tile_count,
                                             const unsigned& selected_before, unsigned long long* selected_total,
                                             Staged staged) {
  // Gather: selected elements at the front of `staged`, in order; the
  // rejected ones after them, in order.
  unsigned front = before;
  unsigned back = tile_count + static_cast<unsigned>(threadIdx.x * Items) - before;
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    if (picked[j]) {
      staged[front++] = items[j];
    } else if (Mode != Rejected::dropped && static_cast<int>(threadIdx.x) * Items + j < span.valid) {
      staged[back++] = items[j];
    }
  }
  __syncthreads();
  // Write the tile's runs, consecutive threads on consecutive elements.
  const std::uint64_t all_selected = Mode == Rejected::in_order ? *selected_total : 0;
  const std::uint64_t selected = selected_before;
  const std::uint64_t rejected = static_cast<std::uint64_t>(span.start) - selected;  // rejected before the tile
  const int written = Mode == Rejected::dropped ? static_cast<int>(tile_count) : span.valid;
  for (int i = threadIdx.x; i < written; i += Threads) {
    std::int64_t to;
    if (i < static_cast<int>(tile_count)) {
      to = static_cast<std::int64_t>(selected + i);
    } else if (Mode == Rejected::reversed) {
      to = n - 1 - static_cast<std::int64_t>(rejected + (i - tile_count));
    } else {
      to = static_cast<std::int64_t>(all_selected + rejected + (i - tile_count));
    }
    out[to] = staged[i];
  }
  if (Mode != Rejected::in_order && threadIdx.x == 0 && span.start + span.valid == n) {
    *selected_total = selected + tile_count;
  }
}

/// Marks the items `pred` selects among the first `valid` of the tile
/// (blocked: thread t holds elements t * Items ...) and returns how many.
template <int Items, class T, class Pred>
__device__ __forceinline__ unsigned pick(const T (&items)[Items], int valid, Pred pred, bool (&picked)[Items]) {
  unsigned count = 0;
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    picked[j] = static_cast<int>(threadIdx.x) * Items + j < valid && pred(items[j]);
    count += picked[j];
  }
  return count;
}
// [scatter tile]

// [prefetch ahead]
/// How far ahead of its own tile a per-tile scatter kernel sends for input,
/// in bytes of input: 4 MiB, as chapter 11's per-tile kernel. Measured on
/// the H100 at 2^28 elements (docs/lab/ch13-h100.md): 2 and 4 MiB the
/// fastest, 1 MiB a little slower, 8 MiB slower with half the elements kept.
inline constexpr std::size_t kPrefetchAheadBytes = std::size_t{4} << 20;

/// Thread 0 of the block that holds tile `tile` starts moving the input of
/// tile `tile + ahead` into L2 (0: nothing), and goes on at once. The block
/// that takes that ticket later finds its loads in L2. A block whose tile
/// is done takes the next ticket, so the memory reads only as fast as
/// blocks finish; the prefetch keeps reads in flight meanwhile, while the
/// blocks wait in their look-backs.
template <class T>
__device__ __forceinline__ void prefetch_ahead(const T* in, std::int64_t n, unsigned tile, int tile_size,
                                               unsigned ahead) {
  if (threadIdx.x == 0 && ahead != 0) {
    ch11::prefetch_range_l2(in, n, (std::int64_t{tile} + ahead) * tile_size, tile_size);
  }
}
// [prefetch ahead]

// [scatter kernel]
/// One block per tile, in ticket order. Each thread counts the elements of
/// its items the predicate selects; the block scans the counts (chapter 06);
/// the tile publishes its count and looks back for the count of everything
/// selected before it (chapter 10, over counts: an exclusive sum). Then
/// scatter_tile() writes the tile out. `ticket` and the states must be zero
/// at launch; `selected_total` is read (Rejected::in_order) or written (the
/// others). Thread 0 also starts the input of the tile `ahead` tickets later
/// on its way into L2 (prefetch_ahead()).
template <int Threads, int Items, Rejected Mode, class T, class Pred>
__global__ void __launch_bounds__(Threads)
    scatter_selected(const T* in, T* out, std::int64_t n, unsigned* ticket, ch10::PackedTileState<unsigned> state,
                     unsigned long long* selected_total, Pred pred, BackOff wait, unsigned ahead) {
  constexpr int kTileSize = Threads * Items;
  __shared__ ch11::WarpTileStorage<T, Threads, Items> storage;
  __shared__ T staged[kTileSize];
  __shared__ ch06::BlockScanStorage<unsigned> count_scan;
  __shared__ unsigned selected_before;
  const unsigned tile = ch09::take_ticket(ticket);
  const TileSpan span = tile_span(tile, kTileSize, n);
  prefetch_ahead(in, n, tile, kTileSize, ahead);

  T items[Items];
  ch11::WarpTileIo::load<Threads, Items>(in, span.start, span.valid, items, storage, T{});
  bool picked[Items];
  const unsigned count = pick(items, span.valid, pred, picked);
  unsigned tile_count;
  const unsigned before = ch06::block_exclusive_scan(count, Add{}, count_scan, tile_count);
  if (threadIdx.x < kWarpSize) {
    if (threadIdx.x == 0) state.publish(tile, tile == 0 ? Status::prefix : Status::aggregate, tile_count);
    unsigned prefix = 0;
    if (tile != 0) {
      wait.settle(tile);
      prefix = ch10::look_back_warp<unsigned>(state, tile, Add{}, wait);
      if (threadIdx.x == 0) state.publish(tile, Status::prefix, prefix + tile_count);
    }
    if (threadIdx.x == 0) selected_before = prefix;
  }
  // `staged` is the block's own: the gather may start while warp 0 still
  // looks back (scatter_tile() reads `selected_before` after its barrier).
  scatter_tile<Threads, Items, Mode>(out, n, span, items, picked, before, tile_count, selected_before,
                                     selected_total, staged);
}
// [scatter kernel]

// [ballot scatter]
/// The shape of ballot_scatter_selected(): 128 x 32, the fastest of five
/// shapes measured on the H100 with 1% kept (docs/lab/ch13-h100.md).
inline constexpr int kBallotThreads = 128;
/// Items per thread of ballot_scatter_selected(): 32, as many as the bits
/// of the word that holds a thread's picks.
inline constexpr int kBallotItems = 32;

/// One block per tile, like scatter_selected(), with no tile in shared
/// memory at all. Each warp owns a strip of 32 * Items consecutive
/// elements, and lane l holds the strip's elements l, 32 + l, 64 + l, ...
/// ("warp-striped"), loaded straight from global memory: every load of a
/// warp reads 128 consecutive bytes.
///
/// The rank comes from ballots instead of a gather. Row j of a strip is 32
/// consecutive elements, one per lane; one ballot tells every lane which
/// of the row are selected, and lane l's selected element goes
/// popc(ballot & lanes below l) places after the row's first. So the
/// selected elements of a row land next to each other in the output, as
/// do its rejected ones (whose rank is the lane's position minus its
/// selected rank): a row is stored with one instruction per run (one run
/// in compaction, two in the splits), each run contiguous and coalesced
/// like the staged scatter's, with nothing staged. Shared memory shrinks to a count per warp, so registers and
/// threads alone limit the blocks per SM: more tiles in flight to hide the
/// look-back, which is most of a tile's time when few elements are kept.
template <int Threads, int Items, Rejected Mode, class T, class Pred>
__global__ void __launch_bounds__(Threads)
    ballot_scatter_selected(const T* in, T* out, std::int64_t n, unsigned* ticket,
                            ch10::PackedTileState<unsigned> state, unsigned long long* selected_total, Pred pred,
                            BackOff wait, unsigned ahead) {
  static_assert(Items <= 32, "a thread's picks are the bits of one word");
  constexpr int kWarps = Threads / kWarpSize;
  __shared__ unsigned warp_selected[kWarps];
  __shared__ unsigned selected_before;
  const unsigned tile = ch09::take_ticket(ticket);
  const TileSpan span = tile_span(tile, Threads * Items, n);
  prefetch_ahead(in, n, tile, Threads * Items, ahead);
  const int warp = static_cast<int>(threadIdx.x) / kWarpSize;
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  const int strip = warp * kWarpSize * Items;  // the warp's first element, from the tile's start
  const unsigned lanes_below = (1u << lane) - 1u;

  // All loads first, so that Items of them are in flight at once.
  T items[Items];
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    const int at = strip + j * kWarpSize + lane;
    items[j] = at < span.valid ? in[span.start + at] : T{};
  }
  unsigned picked = 0;  // bit j: items[j] is selected
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    const int at = strip + j * kWarpSize + lane;
    if (at < span.valid && pred(items[j])) picked |= 1u << j;
  }
  const unsigned warp_count = __reduce_add_sync(kFullMask, static_cast<unsigned>(__popc(picked)));
  if (lane == 0) warp_selected[warp] = warp_count;
  __syncthreads();
  unsigned tile_count = 0;
  unsigned before_warp = 0;  // selected in the strips of the warps before this one
#pragma unroll
  for (int w = 0; w < kWarps; ++w) {
    before_warp += w < warp ? warp_selected[w] : 0u;
    tile_count += warp_selected[w];
  }
  if (warp == 0) {
    if (lane == 0) state.publish(tile, tile == 0 ? Status::prefix : Status::aggregate, tile_count);
    unsigned prefix = 0;
    if (tile != 0) {
      wait.settle(tile);
      prefix = ch10::look_back_warp<unsigned>(state, tile, Add{}, wait);
      if (lane == 0) state.publish(tile, Status::prefix, prefix + tile_count);
    }
    if (lane == 0) selected_before = prefix;
  }
  __syncthreads();

  // Selected and rejected elements before this warp's strip, in the whole array.
  const std::uint64_t selected = std::uint64_t{selected_before} + before_warp;
  const std::uint64_t rejected = static_cast<std::uint64_t>(span.start + strip) - selected;
  const std::uint64_t all_selected = Mode == Rejected::in_order ? *selected_total : 0;
  unsigned row_first = 0;  // selected in the strip's rows before row j
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    const bool mine = (picked >> j) & 1u;
    const unsigned row = __ballot_sync(kFullMask, mine);
    const unsigned rank = row_first + static_cast<unsigned>(__popc(row & lanes_below));
    const int at = strip + j * kWarpSize + lane;
    if (mine) {
      out[selected + rank] = items[j];
    } else if (Mode != Rejected::dropped && at < span.valid) {
      // Elements of the strip before this one, less the selected ones among them.
      const std::uint64_t behind = rejected + static_cast<unsigned>(j * kWarpSize + lane) - rank;
      const std::int64_t to = Mode == Rejected::reversed ? n - 1 - static_cast<std::int64_t>(behind)
                                                          : static_cast<std::int64_t>(all_selected + behind);
      out[to] = items[j];
    }
    row_first += static_cast<unsigned>(__popc(row));
  }
  if (Mode != Rejected::in_order && threadIdx.x == 0 && span.start + span.valid == n) {
    *selected_total = std::uint64_t{selected_before} + tile_count;
  }
}
// [ballot scatter]

// [bulk scatter]
/// A tile in shared memory whose element p lives at p ^ (p / 32 mod 32):
/// each row of 32 elements (one per bank) is permuted by its row number.
///
/// The gather of scatter_tile() has thread t write its selected items from
/// position `before`, about t * Items * (fraction kept): when nearly all
/// are kept, the 32 lanes of a warp write 16 (or 32) elements apart, into
/// two banks (or one), a 16-way (32-way) conflict on every store. Through
/// the swizzle, lane l's position 32 t + j lands in bank j xor (t mod 32),
/// and 16 t + j in bank 16 (l mod 2) + j, its low four bits flipped by l / 2:
/// a different bank for every lane. The rejected items, gathered from the
/// back, fare the same. Reading consecutive positions (the write loop)
/// permutes a row: no conflict either. The tile keeps its size, so the
/// gather can use a stage of the ring.
template <class T>
struct SwizzledTile {
  T* elements;  ///< the tile's storage
  /// Element p of the tile.
  __device__ __forceinline__ T& operator[](unsigned p) const { return elements[p ^ ((p / 32) % 32)]; }
};

/// A bulk scatter is shaped by a chapter 11 Recipe (the fields of a bulk
/// recipe: threads, items, stages, walk, windows, wait). This one is chapter
/// 11's `deterministic` recipe, its fastest for large inputs, without the
/// prefetch ahead: 256 x 16 tiles, 4 stages (three blocks per SM at 4-byte
/// elements), the grouped look-back reading 4 groups per trip, spinning.
inline constexpr ch11::Recipe kBulkGrouped =
    ch11::wide(4, ch11::bulk(256, 16, 4, ch10::kSpin, ch11::Walk::grouped));
/// The same with chapter 10's look-back (any published prefix ends it),
/// reading 4 windows per trip.
inline constexpr ch11::Recipe kBulkAnyPrefix =
    ch11::wide(4, ch11::bulk(256, 16, 4, ch10::kSpin, ch11::Walk::any_prefix));

/// Shared memory of bulk_scatter_selected(): chapter 11's ring (the stages,
/// their barriers and tile numbers; its other fields go unused), the block
/// scan of the counts and the count selected before the tile.
template <class T, int Threads, int Items, int Stages>
struct BulkScatterStorage {
  ch11::BulkStorage<T, Threads, Items, Stages> ring;  ///< the tiles in flight
  ch06::BlockScanStorage<unsigned> counts;             ///< the block scan of thread counts
  unsigned selected_before;                            ///< from the look-back, for the whole block
};

/// Chapter 11's persistent bulk kernel, scanning counts and scattering:
/// run_ring() with this tile job.
///
/// The ring thread loads the tiles with bulk copies into a ring of
/// `Stages` shared-memory stages, so the reads of the next tiles are under
/// way while this one is counted, looked back for and written. For each
/// tile k the block
///  1. (as soon as tile k + 1 has landed) counts tile k + 1's selected
///     items, scans the counts and publishes tile k + 1's count: a look-back
///     of another block never waits for a tile this block already holds;
///  2. looks back for tile k (warp 0), while every thread reads tile k's
///     items out of their stage again and picks them again (cheaper than
///     keeping them: registers are what limits the blocks per SM);
///  3. gathers tile k's selected items in the stage itself, which its
///     items have just left (no second tile of shared memory, so the ring
///     keeps its blocks per SM), through a swizzle that spares the gather
///     its bank conflicts (SwizzledTile), and writes them as one coalesced
///     run: scatter_tile(), the same code as the per-tile kernel's.
/// Only the input travels in bulk: the output runs start anywhere, so the
/// threads write them (kStoresInBulk is false). Tiles whose input cannot
/// travel in bulk (the last, partial one, or an input not 16-byte aligned)
/// are read by the threads.
template <int Threads, int Items, int Stages, class Walker, Rejected Mode, class T, class Pred>
struct ScatterTileJob {
  using Tiles = ch11::BulkTiles<Threads, Items, Stages, T>;        ///< chapter 11's ring
  using Storage = BulkScatterStorage<T, Threads, Items, Stages>;  ///< the block's shared memory
  /// What a thread keeps of a tile from its count to its scatter.
  struct Carry {
    unsigned before;  ///< selected items of the tile before this thread's
    unsigned count;   ///< selected items of the tile
  };
  /// A thread's items of the tile, picked again while warp 0 looks back.
  struct Held {
    T items[Items];      ///< the items
    bool picked[Items];  ///< which are selected
    TileSpan span;       ///< where the tile lies
  };
  static constexpr bool kStoresInBulk = false;  ///< the threads write the runs

  Tiles ring;                                ///< the ring, in shared.ring
  Storage& shared;                           ///< the block's shared memory
  unsigned* ticket;                          ///< the tile counter
  ch10::PackedTileState<unsigned> state;     ///< the tiles' counts
  unsigned long long* selected_total;        ///< where the last tile writes the total
  Pred pred;                                 ///< what is selected
  BackOff wait;                              ///< how a look-back waits

  /// The ring thread: the next ticket's tile into `stage`.
  __device__ void refill(int stage) const { ring.refill(stage, ticket); }
  /// Step 1: the tile's count, published, and each thread's count of
  /// selected items before its own.
  __device__ Carry reduce(unsigned tile, int stage) const {
    T items[Items];
    bool picked[Items];
    ring.template read<Add>(tile, stage, items);
    const unsigned mine = pick(items, tile_span(tile, Tiles::kTile, ring.n).valid, pred, picked);
    Carry c;
    c.before = ch06::block_exclusive_scan(mine, Add{}, shared.counts, c.count);
    if (threadIdx.x == 0) {
      state.publish(tile, tile == 0 && !Walker::kGrouped ? Status::prefix : Status::aggregate, c.count);
    }
    return c;
  }
  /// Step 2 (warp 0): the count selected before the tile, into shared memory.
  __device__ void look_back(unsigned tile, const Carry& c) const {
    unsigned prefix = 0;
    if (tile != 0 || Walker::kGrouped) {
      wait.settle(tile);
      const ch11::Resolved<unsigned> r = Walker::template resolve<unsigned>(state, tile, c.count, Add{}, wait, 0u);
      if (threadIdx.x == 0 && r.publish) state.publish(tile, Status::prefix, r.inclusive);
      prefix = r.exclusive;
    }
    if (threadIdx.x == 0) shared.selected_before = prefix;
  }
  /// Step 2 for every thread: its items out of the stage again, picked.
  __device__ Held hold(unsigned tile, int stage, const Carry&) const {
    Held h;
    ring.template read<Add>(tile, stage, h.items);
    h.span = tile_span(tile, Tiles::kTile, ring.n);
    (void)pick(h.items, h.span.valid, pred, h.picked);
    return h;
  }
  /// Step 3: gather in the stage and write the runs.
  __device__ void finish(unsigned, int stage, const Carry& c, const Held& h) const {
    scatter_tile<Threads, Items, Mode>(ring.out, ring.n, h.span, h.items, h.picked, c.before, c.count,
                                       shared.selected_before, selected_total,
                                       SwizzledTile<T>{shared.ring.stage[stage]});
    // The gather wrote the stage through ordinary stores; a bulk copy will
    // write it again. This fence orders the two (they are different
    // "proxies" of shared memory); the barriers of the next iteration then
    // come before the ring thread refills it.
    ch11::tma::fence_shared_writes();
  }
};

/// The persistent bulk scatter: run_ring() with ScatterTileJob. `ticket`
/// and the tile states must be zero at launch.
template <int Threads, int Items, int Stages, class Walker, Rejected Mode, class T, class Pred>
__global__ void __launch_bounds__(Threads)
    bulk_scatter_selected(const T* in, T* out, std::int64_t n, unsigned* ticket,
                          ch10::PackedTileState<unsigned> state, unsigned long long* selected_total, Pred pred,
                          BackOff wait) {
  using Job = ScatterTileJob<Threads, Items, Stages, Walker, Mode, T, Pred>;
  using Tiles = typename Job::Tiles;
  auto& shared = *dynamic_shared<typename Job::Storage>();
  // The output is written by the threads, so only the input's alignment counts.
  Job job{Tiles{shared.ring, in, out, n, static_cast<unsigned>(ceil_div<std::int64_t>(n, Tiles::kTile)),
                reinterpret_cast<std::uintptr_t>(in) % 16 == 0,
                0},  // no prefetch ahead: with it, this kernel measured about 2% slower (docs/lab/ch13-h100.md)
          shared, ticket, state, selected_total, pred, wait};
  ch11::run_ring<Stages, false>(job);
}
// [bulk scatter]

/// Counts, for every bit b, the keys whose bit b is 1 (`ones[b]`, which
/// must be zero at launch): the totals every split of a radix sort needs,
/// all in one read of the keys. A warp counts 32 keys per bit with one
/// ballot and one popc.
__global__ void count_ones_per_bit(const std::uint32_t* keys, std::int64_t n, unsigned long long* ones);

/// Counts the elements `pred` selects into `*selected` (zero at launch).
template <class T, class Pred>
__global__ void count_selected(const T* in, std::int64_t n, unsigned long long* selected, Pred pred) {
  unsigned long long mine = 0;
  for (std::int64_t i = global_thread_index(); i < n; i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    mine += pred(in[i]);
  }
  for (int offset = 16; offset > 0; offset /= 2) mine += __shfl_down_sync(kFullMask, mine, offset);
  if (threadIdx.x % kWarpSize == 0 && mine != 0) atomicAdd(selected, mine);
}

// ---------------------------------------------------------------------------
// First-order linear recurrences: a scan over affine maps.

// [affine maps]
/// The affine map x -> a x + b over floats.
struct Affine {
  float a;  ///< slope
  float b;  ///< offset
};

/// Composition of affine maps, "first f, then g": scan::AffineCompose (the
/// tests' non-commutative operator, common/core/include/scan/ops.hpp, which
/// chapter 01 introduces) over real numbers. x_i = a_i x_{i-1} + b_i is the composition of the
/// maps 0..i applied to x_{-1} = 0, so its b half is x_i.
struct Compose {
  /// g(f(x)) = (a_g a_f) x + (a_g b_f + b_g).
  __host__ __device__ Affine operator()(const Affine& f, const Affine& g) const {
    return {g.a * f.a, fmaf(g.a, f.b, g.b)};
  }
  /// The identity map x -> x.
  __host__ __device__ static Affine identity() { return {1.0f, 0.0f}; }
};
// [affine maps]

// ---------------------------------------------------------------------------
// The launches, as a program calls them: device pointers, scratch memory
// allocated beforehand (the *_scratch_bytes functions), nothing synchronized.

/// Scratch bytes the scatter launches need for n elements (with any ScatterKernel).
std::size_t scatter_scratch_bytes(std::int64_t n);

/// Stream compaction: writes the elements of in[0, n) that `keep` selects to
/// `out`, in order, and their number to `*kept` (device memory). T: a
/// 4-byte type. n below 2^32 (the counts are 32-bit). The ballot kernel by
/// default: the only one ahead of cub::DeviceSelect::If with 1%, half and
/// 99% kept alike (docs/lab/ch13-h100.md).
template <class T>
void select_if(const T* in, T* out, std::int64_t n, KeepBelow keep, unsigned long long* kept, void* scratch,
               cudaStream_t stream, ScatterKernel kernel = ScatterKernel::ballot);

/// The split of a radix sort: the keys whose bit `bit` is 0, then those
/// whose bit is 1, each in input order. `zeros` (device memory) receives
/// the number of zeros; pass `counted` to use that count as given (made by
/// count_ones_per_bit: zeros = n - ones) instead of counting first.
void split_by_bit(const std::uint32_t* in, std::uint32_t* out, std::int64_t n, int bit, unsigned long long* zeros,
                  bool counted, void* scratch, cudaStream_t stream, ScatterKernel kernel = ScatterKernel::bulk);

/// cub::DevicePartition::If's contract, in one pass: the keys whose bit
/// `bit` is 0 in order, then the others from the end backwards (not stable).
void partition_by_bit(const std::uint32_t* in, std::uint32_t* out, std::int64_t n, int bit,
                      unsigned long long* zeros, void* scratch, cudaStream_t stream,
                      ScatterKernel kernel = ScatterKernel::bulk);

/// Scratch bytes radix_sort() needs for n keys.
std::size_t sort_scratch_bytes(std::int64_t n);

/// An LSD radix sort of 32-bit keys from 32 splits, one bit at a time: one
/// read of the keys counts every bit, then each split moves every key once.
/// `keys` is sorted in place (through a second buffer in the scratch).
void radix_sort(std::uint32_t* keys, std::int64_t n, void* scratch, cudaStream_t stream,
                ScatterKernel kernel = ScatterKernel::bulk);

/// Scratch bytes linear_recurrence() needs for n elements.
std::size_t recurrence_scratch_bytes(std::int64_t n);

/// x_i = a_i x_{i-1} + b_i (x_{-1} = 0) for i in [0, n), restarting at
/// every `row` elements (0: one sequence; otherwise a multiple of kTile).
void linear_recurrence(const float* a, const float* b, float* x, std::int64_t n, std::int64_t row, void* scratch,
                       cudaStream_t stream);

}  // namespace scan::ch13
