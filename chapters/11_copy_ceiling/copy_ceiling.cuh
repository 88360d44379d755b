/// \file
/// \brief Chapter 11: engineering the look-back scan to the copy's speed.
///
/// Chapter 10 built the algorithm. This chapter changes how it meets the
/// hardware, one measured step at a time: warp-private transposes, the
/// tile shape, waiting before looking back, then a persistent kernel that
/// loads tiles with the Hopper bulk-copy engine (TMA) through a ring of
/// shared-memory stages and publishes the next tile's aggregate before it
/// looks back for the current one. Two more problems get their own answer:
/// 8-byte types, whose status and value do not fit one 64-bit word, and
/// float sums that must be bitwise the same on every run.
#pragma once

#include "coarsening.cuh"          // chapter 07: the tile pieces
#include "decoupled_lookback.cuh"  // chapter 10: tile states, look-backs, the per-tile kernel
#include "stream_scan.cuh"         // chapter 09: take_ticket
#include "warp_shuffle.cuh"           // chapter 06: warp and block scans
#include "bulk_copy.cuh"           // this chapter: the PTX of bulk copies and mbarriers

#include <scan/device.cuh>
#include <scan/registry.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>
#include <type_traits>

namespace scan::ch11 {

/// The chapter's variants.
const Chapter& chapter();

/// What this chapter's kernels, and those of chapters 12 to 14 built on
/// them, need of the GPU: the bulk copies and mbarriers of bulk_copy.cuh
/// exist from Hopper (sm_90) on. The build compiles these chapters for sm_90
/// and newer only; their programs check this before any kernel runs.
inline const ArchitectureNeed kNeedsHopper{90, "a Hopper GPU", "bulk copies and mbarriers",
                                           "Chapters 00 to 10 run here."};

using ch10::BackOff;
using ch10::Status;

// ---------------------------------------------------------------------------
// Step 1: each warp moves its own part of the tile.

/// Shared memory of a tile moved warp by warp: a private exchange slice per
/// warp, with the same padding as chapter 07's, and the block scan's
/// storage. Unlike chapter 07's TileStorage they must not share bytes: one
/// warp may still regroup its slice while another already writes its warp
/// total.
template <class T, int Threads, int Items>
struct WarpTileStorage {
  static constexpr int kWarpItems = kWarpSize * Items;        ///< elements per warp
  static constexpr int kSliceSlots = kWarpItems + kWarpItems / 32;  ///< with one spare slot per 32
  T exchange[Threads / kWarpSize][kSliceSlots];               ///< one slice per warp
  ch06::BlockScanStorage<T> scan;                                   ///< the block scan of thread totals
};

// [warp tile]
/// Loads this warp's 32 x Items elements of the tile at `start` (blocked:
/// lane l gets the warp's elements l * Items ...), padding past `valid`.
/// Full tiles travel as 16-byte vectors, consecutive across the warp.
template <int Threads, int Items, class T>
__device__ __forceinline__ void load_warp_tile(const T* in, std::int64_t start, int valid, T (&items)[Items],
                                               T* slice, T padding) {
  constexpr int kWarpItems = kWarpSize * Items;
  constexpr int kWidth = kVectorItems<T>;
  static_assert(Items % kWidth == 0, "whole vectors per thread");
  const int lane = threadIdx.x % kWarpSize;
  const int first = threadIdx.x / kWarpSize * kWarpItems;  // the warp's first element in the tile
  if (valid == Threads * Items && reinterpret_cast<std::uintptr_t>(in) % 16 == 0) {
    const auto* vectors = reinterpret_cast<const Vector<T>*>(in + start + first);
#pragma unroll
    for (int v = 0; v < Items / kWidth; ++v) {
      const Vector<T> loaded = vectors[v * kWarpSize + lane];
#pragma unroll
      for (int k = 0; k < kWidth; ++k) {
        slice[ch07::exchange_slot((v * kWarpSize + lane) * kWidth + k)] = loaded.values[k];
      }
    }
  } else {
#pragma unroll
    for (int j = 0; j < Items; ++j) {
      const int e = j * kWarpSize + lane;
      slice[ch07::exchange_slot(e)] = first + e < valid ? in[start + first + e] : padding;
    }
  }
  __syncwarp();  // the warp's writes to its slice land before any lane reads them back (no block barrier)
#pragma unroll
  for (int j = 0; j < Items; ++j) items[j] = slice[ch07::exchange_slot(lane * Items + j)];
}
// [warp tile]

/// Stores this warp's items (blocked) to the tile at `start`, its first
/// `valid` elements only: the mirror image of load_warp_tile().
template <int Threads, int Items, class T>
__device__ __forceinline__ void store_warp_tile(T* out, std::int64_t start, int valid, const T (&items)[Items],
                                                T* slice) {
  constexpr int kWarpItems = kWarpSize * Items;
  constexpr int kWidth = kVectorItems<T>;
  const int lane = threadIdx.x % kWarpSize;
  const int first = threadIdx.x / kWarpSize * kWarpItems;
  __syncwarp();  // every lane has read its items out of the slice (load_warp_tile)
#pragma unroll
  for (int j = 0; j < Items; ++j) slice[ch07::exchange_slot(lane * Items + j)] = items[j];
  __syncwarp();
  if (valid == Threads * Items && reinterpret_cast<std::uintptr_t>(out) % 16 == 0) {
    auto* vectors = reinterpret_cast<Vector<T>*>(out + start + first);
#pragma unroll
    for (int v = 0; v < Items / kWidth; ++v) {
      Vector<T> packed;
#pragma unroll
      for (int k = 0; k < kWidth; ++k) {
        packed.values[k] = slice[ch07::exchange_slot((v * kWarpSize + lane) * kWidth + k)];
      }
      vectors[v * kWarpSize + lane] = packed;
    }
  } else {
#pragma unroll
    for (int j = 0; j < Items; ++j) {
      const int e = j * kWarpSize + lane;
      if (first + e < valid) out[start + first + e] = slice[ch07::exchange_slot(e)];
    }
  }
}

/// The warp-by-warp tile mover, with chapter 10's BlockTileIo interface.
struct WarpTileIo {
  /// Shared memory the mover needs, with a block scan's storage.
  template <class T, int Threads, int Items>
  using Storage = WarpTileStorage<T, Threads, Items>;

  /// Loads the tile at `start` into `items` (blocked arrangement).
  template <int Threads, int Items, class T, class S>
  __device__ __forceinline__ static void load(const T* in, std::int64_t start, int valid, T (&items)[Items],
                                              S& storage, T padding) {
    load_warp_tile<Threads, Items>(in, start, valid, items, storage.exchange[threadIdx.x / kWarpSize],
                                   padding);
  }
  /// Called as the block takes a tile: nothing to do (see PrefetchingIo).
  template <int Tile, class T>
  __device__ __forceinline__ static void taken(const T*, std::int64_t, unsigned) {}
  /// Stores `items` (blocked arrangement) to the tile at `start`.
  template <int Threads, int Items, class T, class S>
  __device__ __forceinline__ static void store(T* out, std::int64_t start, int valid, const T (&items)[Items],
                                               S& storage) {
    store_warp_tile<Threads, Items>(out, start, valid, items, storage.exchange[threadIdx.x / kWarpSize]);
  }
};

// ---------------------------------------------------------------------------
// 8-byte types: status and value in one 16-byte word.

// [wide state]
/// Tile states for 8-byte T in one aligned 16-byte word per tile: the
/// status in the first 8 bytes, the value in the second. Hopper (sm_90)
/// loads and stores 16 bytes with one instruction of PTX's 128-bit type,
/// `ld.relaxed.gpu.global.b128` and `st.relaxed.gpu.global.b128`, a single
/// memory access, so like the packed state of chapter 10 a reader sees a
/// status and its value from the same store. The two instructions are
/// written here in inline PTX.
template <class T>
struct WideTileState {
  static_assert(sizeof(T) == 8, "a 16-byte word holds an 8-byte status and an 8-byte value");
  /// One tile's state.
  struct alignas(16) Word {
    unsigned long long status;  ///< a Status
    unsigned long long value;   ///< the value's bits
  };
  Word* words;  ///< per tile

