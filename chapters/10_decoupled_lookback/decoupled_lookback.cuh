/// \file
/// \brief Chapter 10: decoupled look-back (Merrill and Garland, 2016).
///
/// Chapter 09's chain made every tile wait for the *inclusive* prefix of the
/// tile before it, so prefixes crawled along one hop at a time. Here each
/// tile publishes two things: its *aggregate* (the total of its own
/// elements) as soon as it has it, and its *inclusive prefix* once it knows
/// it. A waiting tile looks back over its predecessors, combining their
/// aggregates, until it meets one that has published an inclusive prefix.
/// Aggregates need no waiting on anyone, so tiles no longer form a chain.
///
/// The pieces here (tile states, look-backs, back-off, the kernel) are
/// reused by chapter 11, which tunes them to the copy's speed.
#pragma once

#include "coarsening.cuh"    // chapter 07: the tile pieces
#include "stream_scan.cuh"   // chapter 09: take_ticket
#include "warp_shuffle.cuh"  // chapter 06: warp and block scans

#include <scan/device.cuh>
#include <scan/registry.hpp>

#include <cuda/atomic>

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

namespace scan::ch10 {

/// The chapter's variants.
const Chapter& chapter();

/// What a tile has published so far.
enum class Status : unsigned {
  empty = 0,      ///< nothing yet
  aggregate = 1,  ///< the total of the tile's own elements
  prefix = 2,     ///< the inclusive prefix: everything up to the tile's end
};

// kit: region split-publish body "__device__ void publish(unsigned tile, Status what, const T& value) const"
// kit: todo Publish the tile's aggregate or inclusive prefix: write value to the slot `what` names
// kit: todo (prefix[tile] or aggregate[tile]), then store `what` in status[tile] with a release store
// kit: todo through cuda::atomic_ref<unsigned, cuda::thread_scope_device>.
// kit: stub (void)tile; (void)what; (void)value;
// kit: rule acquire-release status publishes prefix aggregate
// kit: region split-load body "__device__ Status load(unsigned tile, T& value) const"
// kit: todo Load status[tile] with an acquire load (cuda::atomic_ref, as publish stores it); if it says
// kit: todo prefix or aggregate, read that slot into value. Return the status.
// kit: stub (void)tile; (void)value;
// kit: stub return Status::prefix;
// kit: rule acquire-release status reads prefix aggregate
// [split state]
/// Tile states as a status word and two value slots per tile, for any T.
///
/// A value is written first, then the status with a release store; a reader
/// loads the status with an acquire load and only then the value. The
/// aggregate and the prefix live in separate slots: a reader that saw
/// `aggregate` reads a slot nobody writes again, even if the status moves on
/// to `prefix` meanwhile.
template <class T>
struct SplitTileState {
  unsigned* status;  ///< per tile, a Status
  T* aggregate;      ///< per tile
  T* prefix;         ///< per tile

  /// Publishes the tile's aggregate or inclusive prefix.
  __device__ void publish(unsigned tile, Status what, const T& value) const {
    (what == Status::prefix ? prefix : aggregate)[tile] = value;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> word(status[tile]);
    word.store(static_cast<unsigned>(what), cuda::memory_order_release);
  }
  /// Reads a tile's status and, unless empty, the matching value.
  __device__ Status load(unsigned tile, T& value) const {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> word(status[tile]);
    const auto s = static_cast<Status>(word.load(cuda::memory_order_acquire));
    if (s == Status::prefix) value = prefix[tile];
    if (s == Status::aggregate) value = aggregate[tile];
    return s;
  }
};
// [split state]

// [packed state]
/// Tile states packed into one 64-bit word per tile, for 4-byte T: the
/// status in the high half, the value's bits in the low half. One load sees
/// both, so a reader can never pair a status with the wrong value, and no
/// ordering between two locations is needed: relaxed atomics suffice. It
/// also halves the loads a look-back makes.
template <class T>
struct PackedTileState {
  static_assert(sizeof(T) == 4, "status and value must fit one 64-bit word");
  unsigned long long* words;  ///< per tile: (status << 32) | value bits

