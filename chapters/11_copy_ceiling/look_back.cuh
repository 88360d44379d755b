/// \file
/// \brief Chapter 11: tile states for 8-byte types, and the look-back walks.
///
/// One 16-byte word per tile for 8-byte types, and the ways a tile learns
/// its prefix: chapter 10's warp walk over several windows per trip, the
/// walk that stops at any prefix, and the grouped walk whose float sums are
/// the same on every run (the idea the chapter is built around).
#pragma once

#include "warp_tile.cuh"

namespace scan::ch11 {

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
    const auto taken = ch10::take_ticket_and_words<typename WideTileState<T>::Word>(workspace, tiles);
    return {taken.ticket, State{taken.words}, taken.reset_bytes};
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

// kit: region grouped-walk body "resolve(const State& state, unsigned tile, T aggregate, Op op, BackOff wait,"
// kit: todo The grouped look-back for `tile`, by a whole warp. Tiles come in groups
// kit: todo of 32: first = tile - tile % 32, position = tile - first.
// kit: todo Lane l < position waits (wait.nap) until tile first + l's state is not
// kit: todo empty and takes its value, an aggregate; lane `position` takes `aggregate`;
// kit: todo the other lanes the identity. A warp scan of those (ch06::warp_inclusive_scan)
// kit: todo gives lane l the group's part S_g(l). With
// kit: todo base = group_prefix_before(state, first, op, wait, seed), return
// kit: todo {exclusive, inclusive, publish}: base at position 0, else op(base, S_g(position - 1));
// kit: todo op(base, S_g(position)); publish only for the group's last tile (position 31):
// kit: todo its inclusive prefix is the group prefix the walks of later groups read.
// kit: stub (void)state; (void)tile; (void)op; (void)wait;
// kit: stub return {seed, aggregate, false};
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

  /// The nearest of the first `limit` groups loaded (`statuses` of each,
  /// lane l for the group's tile l) whose last tile has published its group
  /// prefix; `limit` if none has. The same in every lane.
  __device__ __forceinline__ static int nearest_published(const Status (&statuses)[Batch], int limit) {
    int nearest = limit;
#pragma unroll
    for (int b = Batch - 1; b >= 0; --b) {
      const bool published = __ballot_sync(kFullMask, statuses[b] == Status::prefix) >> 31;  // lane 31's
      if (b < limit && published) nearest = b;
    }
    return nearest;
  }