  /// Publishes the tile's aggregate or inclusive prefix.
  __device__ void publish(unsigned tile, Status what, const T& value) const {
    unsigned long long bits;
    std::memcpy(&bits, &value, sizeof bits);
    const auto status = static_cast<unsigned long long>(what);
    asm volatile(
        "{\n\t.reg .b128 word;\n\tmov.b128 word, {%1, %2};\n\tst.relaxed.gpu.global.b128 [%0], word;\n\t}" ::"l"(
            words + tile),
        "l"(status), "l"(bits)
        : "memory");
  }
  /// Reads a tile's status and value in one load.
  __device__ Status load(unsigned tile, T& value) const {
    unsigned long long status, bits;
    asm volatile("{\n\t.reg .b128 word;\n\tld.relaxed.gpu.global.b128 word, [%2];\n\tmov.b128 {%0, %1}, word;\n\t}"
                 : "=l"(status), "=l"(bits)
                 : "l"(words + tile)
                 : "memory");
    std::memcpy(&value, &bits, sizeof value);
    return static_cast<Status>(status);
  }
};
// [wide state]

/// How a tile's status and value are kept.
enum class StateKind {
  split,   ///< chapter 10's status word and value slots, release/acquire (any T)
  packed,  ///< one word: 64 bits for 4-byte T, 128 bits for 8-byte T; split for other sizes
};

/// The tile state a StateKind gives for T.
template <StateKind Kind, class T>
using TileState = std::conditional_t<
    Kind == StateKind::packed && sizeof(T) == 4, ch10::PackedTileState<T>,
    std::conditional_t<Kind == StateKind::packed && sizeof(T) == 8, WideTileState<T>, ch10::SplitTileState<T>>>;

/// Takes the ticket and tile states for `tiles` tiles from `workspace`
/// (chapter 10's layout, plus the 16-byte words).
template <class State, class T>
ch10::LaunchState<State> take_states(Workspace& workspace, std::size_t tiles) {
  if constexpr (std::is_same_v<State, WideTileState<T>>) {
    unsigned* ticket = workspace.take<unsigned>(1);
    auto* words = workspace.take<typename WideTileState<T>::Word>(tiles);
    const std::size_t reset =
        ticket == nullptr ? 0
                          : static_cast<std::size_t>(reinterpret_cast<const char*>(words + tiles) -
                                                     reinterpret_cast<const char*>(ticket));
    return {ticket, State{words}, reset};
  } else {
    return ch10::take_launch_state<State, T>(workspace, tiles);
  }
}

// ---------------------------------------------------------------------------
// How a look-back resolves a tile, for this chapter's persistent kernels.

/// What a tile learns from its look-back.
template <class T>
struct Resolved {
  T exclusive;  ///< the combination of every element before the tile
  T inclusive;  ///< ... and of the tile's own: its inclusive prefix
  bool publish; ///< whether to publish `inclusive` for others
};

// [wide look-back]
/// Chapter 10's warp look-back, reading `Windows` windows of 32 tiles per
/// trip to memory instead of one.
///
/// A look-back may walk several windows, one trip to L2 each, and the walk
/// is what keeps a tile waiting: prefixes reach the newest tiles only as
/// fast as the look-backs before them finish. Here each lane loads one state from each of
/// `Windows` windows at once (the loads are independent, so they travel
/// together); the windows are then combined nearest first, exactly as
/// chapter 10 does, waiting only on the windows actually needed. Every
/// lane of the calling warp must call it; all get the result.
template <int Windows, class T, class Op, class State>
__device__ T look_back_wide(const State& state, unsigned tile, Op op, BackOff wait) {
  constexpr int kSpan = Windows * kWarpSize;  // tiles per trip
  const int lane = threadIdx.x % kWarpSize;
  T prefix = Op::template identity<T>();
  for (long long end = tile;; end -= kSpan) {
    T values[Windows];
    Status statuses[Windows];
#pragma unroll
    for (int w = 0; w < Windows; ++w) {  // window w ends (w * 32) tiles before `end`
      const long long j = end - (w + 1) * kWarpSize + lane;
      values[w] = Op::template identity<T>();  // before tile 0: the identity, as a prefix
      statuses[w] = j >= 0 ? state.load(static_cast<unsigned>(j), values[w]) : Status::prefix;
    }
#pragma unroll
    for (int w = 0; w < Windows; ++w) {
      const long long j = end - (w + 1) * kWarpSize + lane;
      unsigned nap_ns = wait.first_nap_ns;
      while (statuses[w] == Status::empty) {
        wait.nap(nap_ns);
        statuses[w] = state.load(static_cast<unsigned>(j), values[w]);
      }
      const unsigned prefix_lanes = __ballot_sync(kFullMask, statuses[w] == Status::prefix);
      const int stop = prefix_lanes != 0 ? 31 - __clz(prefix_lanes) : -1;
      const T value = lane < stop ? Op::template identity<T>() : values[w];
      const T window = __shfl_sync(kFullMask, ch06::warp_inclusive_scan(value, op), 31);
      prefix = op(window, prefix);
      if (prefix_lanes != 0) return prefix;
    }
  }
}
// [wide look-back]

/// The wide look-back as chapter 10's per-tile kernel takes a walk.
template <int Windows>
struct WideLookBack {
  /// The combination of every element before tile `tile` (in every lane).
  template <class T, class Op, class State>
  __device__ __forceinline__ static T prefix(const State& state, unsigned tile, Op op, BackOff wait) {
    return look_back_wide<Windows, T>(state, tile, op, wait);
  }
};

/// The wide look-back for this chapter's persistent kernels: any published
/// inclusive prefix ends it, and a window is combined with a scan tree
/// whose shape depends on where that prefix was found. Fast, but float
/// sums vary from run to run.
template <int Windows>
struct AnyPrefixWalk {
  static constexpr bool kGrouped = false;  ///< tile 0 publishes its prefix at once
  /// The look-back for tile `tile` > 0, by a whole warp.
  template <class T, class Op, class State>
  __device__ __forceinline__ static Resolved<T> resolve(const State& state, unsigned tile, T aggregate, Op op,
                                                        BackOff wait, T /*seed: tile 0 published it*/) {
    const T exclusive = look_back_wide<Windows, T>(state, tile, op, wait);
    return {exclusive, op(exclusive, aggregate), true};
  }
};

// [grouped look-back]
/// A look-back whose float sums are the same on every run.
///
/// Every prefix is defined by one fixed association, whatever the timing.
/// Tiles form groups of 32. Within group g, the prefix of tile 32g + l
/// combines the group's aggregates with a warp scan (chapter 06's tree, the
/// same tree every time), lane l's result \f$ S_g(l) \f$. Between groups it
/// is a chain: the *group prefix* \f$ G_g = G_{g-1} \oplus S_g(31) \f$,
/// with \f$ G_{-1} \f$ the identity. So tile 32g + l's exclusive prefix is
/// \f$ G_{g-1} \oplus S_g(l - 1) \f$ (just \f$ G_{g-1} \f$ for l = 0).
///
/// Only the last tile of a group publishes an inclusive prefix (its
/// \f$ G_g \f$); the others publish their aggregate alone, which the
/// tiles after them in the group need. A tile gathers the aggregates before
/// it in its group (one window), and finds \f$ G_{g-1} \f$: published by
/// the previous group's last tile, or else computed from an earlier group
/// prefix and the group totals in between, in the same order and with the
/// same tree that the last tile of each group uses. Chapter 10's look-back
/// may stop at any tile's prefix and combines a window with a tree that
/// depends on where it stopped: its sums vary in the last bits.
template <int Batch>
struct GroupedWalk {
  static constexpr bool kGrouped = true;  ///< tile 0 publishes its aggregate like any tile