  /// Publishes the tile's aggregate or inclusive prefix.
  __device__ void publish(unsigned tile, Status what, const T& value) const {
    unsigned bits;
    std::memcpy(&bits, &value, sizeof bits);
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> word(words[tile]);
    word.store((static_cast<unsigned long long>(what) << 32) | bits, cuda::memory_order_relaxed);
  }
  /// Reads a tile's status and value in one load.
  __device__ Status load(unsigned tile, T& value) const {
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> word(words[tile]);
    const unsigned long long w = word.load(cuda::memory_order_relaxed);
    const auto bits = static_cast<unsigned>(w);
    std::memcpy(&value, &bits, sizeof value);
    return static_cast<Status>(w >> 32);
  }
};
// [packed state]

// [back-off]
/// How a tile waits for its predecessors.
struct BackOff {
  /// One sleep before the first look. A tile that has just published its
  /// aggregate would otherwise look at once at predecessors that started
  /// moments before it: most are still looking back themselves and the
  /// nearest may not have published even an aggregate, so it waits, finds
  /// aggregates and walks on, window after window, while its block holds
  /// its place on the SM. After the sleep the predecessors have published
  /// at least their aggregates: the look-back seldom waits, ends
  /// sooner, and so publishes its own prefix sooner for the tiles after it.
  /// The text explains and measures what this buys.
  unsigned settle_ns;
  unsigned first_nap_ns;  ///< sleep after a look that found a tile empty (0: spin without sleeping)
  unsigned max_nap_ns;    ///< each further nap doubles, up to this

  /// Tiles before this one do not settle (the host sets it to the number
  /// of blocks the device holds at once). The blocks of the first wave
  /// start together: if they all slept, the memory would idle meanwhile.
  /// Later blocks start at staggered times, and while one sleeps the others
  /// keep loading.
  unsigned first_settling_tile;