  /// \f$ G_{g-1} \f$ for the group that starts at tile `first`;
  /// \f$ G_{-1} \f$ is `seed`, what comes before the whole array.
  ///
  /// Each trip loads `Batch` groups. The groups of a trip nearer than the
  /// nearest published group prefix do not depend on each other, so their
  /// empty states are waited for together and their totals are scanned
  /// side by side: each with group_total()'s tree, so with the same bits,
  /// but in about the time of one scan instead of `Batch` in a row.
  template <class T, class Op, class State>
  __device__ static T group_prefix_before(const State& state, unsigned first, Op op, BackOff wait, T seed) {
    const int lane = threadIdx.x % kWarpSize;
    T running = seed;
    // Walk back to a group whose prefix is published (or past group 0),
    // keeping the totals of the groups passed: lane c holds the c-th
    // nearest (for the first 32; farther ones are loaded again below).
    unsigned from = first;  // the first tile of the nearest group not yet walked
    bool found = false;
    int walked = 0;
    T totals = running;
    while (from != 0 && !found) {
      const int in_reach = min(Batch, static_cast<int>(from / kWarpSize));  // groups left down to group 0
      T values[Batch];
      Status statuses[Batch];
#pragma unroll
      for (int b = 0; b < Batch; ++b) {  // group b of the trip starts (b + 1) * 32 tiles before `from`
        values[b] = Op::template identity<T>();
        statuses[b] = b < in_reach ? state.load(from - (b + 1) * kWarpSize + lane, values[b]) : Status::prefix;
      }
      // The groups nearer than the nearest published prefix need every
      // state: the groups the walk one group at a time waits for too. (A
      // prefix published meanwhile only moves `stop` nearer: it means
      // every tile before it has published.)
      int stop = nearest_published(statuses, in_reach);
      unsigned nap_ns = wait.first_nap_ns;
      for (;;) {
        bool empty = false;
#pragma unroll
        for (int b = 0; b < Batch; ++b) empty |= b < stop && statuses[b] == Status::empty;
        if (!__any_sync(kFullMask, empty)) break;
        wait.nap(nap_ns);
#pragma unroll
        for (int b = 0; b < Batch; ++b) {
          if (b < stop && statuses[b] == Status::empty) {
            statuses[b] = state.load(from - (b + 1) * kWarpSize + lane, values[b]);
          }
        }
      }
      stop = nearest_published(statuses, stop);  // a last tile may have published while we waited
      found = stop < in_reach;
#pragma unroll
      for (int b = 0; b < Batch; ++b) {
        if (found && b == stop) running = __shfl_sync(kFullMask, values[b], 31);  // G_h itself
      }
      if (stop > 0) {  // (a walk that finds the previous group's prefix at once scans nothing)
        // The totals of the groups before `stop`, S_h(31): independent warp
        // scans, which the compiler interleaves.
#pragma unroll
        for (int b = 0; b < Batch; ++b) values[b] = ch06::warp_inclusive_scan(values[b], op);
#pragma unroll
        for (int b = 0; b < Batch; ++b) {
          const T total = __shfl_sync(kFullMask, values[b], 31);
          if (b < stop) {
            if (lane == walked) totals = total;
            ++walked;
          }
        }
      }
      from -= (found ? stop + 1 : in_reach) * kWarpSize;
    }
    // Chain the totals forwards from there, farthest first, as each group's
    // last tile does. Beyond 32 groups, each is loaded again.
    unsigned group = found ? from + kWarpSize : from;
    for (int c = walked - 1; c >= kWarpSize; --c, group += kWarpSize) {
      T value = Op::template identity<T>();
      const Status s = state.load(group + lane, value);
      bool published = false;
      const T total = group_total<T>(state, group, s, value, op, wait, published);
      running = published ? total : op(running, total);
    }
    // The nearest 32 at most, in lanes c = walked - 1 down to 0. The
    // shuffles do not depend on the chain, so eight are issued at a time.
    int c = min(walked, kWarpSize) - 1;
    for (; c >= 7; c -= 8) {
      T near[8];
#pragma unroll
      for (int k = 0; k < 8; ++k) near[k] = __shfl_sync(kFullMask, totals, c - k);
#pragma unroll
      for (int k = 0; k < 8; ++k) running = op(running, near[k]);
    }
    for (; c >= 0; --c) running = op(running, __shfl_sync(kFullMask, totals, c));
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

// [grouped per-tile kernel]
/// Chapter 10's kernel, one block per tile, with the grouped walk: a
/// reproducible scan for inputs of a few waves of tiles, where the
/// persistent kernels have too few tiles per block to fill their ring.
///
/// The walk is a function of the tile states alone, so it needs no ring:
/// every tile publishes its aggregate (tile 0 too), warp 0 resolves the tile
/// with GroupedWalk, and only the last tile of a group publishes an
/// inclusive prefix. Tickets keep the tiles in order, so every tile a walk
/// waits for has started, as in chapter 10. `seed` (optional, one element in
/// device memory) comes before tile 0, as in the bulk kernels.
template <int Threads, int Items, int MinBlocks, int Groups, class Io, class State, class T, class Op>
__global__ void __launch_bounds__(Threads, MinBlocks)
    grouped_per_tile_scan(const T* in, T* out, std::int64_t n, Kind kind, unsigned* ticket, State state,
                          BackOff wait, Op op, const T* seed) {
  __shared__ typename Io::template Storage<T, Threads, Items> storage;
  __shared__ T tile_prefix;
  __shared__ T parked[Items][kWarpSize];  // warp 0's items during the walk
  constexpr int kTile = Threads * Items;
  tma::wait_for_prerequisite_grid();  // launched early: the ticket and states are cleared now
  const unsigned tile = ch09::take_ticket(ticket);
  const TileSpan span = tile_span(tile, kTile, n);
  Io::template taken<kTile>(in, n, tile);

  T items[Items];
  Io::template load<Threads, Items>(in, span.start, span.valid, items, storage, Op::template identity<T>());
  const T thread_total = ch07::thread_inclusive_scan(items, op);
  T aggregate;
  const T before = ch06::block_exclusive_scan(thread_total, op, storage.scan, aggregate);

  if (threadIdx.x < kWarpSize) {
    if (threadIdx.x == 0) state.publish(tile, Status::aggregate, aggregate);  // early: the group needs it
    // Warp 0's items wait in shared memory while it walks, so that the
    // walk's loads have the registers (each lane parks and takes back its
    // own: no barrier needed).
#pragma unroll
    for (int i = 0; i < Items; ++i) parked[i][threadIdx.x] = items[i];
    wait.settle(tile);
    const T first = seed != nullptr ? *seed : Op::template identity<T>();  // what comes before tile 0
    const Resolved<T> r = GroupedWalk<Groups>::template resolve<T>(state, tile, aggregate, op, wait, first);
    if (threadIdx.x == 0) {
      if (r.publish) state.publish(tile, Status::prefix, r.inclusive);  // a group prefix
      tile_prefix = r.exclusive;
    }
#pragma unroll
    for (int i = 0; i < Items; ++i) items[i] = parked[i][threadIdx.x];
  }
  __syncthreads();

  ch07::add_prefix(items, op(tile_prefix, before), kind, op);
  Io::template store<Threads, Items>(out, span.start, span.valid, items, storage);
}
// [grouped per-tile kernel]

}  // namespace scan::ch11