  /// The total \f$ S_h(31) \f$ of the whole group of tiles `first` ... `first` + 31,
  /// given each lane's state of it, or its group prefix if its last tile has
  /// published one (`is_prefix`). Waits for the group's empty states.
  template <class T, class Op, class State>
  __device__ __forceinline__ static T group_total(const State& state, unsigned first, Status s, T value, Op op,
                                                  BackOff wait, bool& is_prefix) {
    const int lane = threadIdx.x % kWarpSize;
    unsigned nap_ns = wait.first_nap_ns;
    while (s == Status::empty) {
      wait.nap(nap_ns);
      s = state.load(first + lane, value);
    }
    is_prefix = __shfl_sync(kFullMask, s == Status::prefix, 31);
    if (is_prefix) return __shfl_sync(kFullMask, value, 31);
    // Lanes 0..30 hold aggregates (tile 0's "prefix" is its aggregate too).
    return __shfl_sync(kFullMask, ch06::warp_inclusive_scan(value, op), 31);
  }

  /// \f$ G_{g-1} \f$ for the group that starts at tile `first`;
  /// \f$ G_{-1} \f$ is `seed`, what comes before the whole array.
  template <class T, class Op, class State>
  __device__ static T group_prefix_before(const State& state, unsigned first, Op op, BackOff wait, T seed) {
    constexpr int kBatch = Batch;  // groups loaded per trip to memory, as in look_back_wide()
    const int lane = threadIdx.x % kWarpSize;
    T running = seed;
    // Walk back to a group whose prefix is published (or past group 0),
    // keeping the totals of the groups passed: lane c holds the c-th
    // nearest (for the first 32; farther ones are loaded again below).
    unsigned from = first;
    bool found = false;
    int walked = 0;
    T totals = running;
    while (from != 0 && !found) {
      T values[kBatch];
      Status statuses[kBatch];
#pragma unroll
      for (int b = 0; b < kBatch; ++b) {
        const long long group = static_cast<long long>(from) - (b + 1) * kWarpSize;
        statuses[b] = group >= 0 ? state.load(static_cast<unsigned>(group) + lane, values[b]) : Status::prefix;
      }
#pragma unroll
      for (int b = 0; b < kBatch; ++b) {
        if (from == 0 || found) break;
        from -= kWarpSize;
        const T total = group_total<T>(state, from, statuses[b], values[b], op, wait, found);
        if (found) {
          running = total;
        } else {
          if (lane == walked) totals = total;
          ++walked;
        }
      }
    }
    // Chain the totals forwards from there, as each group's last tile does.
    unsigned group = found ? from + kWarpSize : from;
    for (int c = walked - 1; group < first; group += kWarpSize, --c) {
      if (c < kWarpSize) {
        running = op(running, __shfl_sync(kFullMask, totals, c));
      } else {
        T value;
        const Status s = state.load(group + lane, value);
        bool published = false;
        const T total = group_total<T>(state, group, s, value, op, wait, published);
        running = published ? total : op(running, total);
      }
    }
    return running;
  }

  /// The look-back for tile `tile`, by a whole warp; `seed` comes before tile 0.
  template <class T, class Op, class State>
  __device__ static Resolved<T> resolve(const State& state, unsigned tile, T aggregate, Op op, BackOff wait,
                                        T seed) {
    const int lane = threadIdx.x % kWarpSize;
    const unsigned first = tile - tile % kWarpSize;
    const int position = static_cast<int>(tile - first);
    // The aggregates before this tile in its group, then its own.
    T mine = Op::template identity<T>();
    if (lane < position) {
      unsigned nap_ns = wait.first_nap_ns;
      while (state.load(first + lane, mine) == Status::empty) wait.nap(nap_ns);
    }
    if (lane == position) mine = aggregate;
    const T within = ch06::warp_inclusive_scan(mine, op);  // lane l: S_g(l), for l <= position
    const T before_me = __shfl_sync(kFullMask, within, position > 0 ? position - 1 : 0);
    const T through_me = __shfl_sync(kFullMask, within, position);
    const T base = group_prefix_before<T>(state, first, op, wait, seed);
    return {position == 0 ? base : op(base, before_me), op(base, through_me), position == kWarpSize - 1};
  }
};
// [grouped look-back]

/// No look-back at all: every tile is scanned on its own (a tile-wise scan,
/// not a full one). It measures what the rest of a kernel costs.
struct NoWalk {
  static constexpr bool kGrouped = true;  ///< tile 0 publishes its aggregate like any tile
  /// The identity, at once.
  template <class T, class Op, class State>
  __device__ __forceinline__ static Resolved<T> resolve(const State&, unsigned, T aggregate, Op, BackOff, T) {
    return {Op::template identity<T>(), aggregate, false};
  }
};

/// How a persistent kernel's look-back combines.
enum class Walk {
  any_prefix,  ///< AnyPrefixWalk: chapter 10's, `windows` windows per trip
  grouped,     ///< GroupedWalk: bitwise the same on every run, `windows` groups per trip
  none,        ///< NoWalk: a tile-wise scan, to measure the rest of the kernel
};

/// The walk type for a Walk with `Windows` windows per trip.
template <Walk W, int Windows>
using WalkOf = std::conditional_t<W == Walk::grouped, GroupedWalk<Windows>,
                                  std::conditional_t<W == Walk::none, NoWalk, AnyPrefixWalk<Windows>>>;

// ---------------------------------------------------------------------------
// The bulk-copy pipeline (Hopper's TMA, sm_90; the PTX wrappers are in
// bulk_copy.cuh).

// [prefetch ahead]
/// Starts moving elements [first, first + count) of `in` into L2 with one
/// bulk prefetch, and returns at once: a hint, which changes no result.
/// Elements past n are left out, and so are the bytes before the first and
/// after the last 16-byte boundary of the range (the bulk engine moves
/// aligned blocks of 16 bytes; the ordinary loads fetch those edges).
template <class T>
__device__ void prefetch_range_l2(const T* in, std::int64_t n, std::int64_t first, std::int64_t count) {
  if (first >= n) return;
  const auto begin = reinterpret_cast<std::uintptr_t>(in + first);
  const auto end = reinterpret_cast<std::uintptr_t>(in + (count < n - first ? first + count : n));
  const std::uintptr_t aligned_begin = (begin + 15) & ~std::uintptr_t{15};
  const std::uintptr_t aligned_end = end & ~std::uintptr_t{15};
  if (aligned_end > aligned_begin) {
    const auto bytes = static_cast<unsigned>(aligned_end - aligned_begin);
    tma::prefetch_l2(reinterpret_cast<const void*>(aligned_begin), bytes);
  }
}

/// The tiles between the one a block takes and the one it prefetches, for
/// `ahead_bytes` of input in tiles of `tile` elements of T (0: none).
template <class T>
__host__ __device__ constexpr unsigned tiles_ahead(std::size_t ahead_bytes, int tile) {
  return static_cast<unsigned>(ahead_bytes / (static_cast<std::size_t>(tile) * sizeof(T)));
}

/// A tile mover (`Mover`: chapter 10's BlockTileIo or WarpTileIo) whose
/// block, as it takes tile k, has thread 0 start the input AheadBytes
/// further on into L2. The block that takes that ticket later finds its
/// loads in L2: the memory keeps reading while blocks sit in look-backs.
template <class Mover, std::size_t AheadBytes>
struct PrefetchingIo : Mover {
  /// Starts tile `tile`'s successor `AheadBytes` on into L2 (thread 0).
  template <int Tile, class T>
  __device__ __forceinline__ static void taken(const T* in, std::int64_t n, unsigned tile) {
    constexpr unsigned kAhead = tiles_ahead<T>(AheadBytes, Tile);
    static_assert(kAhead > 0, "prefetch at least one tile ahead");
    if (threadIdx.x == 0) prefetch_range_l2(in, n, (std::int64_t{tile} + kAhead) * Tile, Tile);
  }
};
// [prefetch ahead]

// [stage access]
/// A thread's Items consecutive elements of a tile in shared memory, read
/// or written as 16-byte vectors.
///
/// Thread t's elements start at vector t * V (V = vectors per thread). A
/// warp's 16-byte accesses are served eight lanes at a time, and eight
/// lanes are conflict-free when they touch the eight 16-byte bank groups
/// (128 bytes) once each. In round j every lane touches its vector j, in
/// bank group (t * V + j) mod 8:
///  - V odd (a tile of 128 x 36 int32: V = 9): t * V mod 8 takes all eight
///    values for eight consecutive lanes, so the plain order is
///    conflict-free, with indices known at compile time;
///  - V a power of two (128 x 32 int32: V = 8): all lanes of a round hit
///    the same group. Each lane starts its round-robin at a different
///    vector (`first`), chosen so that every round covers the eight groups
///    equally. The vector a round touches is then known only at run time,
///    so it is moved into place with selects, not array indexing (which
///    would put `items` in local memory): about V * V * 4 selects per pass,
///    work the SMs of a GPU with fast memory notice (the chapter's step 6);
///  - any other V (twice an odd number, for 8-byte types): the plain order,
///    with two-way conflicts.
template <int Items, class T>
struct StageAccess {
  static constexpr int kWidth = kVectorItems<T>;    ///< elements per vector
  static constexpr int kVectors = Items / kWidth;   ///< vectors per thread
  static_assert(Items % kWidth == 0, "whole vectors per thread");
  /// Whether the lanes rotate (V a power of two, more than one).
  static constexpr bool kRotate = kVectors > 1 && (kVectors & (kVectors - 1)) == 0;