  /// Sleeps `settle_ns` if tile `tile` is past the first wave.
  __device__ void settle(unsigned tile) const {
    if (settle_ns != 0 && tile >= first_settling_tile) __nanosleep(settle_ns);
  }
  /// Sleeps after an empty look, and doubles the next nap.
  __device__ void nap(unsigned& nap_ns) const {
    if (nap_ns == 0) return;
    __nanosleep(nap_ns);
    nap_ns = 2 * nap_ns < max_nap_ns ? 2 * nap_ns : max_nap_ns;
  }
};
// [back-off]

/// Spin hot: look again at once.
inline constexpr BackOff kSpin{0, 0, 0, 0};

// kit: region serial-walk body "T look_back_serial(const State& state, unsigned tile, Op op, BackOff wait)"
// kit: todo One thread walks back from tile - 1 towards 0. At each predecessor j it waits while
// kit: todo state.load(j, value) says Status::empty (calling wait.nap(nap_ns) between looks, with nap_ns
// kit: todo starting at wait.first_nap_ns for each predecessor), combines value on the LEFT of what it
// kit: todo gathered so far, and stops after the first predecessor that published Status::prefix.
// kit: todo Return the combination (the identity if there is nothing before tile 0).
// kit: stub (void)state; (void)tile; (void)op; (void)wait;
// kit: stub return Op::template identity<T>();
// [serial look-back]
/// Variant 1: one thread walks back one predecessor at a time, combining
/// aggregates until it meets an inclusive prefix. Returns the combination of
/// every element before tile `tile` (> 0).
template <class T, class Op, class State>
__device__ T look_back_serial(const State& state, unsigned tile, Op op, BackOff wait) {
  T prefix = Op::template identity<T>();
  for (long long j = static_cast<long long>(tile) - 1; j >= 0; --j) {
    T value;
    Status s;
    unsigned nap_ns = wait.first_nap_ns;
    while ((s = state.load(static_cast<unsigned>(j), value)) == Status::empty) wait.nap(nap_ns);
    prefix = op(value, prefix);  // tile j comes before everything gathered so far
    if (s == Status::prefix) break;
  }
  return prefix;
}
// [serial look-back]

// kit: region warp-walk body "T look_back_warp(const State& state, unsigned tile, Op op, BackOff wait)"
// kit: todo A warp walks back 32 predecessors at a time: windows end at tile, tile - 32, ...; lane l
// kit: todo looks at tile end - 32 + l (lane order is array order), waiting while it is empty as the
// kit: todo serial walk does; a lane before tile 0 counts as a prefix holding the identity. With
// kit: todo __ballot_sync find the last lane whose tile published its prefix; lanes before it take the
// kit: todo identity; the window's combination (lane 31 of ch06::warp_inclusive_scan of the values) goes
// kit: todo on the LEFT of what was gathered; stop after a window that held a prefix. Every lane of the
// kit: todo warp calls this and returns the result.
// kit: stub (void)state; (void)tile; (void)op; (void)wait;
// kit: stub return Op::template identity<T>();
// [warp look-back]
/// Variant 2: a whole warp inspects a window of 32 predecessors at once.
/// Lane l looks at tile (end - 32 + l), so lane order is array order and
/// lane 31 holds the nearest predecessor. When every lane has something,
/// the last lane that holds an inclusive prefix marks where to stop: lanes
/// before it are covered by it, and the warp combines that prefix with the
/// aggregates after it in one warp scan (chapter 06). Without any prefix in
/// the window it combines all 32 aggregates and moves 32 tiles back.
/// Every lane of the calling warp must call it; all get the result.
template <class T, class Op, class State>
__device__ T look_back_warp(const State& state, unsigned tile, Op op, BackOff wait) {
  const int lane = threadIdx.x % kWarpSize;
  T prefix = Op::template identity<T>();
  for (long long end = tile;; end -= kWarpSize) {
    const long long j = end - kWarpSize + lane;
    T value = Op::template identity<T>();  // before tile 0: the identity, as a prefix
    Status s = Status::prefix;
    unsigned nap_ns = wait.first_nap_ns;
    if (j >= 0) {
      while ((s = state.load(static_cast<unsigned>(j), value)) == Status::empty) wait.nap(nap_ns);
    }
    const unsigned prefix_lanes = __ballot_sync(kFullMask, s == Status::prefix);
    const int stop = prefix_lanes != 0 ? 31 - __clz(prefix_lanes) : -1;
    if (lane < stop) value = Op::template identity<T>();
    const T window = __shfl_sync(kFullMask, ch06::warp_inclusive_scan(value, op), 31);
    prefix = op(window, prefix);
    if (prefix_lanes != 0) return prefix;
  }
}
// [warp look-back]

/// Variant 1's walk, as the kernel takes it: thread 0 of warp 0 looks back
/// (the other lanes return the identity).
struct SerialLookBack {
  /// The combination of every element before tile `tile` (in lane 0).
  template <class T, class Op, class State>
  __device__ __forceinline__ static T prefix(const State& state, unsigned tile, Op op, BackOff wait) {
    return threadIdx.x == 0 ? look_back_serial<T>(state, tile, op, wait) : Op::template identity<T>();
  }
};

/// Variant 2's walk: warp 0 looks back, 32 tiles at a time.
struct WarpLookBack {
  /// The combination of every element before tile `tile` (in every lane).
  template <class T, class Op, class State>
  __device__ __forceinline__ static T prefix(const State& state, unsigned tile, Op op, BackOff wait) {
    return look_back_warp<T>(state, tile, op, wait);
  }
};

/// How a tile moves between global memory and registers: chapter 07's
/// vector-transposed tile, regrouped in shared memory by the whole block.
/// (Chapter 11 adds a warp-by-warp mover with the same interface.)
struct BlockTileIo {
  /// Shared memory the mover needs, with a block scan's storage.
  template <class T, int Threads, int Items>
  using Storage = ch07::TileStorage<T, Threads, Items, ch07::kBestArrangement>;