  /// The vector this thread touches first (when the lanes rotate).
  __device__ __forceinline__ static int first() {
    const int t = threadIdx.x;
    return kVectors >= 8 ? t % kVectors : (t / (8 / kVectors)) % kVectors;
  }
  /// Reads this thread's items from `tile` (a tile in shared memory).
  __device__ __forceinline__ static void read(const T* tile, T (&items)[Items]) {
    const auto* vectors = reinterpret_cast<const Vector<T>*>(tile) + threadIdx.x * kVectors;
    if constexpr (!kRotate) {
#pragma unroll
      for (int v = 0; v < kVectors; ++v) {
        const Vector<T> loaded = vectors[v];
#pragma unroll
        for (int k = 0; k < kWidth; ++k) items[v * kWidth + k] = loaded.values[k];
      }
    } else {
      const int start = first();
#pragma unroll
      for (int round = 0; round < kVectors; ++round) {
        const int v = (start + round) % kVectors;
        const Vector<T> loaded = vectors[v];
#pragma unroll
        for (int c = 0; c < kVectors; ++c) {
          if (c == v) {
#pragma unroll
            for (int k = 0; k < kWidth; ++k) items[c * kWidth + k] = loaded.values[k];
          }
        }
      }
    }
  }
  /// Writes this thread's items to `tile`, in the same order.
  __device__ __forceinline__ static void write(T* tile, const T (&items)[Items]) {
    auto* vectors = reinterpret_cast<Vector<T>*>(tile) + threadIdx.x * kVectors;
    if constexpr (!kRotate) {
#pragma unroll
      for (int v = 0; v < kVectors; ++v) {
        Vector<T> packed;
#pragma unroll
        for (int k = 0; k < kWidth; ++k) packed.values[k] = items[v * kWidth + k];
        vectors[v] = packed;
      }
    } else {
      const int start = first();
#pragma unroll
      for (int round = 0; round < kVectors; ++round) {
        const int v = (start + round) % kVectors;
        Vector<T> packed;
#pragma unroll
        for (int k = 0; k < kWidth; ++k) packed.values[k] = items[k];
#pragma unroll
        for (int c = 1; c < kVectors; ++c) {
#pragma unroll
          for (int k = 0; k < kWidth; ++k) packed.values[k] = c == v ? items[c * kWidth + k] : packed.values[k];
        }
        vectors[v] = packed;
      }
    }
  }
};
// [stage access]

/// Shared memory of the bulk kernels: a ring of `Stages` tiles, one
/// barrier and one tile number per stage, the hand-over slots between the
/// scan warps and a look-back warp (bulk_specialized_scan only), the block
/// scan's storage and the tile's prefix.
template <class T, int ScanThreads, int Items, int Stages>
struct BulkStorage {
  static constexpr int kTile = ScanThreads * Items;  ///< elements per tile
  alignas(128) T stage[Stages][kTile];               ///< the tiles in flight
  std::uint64_t landed[Stages];                      ///< completes when a stage's tile has arrived
  unsigned tile_of[Stages];                          ///< which tile a stage holds (>= tiles: none)
  std::uint64_t aggregated[Stages];                  ///< completes when `aggregate` holds the stage's aggregate
  std::uint64_t resolved[Stages];                    ///< completes when `prefix` holds the stage's prefix
  std::uint64_t consumed[Stages];                    ///< completes when every scan thread has read `prefix`
  T aggregate[Stages];                               ///< a tile's aggregate, for the look-back warp
  T prefix[Stages];                                  ///< a tile's exclusive prefix, from the look-back warp
  ch06::BlockScanStorage<T> scan;                    ///< the block scan of thread totals
  T tile_prefix;                                     ///< the look-back's result, for the whole block
};

// [ring]
/// The parts both bulk kernels share: which tiles travel in bulk, taking
/// tickets and starting loads, reading a tile's items.
template <int ScanThreads, int Items, int Stages, class T>
struct BulkTiles {
  static constexpr int kTile = ScanThreads * Items;  ///< elements per tile
  static constexpr unsigned kTileBytes = kTile * sizeof(T);  ///< bytes per tile
  using Storage = BulkStorage<T, ScanThreads, Items, Stages>;  ///< the block's shared memory layout

  Storage& shared;   ///< the block's shared memory
  const T* in;       ///< input
  T* out;            ///< output
  std::int64_t n;    ///< elements
  unsigned tiles;    ///< tiles of the whole input
  bool aligned;      ///< both arrays 16-byte aligned
  unsigned ahead;    ///< refill() prefetches the tile this many tickets on into L2 (0: none)

  /// Whether tile `tile` travels in bulk: whole, and both arrays aligned.
  __device__ bool bulk(unsigned tile) const {
    return aligned && static_cast<std::int64_t>(tile + 1) * kTile <= n;
  }
  /// One thread: takes the next ticket and starts loading its tile into
  /// `stage`. Every fill completes one phase of the stage's barrier
  /// `landed`: the one arrival it expects, and the tile's bytes.
  __device__ void refill(int stage, unsigned* ticket) const {
    const unsigned tile = atomicAdd(ticket, 1u);  // tiles in ticket order, as in chapter 09
    shared.tile_of[stage] = tile;
    if (ahead != 0) prefetch_range_l2(in, n, (std::int64_t{tile} + ahead) * kTile, kTile);  // step 5
    if (tile < tiles && bulk(tile)) {
      tma::arrive_expecting(&shared.landed[stage], kTileBytes);  // arrive, and expect this many bytes
      tma::load(shared.stage[stage], in + static_cast<std::int64_t>(tile) * kTile, kTileBytes,
                &shared.landed[stage]);  // the copy engine counts the bytes in as they land
    } else {
      tma::arrive(&shared.landed[stage]);  // nothing to wait for
    }
  }
  /// Waits for iteration i's stage and returns its tile. Iteration i uses
  /// stage i % Stages for the (i / Stages)-th time, so it waits for that
  /// barrier's phase number i / Stages: parity (i / Stages) % 2. The
  /// parity is enough because a stage is refilled only after the block is
  /// done with it, so no wait is ever a whole phase behind.
  __device__ unsigned arrived(unsigned i) const {
    const int stage = static_cast<int>(i % Stages);
    tma::wait(&shared.landed[stage], (i / Stages) % 2);
    return shared.tile_of[stage];
  }
  /// This thread's items of `tile`, from its stage or straight from global memory.
  template <class Op>
  __device__ void read(unsigned tile, int stage, T (&items)[Items]) const {
    if (bulk(tile)) {
      StageAccess<Items, T>::read(shared.stage[stage], items);
    } else {
      const TileSpan span = tile_span(tile, kTile, n);
      ch07::load_direct(in, span.start, span.valid, items, Op::template identity<T>());
    }
  }
  /// Writes this thread's finished items of `tile`: into its stage (the
  /// caller stores the stage in bulk) or straight to global memory.
  __device__ void write(unsigned tile, int stage, const T (&items)[Items]) const {
    if (bulk(tile)) {
      StageAccess<Items, T>::write(shared.stage[stage], items);
      tma::fence_shared_writes();  // these writes, ordinary ones, made visible to the bulk store
    } else {
      const TileSpan span = tile_span(tile, kTile, n);
      ch07::store_direct(out, span.start, span.valid, items);
    }
  }
  /// One thread (the one that refills): stores `tile` from its stage in
  /// bulk (if it travels so), as a bulk group of its own.
  __device__ void store(unsigned tile, int stage) const {
    if (bulk(tile)) tma::store(out + static_cast<std::int64_t>(tile) * kTile, shared.stage[stage], kTileBytes);
  }
};

/// Thread 0: makes every barrier of the ring expect one arrival per phase
/// (`aggregated` and `resolved` serve the look-back warp's kernel alone),
/// and makes the initialized barriers visible to the copy engine.
template <class Storage, int Stages>
__device__ void init_ring(Storage& shared) {
  for (int s = 0; s < Stages; ++s) {
    tma::init(&shared.landed[s], 1);
    tma::init(&shared.aggregated[s], 1);
    tma::init(&shared.resolved[s], 1);
  }
  tma::fence_init();
}
// [ring]

// [bulk kernel]
/// A persistent block scans tile after tile, in ticket order. Thread 0
/// takes the tickets and loads the tiles with bulk copies into a ring of
/// `Stages` shared-memory stages, `Stages - 2` tiles ahead of the one being
/// scanned. For each tile k the block
///  1. (as soon as tile k + 1 has landed) publishes tile k + 1's aggregate:
///     the look-back of others never waits for a tile this block holds;
///  2. looks back for tile k (warp 0) and publishes its inclusive prefix;
///  3. finishes tile k in its stage and stores it with one bulk copy.
/// Tiles that cannot travel in bulk (the last, partial one, or unaligned
/// pointers) are read and written by the threads directly.
///
/// With `RefillInLookBack` a thread of the second warp stores the tiles
/// and refills the ring, and it refills the stage of tile k - 1 while warp 0
/// looks back for tile k (when the other warps only wait at the barrier)
/// instead of after tile k is finished. The load then has the look-back
/// and the finishing of a tile more to arrive in, so three stages do what
/// four did, and the shared memory saved holds a fourth block per SM.
/// `ticket` and the tile states must be zero at launch.
template <int Threads, int Items, int Stages, class Walker, class State, class T, class Op,
          bool RefillInLookBack = false>
__global__ void __launch_bounds__(Threads)
    bulk_look_back_scan(const T* in, T* out, std::int64_t n, Kind kind, unsigned* ticket, State state,
                        BackOff wait, Op op, const T* seed, unsigned ahead) {
  static_assert(Stages >= 3, "one stage scanned, one looked ahead, one being refilled");
  using Tiles = BulkTiles<Threads, Items, Stages, T>;
  auto& shared = *dynamic_shared<typename Tiles::Storage>();
  const Tiles ring{shared, in, out, n, static_cast<unsigned>(ceil_div<std::int64_t>(n, Tiles::kTile)),
                   (reinterpret_cast<std::uintptr_t>(in) | reinterpret_cast<std::uintptr_t>(out)) % 16 == 0, ahead};
  const T first = seed != nullptr ? *seed : Op::template identity<T>();  // what comes before tile 0
  // Step 1 for `tile`: its aggregate, published, and each thread's
  // exclusive prefix within the tile (`before`).
  const auto reduce = [&](unsigned tile, int stage, T& before) {
    T items[Items];
    ring.template read<Op>(tile, stage, items);
    T thread_total = items[0];
#pragma unroll
    for (int j = 1; j < Items; ++j) thread_total = op(thread_total, items[j]);
    T aggregate;
    before = ch06::block_exclusive_scan(thread_total, op, shared.scan, aggregate);
    if (threadIdx.x == 0) {
      if (tile == 0 && !Walker::kGrouped) {
        state.publish(0, Status::prefix, op(first, aggregate));  // tile 0 knows its prefix at once
      } else {
        state.publish(tile, Status::aggregate, aggregate);
      }
    }
    return aggregate;
  };

  // The thread that stores tiles and refills stages (a bulk store is
  // waited for by the thread that issued it).
  static_assert(!RefillInLookBack || Threads > kWarpSize, "a second warp to refill");
  constexpr unsigned kRingThread = RefillInLookBack ? kWarpSize : 0;

  if (threadIdx.x == 0) init_ring<typename Tiles::Storage, Stages>(shared);
  __syncthreads();
  if (threadIdx.x == kRingThread) {
    for (int s = 0; s < Stages - 1; ++s) ring.refill(s, ticket);
  }
  unsigned tile = ring.arrived(0);
  if (tile >= ring.tiles) return;
  T before;
  T aggregate = reduce(tile, 0, before);
  // The loop's first reduce() writes the block scan's storage again: every
  // thread must have read this one's total first (inside the loop, the
  // barriers of steps 2 and 3 separate one reduce() from the next).
  __syncthreads();
  for (unsigned i = 0;; ++i) {
    const int stage = static_cast<int>(i % Stages);
    // 1. Look ahead: the next tile's aggregate goes out before our look-back.
    const unsigned next = ring.arrived(i + 1);
    T next_before{};
    T next_aggregate{};
    if (next < ring.tiles) next_aggregate = reduce(next, static_cast<int>((i + 1) % Stages), next_before);
    if (RefillInLookBack && threadIdx.x == kRingThread) {
      // The stage of tile k - 1 (empty on the first iteration), once its
      // store has read it, while warp 0 looks back.
      tma::wait_stores_read<0>();
      ring.refill(static_cast<int>((i + Stages - 1) % Stages), ticket);
    }
    // 2. The look-back for this tile.
    if (threadIdx.x < kWarpSize) {
      T prefix = first;
      if (tile != 0 || Walker::kGrouped) {
        if (!std::is_same_v<Walker, NoWalk>) wait.settle(tile);
        const Resolved<T> r = Walker::template resolve<T>(state, tile, aggregate, op, wait, first);
        if (threadIdx.x == 0 && r.publish) state.publish(tile, Status::prefix, r.inclusive);
        prefix = r.exclusive;
      }
      if (threadIdx.x == 0) shared.tile_prefix = prefix;
    }
    __syncthreads();
    // 3. Finish the tile where it lies and store it.
    T items[Items];
    ring.template read<Op>(tile, stage, items);
    (void)ch07::thread_inclusive_scan(items, op);
    ch07::add_prefix(items, op(shared.tile_prefix, before), kind, op);
    ring.write(tile, stage, items);
    __syncthreads();
    // Store it, and refill the previous tile's stage once its store has read it.
    if (threadIdx.x == kRingThread) {
      ring.store(tile, stage);
      if (!RefillInLookBack) {
        tma::wait_stores_read<1>();
        ring.refill(static_cast<int>((i + Stages - 1) % Stages), ticket);
      }
    }
    if (next >= ring.tiles) break;
    tile = next;
    before = next_before;
    aggregate = next_aggregate;
  }
  if (threadIdx.x == kRingThread) tma::wait_stores_done();
}
// [bulk kernel]

/// A barrier for the scan warps alone (hardware barrier 1; barrier 0 is
/// __syncthreads()), so that the look-back warp never has to join in.
template <int ScanThreads>
__device__ __forceinline__ void sync_scan_warps() {
  asm volatile("bar.sync 1, %0;" ::"n"(ScanThreads) : "memory");
}

/// Chapter 06's block_exclusive_scan() over the scan warps only: the same
/// steps, with sync_scan_warps() for its two barriers.
template <int ScanThreads, class T, class Op>
__device__ T scan_warps_exclusive_scan(T x, Op op, ch06::BlockScanStorage<T>& storage, T& total) {
  constexpr int kWarps = ScanThreads / kWarpSize;
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  const T in_warp = ch06::warp_inclusive_scan(x, op);
  if (lane == kWarpSize - 1) storage.warp_totals[warp] = in_warp;
  sync_scan_warps<ScanThreads>();
  if (warp == 0) {
    const T warp_total = lane < kWarps ? storage.warp_totals[lane] : Op::template identity<T>();
    storage.warp_totals[lane] = ch06::warp_inclusive_scan(warp_total, op);
  }
  sync_scan_warps<ScanThreads>();
  total = storage.warp_totals[kWarps - 1];
  const T prefix = warp == 0 ? Op::template identity<T>() : storage.warp_totals[warp - 1];
  const T shifted = __shfl_up_sync(kFullMask, in_warp, 1);
  return lane == 0 ? prefix : op(prefix, shifted);
}

// [specialized kernel]
/// The bulk kernel with a look-back warp. ScanThreads threads (the scan
/// warps) load, reduce and finish tiles as bulk_look_back_scan() does; one
/// more warp does nothing but the look-backs, one tile behind them. For
/// each tile the scan warps hand it the aggregate (through shared memory
/// and a barrier of the ring, `aggregated`), go on with the next tile, and
/// collect the prefix (`resolved`) only when they come to finish the tile.
/// So a look-back overlaps the reduction of the next tile and the
/// finishing of the previous one, instead of stopping the block.
/// `ticket` and the tile states must be zero at launch.
template <int ScanThreads, int Items, int Stages, class Walker, class State, class T, class Op>
__global__ void __launch_bounds__(ScanThreads + kWarpSize)
    bulk_specialized_scan(const T* in, T* out, std::int64_t n, Kind kind, unsigned* ticket, State state,
                          BackOff wait, Op op, const T* seed, unsigned ahead) {
  static_assert(Stages >= 3, "one stage finished, one reduced ahead, one being refilled");
  using Tiles = BulkTiles<ScanThreads, Items, Stages, T>;
  auto& shared = *dynamic_shared<typename Tiles::Storage>();
  const Tiles ring{shared, in, out, n, static_cast<unsigned>(ceil_div<std::int64_t>(n, Tiles::kTile)),
                   (reinterpret_cast<std::uintptr_t>(in) | reinterpret_cast<std::uintptr_t>(out)) % 16 == 0, ahead};

  const T first = seed != nullptr ? *seed : Op::template identity<T>();  // what comes before tile 0
  if (threadIdx.x == 0) {
    for (int s = 0; s < Stages; ++s) tma::init(&shared.consumed[s], ScanThreads);
    init_ring<typename Tiles::Storage, Stages>(shared);  // (its fence covers the inits above)
  }
  __syncthreads();  // the last barrier all warps take

  if (threadIdx.x >= ScanThreads) {
    // The look-back warp: tile after tile, in the scan warps' order.
    const int lane = threadIdx.x % kWarpSize;
    for (unsigned i = 0;; ++i) {
      const int stage = static_cast<int>(i % Stages);
      tma::wait(&shared.aggregated[stage], (i / Stages) % 2);
      const unsigned tile = shared.tile_of[stage];
      if (tile >= ring.tiles) return;
      T exclusive = first;
      if (tile != 0 || Walker::kGrouped) {
        if (!std::is_same_v<Walker, NoWalk>) wait.settle(tile);
        const Resolved<T> r = Walker::template resolve<T>(state, tile, shared.aggregate[stage], op, wait, first);
        if (lane == 0 && r.publish) state.publish(tile, Status::prefix, r.inclusive);
        exclusive = r.exclusive;
      }
      // The stage's slot held the prefix of the tile Stages iterations
      // back: every scan thread must have read it (the barrier `consumed`,
      // which each scan thread arrives at after its read) before it changes.
      if (i >= Stages) tma::wait(&shared.consumed[stage], (i / Stages - 1) % 2);
      if (lane == 0) {
        shared.prefix[stage] = exclusive;
        tma::arrive(&shared.resolved[stage]);
      }
    }
  }

  // The scan warps. Step 1 for `tile`: its aggregate, published and
  // handed to the look-back warp, and each thread's prefix within the tile.
  const auto reduce = [&](unsigned tile, int stage, T& before) {
    T items[Items];
    ring.template read<Op>(tile, stage, items);
    T thread_total = items[0];
#pragma unroll
    for (int j = 1; j < Items; ++j) thread_total = op(thread_total, items[j]);
    T aggregate;
    before = scan_warps_exclusive_scan<ScanThreads>(thread_total, op, shared.scan, aggregate);
    if (threadIdx.x == 0) {
      if (tile == 0 && !Walker::kGrouped) {
        state.publish(0, Status::prefix, op(first, aggregate));  // tile 0 knows its prefix at once
      } else {
        state.publish(tile, Status::aggregate, aggregate);
      }
      shared.aggregate[stage] = aggregate;
      tma::arrive(&shared.aggregated[stage]);
    }
  };
  if (threadIdx.x == 0) {
    for (int s = 0; s < Stages - 1; ++s) ring.refill(s, ticket);
  }
  unsigned tile = ring.arrived(0);
  if (tile >= ring.tiles) {
    if (threadIdx.x == 0) tma::arrive(&shared.aggregated[0]);  // tells the look-back warp to stop
    return;
  }
  T before;
  reduce(tile, 0, before);
  sync_scan_warps<ScanThreads>();  // as in bulk_look_back_scan: the next reduce() reuses the scan's storage
  for (unsigned i = 0;; ++i) {
    const int stage = static_cast<int>(i % Stages);
    const int next_stage = static_cast<int>((i + 1) % Stages);
    const unsigned next = ring.arrived(i + 1);
    T next_before{};
    if (next < ring.tiles) {
      reduce(next, next_stage, next_before);
    } else if (threadIdx.x == 0) {
      tma::arrive(&shared.aggregated[next_stage]);  // no next tile: the look-back warp stops there
    }
    // The prefix of this tile, from the look-back warp.
    tma::wait(&shared.resolved[stage], (i / Stages) % 2);
    T items[Items];
    ring.template read<Op>(tile, stage, items);
    (void)ch07::thread_inclusive_scan(items, op);
    ch07::add_prefix(items, op(shared.prefix[stage], before), kind, op);
    tma::arrive(&shared.consumed[stage]);  // this thread has read the stage's prefix
    ring.write(tile, stage, items);
    sync_scan_warps<ScanThreads>();
    if (threadIdx.x == 0) {
      ring.store(tile, stage);
      tma::wait_stores_read<1>();
      ring.refill(static_cast<int>((i + Stages - 1) % Stages), ticket);
    }
    if (next >= ring.tiles) break;
    tile = next;
    before = next_before;
  }
  if (threadIdx.x == 0) tma::wait_stores_done();
}
// [specialized kernel]

// ---------------------------------------------------------------------------
// The registry: every step as a variant, every knob a sweep point.

/// Which kernel a recipe runs.
enum class Kernel {
  per_tile,     ///< chapter 10's kernel: one block per tile
  bulk,         ///< bulk_look_back_scan(): persistent blocks, bulk copies
  specialized,  ///< bulk_specialized_scan(): the same with a look-back warp
};

/// How a per-tile kernel moves its tile.
enum class Io { block, warp };

/// Which of the chapter's variants a recipe is (a sweep point is named by its knobs).
enum class Role { sweep, warp_io, tuned, bulk, lookback_warp, deterministic, one_wave, overlapped };

/// Everything that tells this chapter's variants and sweep points apart.
struct Recipe {
  Kernel kernel = Kernel::per_tile;  ///< which kernel
  int threads = 128;                 ///< threads per block (specialized: scan threads, plus one warp)
  int items = 32;                    ///< items per thread (a multiple of 4)
  Io io = Io::warp;                  ///< per_tile: how the tile moves
  int stages = 4;                    ///< bulk kernels: tiles in the ring
  int min_blocks = 1;                ///< per_tile: blocks per SM the compiler must allow (caps registers)
  int max_blocks = 0;                ///< blocks per SM the launch allows (0: as many as fit)
  Walk walk = Walk::any_prefix;      ///< bulk kernels: how the look-back combines (per_tile: chapter 10's)
  int windows = 1;                   ///< windows of 32 tiles a look-back reads per trip
  StateKind state = StateKind::packed;  ///< how status and value are kept
  BackOff wait = ch10::kSettle;      ///< how a tile waits
  std::size_t ahead = 0;             ///< bytes of input between a tile taken and the one prefetched into L2 (0: none)
  bool refill_in_look_back = false;  ///< bulk: refills the ring during the look-back (a thread of warp 1)
  Role role = Role::sweep;           ///< a variant, or a sweep point
};

/// Recipe builders, so that a list of sweep points reads as a table.
/// A per-tile recipe (chapter 10's kernel).
constexpr Recipe per_tile(int threads, int items, Io io, BackOff wait, int min_blocks = 1, int max_blocks = 0,
                          StateKind state = StateKind::packed) {
  return {.kernel = Kernel::per_tile, .threads = threads, .items = items, .io = io, .min_blocks = min_blocks,
          .max_blocks = max_blocks, .state = state, .wait = wait};
}
/// A bulk recipe.
constexpr Recipe bulk(int threads, int items, int stages, BackOff wait, Walk walk = Walk::any_prefix,
                      StateKind state = StateKind::packed) {
  return {.kernel = Kernel::bulk, .threads = threads, .items = items, .stages = stages, .walk = walk,
          .state = state, .wait = wait};
}
/// A recipe with a look-back warp (`threads` scan threads, one more warp).
constexpr Recipe lookback_warp(int threads, int items, int stages, BackOff wait, Walk walk = Walk::any_prefix,
                               StateKind state = StateKind::packed) {
  Recipe r = bulk(threads, items, stages, wait, walk, state);
  r.kernel = Kernel::specialized;
  return r;
}
/// The same recipe with a look-back that reads `windows` windows per trip.
constexpr Recipe wide(int windows, Recipe r) {
  r.windows = windows;
  return r;
}
/// The same recipe, prefetching the input `bytes` ahead of each tile taken into L2.
constexpr Recipe ahead(std::size_t bytes, Recipe r) {
  r.ahead = bytes;
  return r;
}
/// The same bulk recipe, refilling its ring during the look-back.
constexpr Recipe refill_in_look_back(Recipe r) {
  r.refill_in_look_back = true;
  return r;
}
/// A recipe as one of the chapter's variants.
constexpr Recipe as(Role role, Recipe r) {
  r.role = role;
  return r;
}

/// A variant's name, or the name a sweep point gets from its knobs, e.g.
/// "bulk-128x32-s4-settle3000".
std::string recipe_name(const Recipe& r);
/// The one-line summary of a recipe.
std::string recipe_summary(const Recipe& r);

/// Dynamic shared memory, in bytes, that limits a launch of `kernel` to
/// `blocks_per_sm` blocks per SM (on top of `dynamic_bytes` it uses itself).
/// 0 when no limit is asked for.
std::size_t shared_bytes_to_limit(const void* kernel, int threads, std::size_t dynamic_bytes, int blocks_per_sm);

/// Registry entry for a Recipe.
template <Recipe R>
struct CopyCeiling {
  /// Elements per tile.
  static constexpr int kTile = R.threads * R.items;
  /// The tile state for T.
  template <class T>
  using State = TileState<R.state, T>;