  /// Loads the tile at `start` into `items` (blocked arrangement).
  template <int Threads, int Items, class T, class S>
  __device__ __forceinline__ static void load(const T* in, std::int64_t start, int valid, T (&items)[Items],
                                              S& storage, T padding) {
    ch07::load_tile<ch07::kBestArrangement, Threads, Items>(in, start, valid, items, storage.exchange, padding);
  }
  /// Called as the block takes tile `tile` of `Tile` elements, before it
  /// loads it: nothing to do here (chapter 11's movers may start a later
  /// tile's input on its way).
  template <int Tile, class T>
  __device__ __forceinline__ static void taken(const T*, std::int64_t, unsigned) {}
  /// Stores `items` (blocked arrangement) to the tile at `start`.
  template <int Threads, int Items, class T, class S>
  __device__ __forceinline__ static void store(T* out, std::int64_t start, int valid, const T (&items)[Items],
                                               S& storage) {
    ch07::store_tile<ch07::kBestArrangement, Threads, Items>(out, start, valid, items, storage.exchange);
  }
};

// [look-back kernel]
/// One block per tile of Threads x Items, in ticket order. The tile publishes
/// its aggregate as soon as its block scan has it, looks back (warp 0, or
/// thread 0), publishes its inclusive prefix, and finishes its tile.
/// `ticket` and the tile states must be zero at launch. `Walk` is how the
/// look-back combines (SerialLookBack or WarpLookBack), `Io` how the tile
/// moves between global memory and registers, `MinBlocks` the occupancy the
/// compiler is asked to allow (chapter 11 varies the last two; 1 asks
/// nothing).
template <int Threads, int Items, int MinBlocks, class Walk, class Io, class State, class T, class Op>
__global__ void __launch_bounds__(Threads, MinBlocks)
    decoupled_look_back_scan(const T* in, T* out, std::int64_t n, Kind kind, unsigned* ticket,
                             State state, BackOff wait, Op op) {
  __shared__ typename Io::template Storage<T, Threads, Items> storage;
  __shared__ T tile_prefix;
  constexpr int kTile = Threads * Items;
  const unsigned tile = ch09::take_ticket(ticket);
  const TileSpan span = tile_span(tile, kTile, n);
  Io::template taken<kTile>(in, n, tile);

  T items[Items];
  Io::template load<Threads, Items>(in, span.start, span.valid, items, storage, Op::template identity<T>());
  const T thread_total = ch07::thread_inclusive_scan(items, op);
  T aggregate;
  const T before = ch06::block_exclusive_scan(thread_total, op, storage.scan, aggregate);

  if (tile == 0) {
    if (threadIdx.x == 0) {
      state.publish(0, Status::prefix, aggregate);
      tile_prefix = Op::template identity<T>();
    }
  } else if (threadIdx.x < kWarpSize) {
    if (threadIdx.x == 0) state.publish(tile, Status::aggregate, aggregate);  // early: others may use it now
    wait.settle(tile);
    const T prefix = Walk::template prefix<T>(state, tile, op, wait);
    if (threadIdx.x == 0) {
      state.publish(tile, Status::prefix, op(prefix, aggregate));
      tile_prefix = prefix;
    }
  }
  __syncthreads();

  ch07::add_prefix(items, op(tile_prefix, before), kind, op);
  Io::template store<Threads, Items>(out, span.start, span.valid, items, storage);
}
// [look-back kernel]

/// The tile states of one launch, taken from the workspace: the ticket, then
/// the status words (one memset of `reset_bytes` clears both), then the
/// value slots of the split state.
template <class State>
struct LaunchState {
  unsigned* ticket;         ///< the tile counter
  State state;              ///< per-tile states
  std::size_t reset_bytes;  ///< bytes from `ticket` that must be zero before a launch
};

/// A ticket and an array of per-tile words, taken from a workspace in that
/// order, so that one memset clears both.
template <class Word>
struct TicketAndWords {
  unsigned* ticket;         ///< the tile counter
  Word* words;              ///< the tiles' words, right after it
  std::size_t reset_bytes;  ///< bytes from `ticket` to the end of the words to clear (0 when measuring)
};

/// Takes the ticket and `tiles` words from `workspace`, of which the first
/// `reset_tiles` are to be cleared before a launch. The one function every
/// single-pass kernel of chapters 10-13 takes its scratch with: reserve()
/// calls it with a measuring workspace and run() with the real one, so the
/// two cannot disagree.
template <class Word>
TicketAndWords<Word> take_ticket_and_words(Workspace& workspace, std::size_t tiles, std::size_t reset_tiles) {
  unsigned* ticket = workspace.take<unsigned>(1);
  Word* words = workspace.take<Word>(tiles);
  const std::size_t reset_bytes =
      ticket == nullptr ? 0
                        : static_cast<std::size_t>(reinterpret_cast<const char*>(words + reset_tiles) -
                                                   reinterpret_cast<const char*>(ticket));
  return {ticket, words, reset_bytes};
}

/// take_ticket_and_words() with every word cleared.
template <class Word>
TicketAndWords<Word> take_ticket_and_words(Workspace& workspace, std::size_t tiles) {
  return take_ticket_and_words<Word>(workspace, tiles, tiles);
}

/// Takes the ticket and the states of `tiles` tiles from `workspace`, for
/// SplitTileState (the status words are cleared, the values need not be)
/// or PackedTileState (while measuring, every pointer is null).
template <class State, class T>
LaunchState<State> take_launch_state(Workspace& workspace, std::size_t tiles) {
  if constexpr (std::is_same_v<State, PackedTileState<T>>) {
    const auto taken = take_ticket_and_words<unsigned long long>(workspace, tiles);
    return {taken.ticket, State{taken.words}, taken.reset_bytes};
  } else {
    static_assert(std::is_same_v<State, SplitTileState<T>>, "a tile state of this chapter");
    const auto taken = take_ticket_and_words<unsigned>(workspace, tiles);
    T* aggregates = workspace.take<T>(tiles);
    T* prefixes = workspace.take<T>(tiles);
    return {taken.ticket, State{taken.words, aggregates, prefixes}, taken.reset_bytes};
  }
}

/// Tile shape of the chapter's variants (chapter 07's).
inline constexpr int kThreads = 256;
/// Items per thread of the chapter's variants.
inline constexpr int kItems = 16;
/// The settle of variant 4: 3 µs before the first look, then naps of 640 ns.
inline constexpr BackOff kSettle{3000, 640, 640, 0};

/// Registry entry: decoupled look-back with chapter 07's tile, a walk
/// (SerialLookBack or WarpLookBack), status and value packed in one word
/// (4-byte types) or apart, and a way of waiting.
template <class Walk, bool Packed, BackOff Wait>
struct DecoupledLookBack {
  /// Elements per tile.
  static constexpr int kTile = kThreads * kItems;
  /// The tile state for T: packed where it fits one word and packing is on.
  template <class T>
  using State = std::conditional_t<Packed && sizeof(T) == 4, PackedTileState<T>, SplitTileState<T>>;
  /// True for variant 1.
  static constexpr bool kSerial = std::is_same_v<Walk, SerialLookBack>;