  /// Name, summary and limits, for the registry.
  static VariantInfo info() {
    VariantInfo v;
    v.name = recipe_name(R);
    v.summary = recipe_summary(R);
    v.block = R.threads;
    v.items_per_thread = R.items;
    v.float_order_varies = R.walk == Walk::any_prefix;
    if (R.walk == Walk::none) v.segment = kTile;  // a building block: each tile on its own
    v.takes_seed = R.kernel != Kernel::per_tile && R.walk != Walk::none;
    v.tuning = R.role == Role::sweep;
    return v;
  }
  /// The scratch memory run() takes: the ticket and the tile states.
  template <class T, class Op>
  static void reserve(Workspace& workspace, std::int64_t n, int) {
    (void)take_states<State<T>, T>(workspace, tile_count(n, kTile));
  }
  /// Scans r.in into r.out on r.stream.
  template <class T, class Op>
  static void run(const ScanRequest<T>& r, Op op) {
    Workspace workspace = r.workspace;
    const unsigned tiles = tile_count(r.n, kTile);
    const auto launch = take_states<State<T>, T>(workspace, tiles);
    SCAN_CUDA(cudaMemsetAsync(launch.ticket, 0, launch.reset_bytes, r.stream));
    BackOff wait = R.wait;
    if constexpr (R.kernel == Kernel::per_tile) {
      if (r.seed != nullptr) throw std::logic_error("a seeded scan needs a bulk recipe");
      using Moves = std::conditional_t<R.io == Io::warp, WarpTileIo, ch10::BlockTileIo>;
      using Mover = std::conditional_t<R.ahead == 0, Moves, PrefetchingIo<Moves, R.ahead>>;
      using Walker = std::conditional_t<R.windows == 1, ch10::WarpLookBack, WideLookBack<R.windows>>;
      const auto kernel =
          ch10::decoupled_look_back_scan<R.threads, R.items, R.min_blocks, Walker, Mover, State<T>, T, Op>;
      static const std::size_t padding =
          shared_bytes_to_limit(reinterpret_cast<const void*>(kernel), R.threads, 0, R.max_blocks);
      static const int resident = resident_blocks(kernel, R.threads, padding);
      wait.first_settling_tile = static_cast<unsigned>(resident);
      kernel<<<tiles, R.threads, padding, r.stream>>>(r.in, r.out, r.n, r.kind, launch.ticket, launch.state,
                                                      wait, op);
    } else {
      constexpr bool kSpecialized = R.kernel == Kernel::specialized;
      constexpr int kThreads = kSpecialized ? R.threads + kWarpSize : R.threads;
      constexpr auto kernel =
          kSpecialized
              ? bulk_specialized_scan<R.threads, R.items, R.stages, WalkOf<R.walk, R.windows>, State<T>, T, Op>
              : bulk_look_back_scan<R.threads, R.items, R.stages, WalkOf<R.walk, R.windows>, State<T>, T, Op,
                                    R.refill_in_look_back>;
      constexpr std::size_t kBytes = sizeof(BulkStorage<T, R.threads, R.items, R.stages>);
      // More than 48 KiB of dynamic shared memory, allowed once per device,
      // and the occupancy asked once: both off the timed path.
      const int resident = persistent_blocks<kernel>(kThreads, kBytes);
      // Persistent blocks: as many as the device holds at once, no more
      // than there are tiles. The tiles of the first wave skip the settle.
      const unsigned blocks = std::min<unsigned>(tiles, static_cast<unsigned>(resident));
      wait.first_settling_tile = static_cast<unsigned>(resident);
      kernel<<<blocks, kThreads, kBytes, r.stream>>>(r.in, r.out, r.n, r.kind, launch.ticket, launch.state, wait,
                                                     op, r.seed, tiles_ahead<T>(R.ahead, kTile));
    }
    SCAN_CUDA_LAUNCH();
  }
};

// [recipes]
/// Bytes of input a per-tile block prefetches ahead of its tile: 4 MiB, the
/// fastest of 1, 2, 4 and 8 MiB on both GPUs measured (16 MiB, on the
/// H200: far slower).
inline constexpr std::size_t kTileAhead = std::size_t{4} << 20;
/// Bytes of input the bulk kernel's ring prefetches ahead: 2 MiB (1 and 2
/// MiB alike on the H100, 4 MiB a little slower, 8 MiB far slower; on the
/// H200 the ring is faster without).
inline constexpr std::size_t kRingAhead = std::size_t{2} << 20;
/// The per-tile kernel at its measured best for 4-byte sums of a few waves
/// and for 8-byte types: warp-private transposes, 128 x 32 tiles, a 3 µs
/// settle, the input 4 MiB ahead prefetched into L2.
inline constexpr Recipe kTuned = as(Role::tuned, ahead(kTileAhead, per_tile(128, 32, Io::warp, ch10::kSettle)));
/// One wave of large tiles, spinning: for inputs of about 2^21 to 2^23 elements.
inline constexpr Recipe kOneWave = as(Role::one_wave, per_tile(256, 32, Io::warp, ch10::kSpin));
/// The bulk kernel with the grouped look-back, four groups per trip, the
/// input 2 MiB ahead prefetched into L2: the fastest measured on the H100
/// for large inputs, and bitwise reproducible.
inline constexpr Recipe kDeterministic =
    as(Role::deterministic, ahead(kRingAhead, wide(4, bulk(256, 16, 4, ch10::kSpin, Walk::grouped))));
/// The bulk kernel with the grouped look-back, four groups per trip, over
/// tiles of 128 x 36 (nine vectors per thread: no bank conflicts and no
/// selects), three stages refilled while warp 0 looks back, four blocks
/// per SM: the fastest measured on the H200 for large inputs, and bitwise
/// reproducible. (Not yet measured on the H100.)
inline constexpr Recipe kOverlapped =
    as(Role::overlapped, refill_in_look_back(wide(4, bulk(128, 36, 3, ch10::kSpin, Walk::grouped))));
// [recipes]

/// The GPUs whose measurements chose the recipes of Deterministic and Fastest.
enum class TunedOn { h100, h200 };

/// Which GPU's choices the current device takes: an H200 its own, any other
/// GPU the H100's (the lab book's recipe for a new GPU says how to add one).
/// Asked once per device, so that a program scanning on an H100 and an H200
/// gives each its own.
TunedOn tuned_on_current_device();

/// The chapter's deterministic scan: the grouped look-back in the recipe
/// measured fastest on this GPU (kDeterministic on the H100, kOverlapped on
/// the H200). Float sums are bitwise the same from run to run for a given
/// n and GPU; on two different GPUs they may differ.
struct Deterministic {
  /// Runs `f.template operator()<Recipe>()` with this GPU's recipe.
  template <class F>
  static void dispatch(F&& f) {
    if (tuned_on_current_device() == TunedOn::h200) {
      f.template operator()<kOverlapped>();
    } else {
      f.template operator()<kDeterministic>();
    }
  }
  /// Name, summary and limits, for the registry (the tile is the H100's).
  static VariantInfo info() {
    VariantInfo v = CopyCeiling<kDeterministic>::info();
    v.summary = "reproducible float sums: the grouped look-back in the recipe measured fastest on this GPU "
                "(H200: overlapped's; any other GPU: 256x16 tiles, 4 stages, the input 2 MiB ahead in L2)";
    return v;
  }
  /// The scratch memory run() takes: that of this GPU's recipe.
  template <class T, class Op>
  static void reserve(Workspace& workspace, std::int64_t n, int block) {
    dispatch([&]<Recipe R>() { CopyCeiling<R>::template reserve<T, Op>(workspace, n, block); });
  }
  /// Scans r.in into r.out on r.stream with this GPU's recipe.
  template <class T, class Op>
  static void run(const ScanRequest<T>& r, Op op) {
    dispatch([&]<Recipe R>() { CopyCeiling<R>::template run<T, Op>(r, op); });
  }
};

/// The chapter's answer: for each input, the recipe measured fastest for
/// its size and element type on this GPU (the lab book's size tables show the
/// crossovers; the two GPUs measured differ only above 2^23 elements).
struct Fastest {
  // [fastest]
  /// Runs `f.template operator()<Recipe>()` with the recipe for n elements
  /// of T. Only the last branch (4-byte types from 2^23 elements on) runs a
  /// grouped look-back, whose float sums are the same on every run.
  template <class T, class F>
  static void dispatch(std::int64_t n, F&& f) {
    if constexpr (sizeof(T) == 8) {
      f.template operator()<kTuned>();  // 16-byte states, per tile: the bulk kernels lose here
    } else {
      if (n < (std::int64_t{1} << 21)) {
        f.template operator()<kTuned>();  // a few waves of tiles: per tile, chapter 10's look-back
      } else if (n < (std::int64_t{1} << 23)) {
        f.template operator()<kOneWave>();  // about one wave of large tiles, chapter 10's look-back
      } else {
        Deterministic::dispatch(f);  // the grouped look-back: this GPU's recipe
      }
    }
  }
  // [fastest]
  /// Name, summary and limits, for the registry.
  static VariantInfo info() {
    VariantInfo v;
    v.name = "fastest";
    v.summary = "the fastest recipe measured for the size: tuned below 2^21 elements (and for 8-byte types), "
                "one wave of 256x32 tiles below 2^23, deterministic above";
    v.block = kDeterministic.threads;
    v.items_per_thread = kDeterministic.items;
    v.float_order_varies = true;  // below 2^23 elements
    return v;
  }
  /// The scratch memory run() takes: that of the recipe chosen for n.
  template <class T, class Op>
  static void reserve(Workspace& workspace, std::int64_t n, int block) {
    dispatch<T>(n, [&]<Recipe R>() { CopyCeiling<R>::template reserve<T, Op>(workspace, n, block); });
  }
  /// Scans r.in into r.out on r.stream with the recipe chosen for r.n.
  template <class T, class Op>
  static void run(const ScanRequest<T>& r, Op op) {
    dispatch<T>(r.n, [&]<Recipe R>() { CopyCeiling<R>::template run<T, Op>(r, op); });
  }
};

/// The (T, Op) pairs of the sweep points: the sums of every type a recipe
/// may be tuned for.
using SumCombos = std::tuple<Combo<std::int32_t, Add>, Combo<float, Add>, Combo<std::int64_t, Add>,
                             Combo<double, Add>>;

}  // namespace scan::ch11