  /// Name, summary and limits, for the registry.
  static VariantInfo info() {
    VariantInfo v;
    v.name = kSerial ? "serial-lookback" : !Packed ? "warp-lookback" : Wait.settle_ns == 0 ? "packed" : "packed-settle";
    v.summary = std::string(kSerial ? "one thread looks back one tile at a time"
                                    : "a warp looks back over 32 tiles at once") +
                (Packed ? ", status and value in one word (4-byte types)" : ", status and value apart") +
                (Wait.settle_ns != 0 ? ", sleeps before looking back" : ", spins") + ", tiles of " +
                ch07::shape_name(kThreads, kItems);
    v.block = kThreads;
    v.items_per_thread = kItems;
    v.float_order_varies = true;  // how many aggregates a look-back combines depends on timing
    return v;
  }
  /// The scratch memory run() takes: the ticket and the tile states.
  template <class T, class Op>
  static void reserve(Workspace& workspace, std::int64_t n, int) {
    (void)take_launch_state<State<T>, T>(workspace, tile_count(n, kTile));
  }
  /// Scans r.in into r.out on r.stream.
  template <class T, class Op>
  static void run(const ScanRequest<T>& r, Op op) {
    const auto kernel = decoupled_look_back_scan<kThreads, kItems, 1, Walk, BlockTileIo, State<T>, T, Op>;
    static const int resident = resident_blocks(kernel, kThreads);  // once per kernel (one device per program)
    Workspace workspace = r.workspace;
    const unsigned tiles = tile_count(r.n, kTile);
    const auto launch = take_launch_state<State<T>, T>(workspace, tiles);
    BackOff wait = Wait;
    wait.first_settling_tile = static_cast<unsigned>(resident);
    // The ticket and every status start at zero (empty) for each launch.
    SCAN_CUDA(cudaMemsetAsync(launch.ticket, 0, launch.reset_bytes, r.stream));
    kernel<<<tiles, kThreads, 0, r.stream>>>(r.in, r.out, r.n, r.kind, launch.ticket, launch.state, wait, op);
    SCAN_CUDA_LAUNCH();
  }
};

}  // namespace scan::ch10
