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
#pragma once

#include "coarsening.cuh"   // chapter 07: the tile pieces
#include "stream_scan.cuh"  // chapter 09: take_ticket
#include "warp_scan.cuh"    // chapter 06: warp and block scans

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

using ch07::Arrangement;

/// What a tile has published so far.
enum class Status : unsigned {
  empty = 0,      ///< nothing yet
  aggregate = 1,  ///< the total of the tile's own elements
  prefix = 2,     ///< the inclusive prefix: everything up to the tile's end
};

//! [split state]
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
//! [split state]

//! [packed state]
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
//! [packed state]

/// How a waiting tile spins.
struct Spin {
  bool back_off;  ///< sleep between polls, doubling the nap up to a limit

  /// Waits a little before the next poll (nothing without back-off).
  __device__ void pause(unsigned& nap_ns) const {
    if (!back_off) return;
    __nanosleep(nap_ns);
    nap_ns = nap_ns < 256 ? 2 * nap_ns : 256;
  }
};

//! [serial look-back]
/// Variant 1: one thread walks back one predecessor at a time, combining
/// aggregates until it meets an inclusive prefix. Returns the combination of
/// every element before tile `tile` (> 0).
template <class T, class Op, class State>
__device__ T look_back_serial(const State& state, unsigned tile, Op op, Spin spin) {
  T prefix = Op::template identity<T>();
  for (long long j = static_cast<long long>(tile) - 1; j >= 0; --j) {
    T value;
    Status s;
    unsigned nap_ns = 32;
    while ((s = state.load(static_cast<unsigned>(j), value)) == Status::empty) spin.pause(nap_ns);
    prefix = op(value, prefix);  // tile j comes before everything gathered so far
    if (s == Status::prefix) break;
  }
  return prefix;
}
//! [serial look-back]

//! [warp look-back]
/// Variant 2: a whole warp inspects a window of 32 predecessors at once.
/// Lane l looks at tile (end - 32 + l), so lane order is array order and
/// lane 31 holds the nearest predecessor. When every lane has something,
/// the last lane that holds an inclusive prefix marks where to stop: lanes
/// before it are covered by it, and the warp combines that prefix with the
/// aggregates after it in one warp scan (chapter 06). Without any prefix in
/// the window it combines all 32 aggregates and moves 32 tiles back.
/// Every lane of the calling warp must call it; all get the result.
template <class T, class Op, class State>
__device__ T look_back_warp(const State& state, unsigned tile, Op op, Spin spin) {
  const int lane = threadIdx.x % ch06::kWarpSize;
  T prefix = Op::template identity<T>();
  for (long long end = tile;; end -= ch06::kWarpSize) {
    const long long j = end - ch06::kWarpSize + lane;
    T value = Op::template identity<T>();  // before tile 0: the identity, as a prefix
    Status s = Status::prefix;
    unsigned nap_ns = 32;
    if (j >= 0) {
      while ((s = state.load(static_cast<unsigned>(j), value)) == Status::empty) spin.pause(nap_ns);
    }
    const unsigned prefix_lanes = __ballot_sync(ch06::kFullMask, s == Status::prefix);
    const int stop = prefix_lanes != 0 ? 31 - __clz(prefix_lanes) : -1;
    if (lane < stop) value = Op::template identity<T>();
    const T window = __shfl_sync(ch06::kFullMask, ch06::warp_inclusive_scan(value, op), 31);
    prefix = op(window, prefix);
    if (prefix_lanes != 0) return prefix;
  }
}
//! [warp look-back]

/// How a tile learns its prefix.
enum class LookBack { serial, warp };

//! [look-back kernel]
/// One block per tile of Threads x Items, in ticket order. The tile publishes
/// its aggregate as soon as its block scan has it, looks back (warp 0, or
/// thread 0), publishes its inclusive prefix, and finishes its tile.
/// `ticket` and the tile states must be zero at launch.
template <int Threads, int Items, LookBack Walk, class State, class T, class Op>
__global__ void __launch_bounds__(Threads)
    decoupled_look_back_scan(const T* in, T* out, std::int64_t n, Kind kind, unsigned* ticket,
                             State state, Spin spin, Op op) {
  __shared__ ch07::TileStorage<T, Threads, Items, ch07::kBestArrangement> storage;
  __shared__ T tile_prefix;
  constexpr int kTile = Threads * Items;
  const unsigned tile = ch09::take_ticket(ticket);
  const std::int64_t start = static_cast<std::int64_t>(tile) * kTile;
  const int valid = n - start < kTile ? static_cast<int>(n - start) : kTile;

  T items[Items];
  ch07::load_tile<ch07::kBestArrangement, Threads, Items>(in, start, valid, items, storage.exchange,
                                                           Op::template identity<T>());
  const T thread_total = ch07::thread_inclusive_scan(items, op);
  T aggregate;
  const T before = ch06::block_exclusive_scan(thread_total, op, storage.scan, aggregate);

  if (tile == 0) {
    if (threadIdx.x == 0) {
      state.publish(0, Status::prefix, aggregate);
      tile_prefix = Op::template identity<T>();
    }
  } else if (threadIdx.x < ch06::kWarpSize) {
    if (threadIdx.x == 0) state.publish(tile, Status::aggregate, aggregate);  // early: others may use it now
    T prefix;
    if constexpr (Walk == LookBack::warp) {
      prefix = look_back_warp<T>(state, tile, op, spin);
    } else {
      prefix = threadIdx.x == 0 ? look_back_serial<T>(state, tile, op, spin) : Op::template identity<T>();
    }
    if (threadIdx.x == 0) {
      state.publish(tile, Status::prefix, op(prefix, aggregate));
      tile_prefix = prefix;
    }
  }
  __syncthreads();

  ch07::add_prefix(items, op(tile_prefix, before), kind, op);
  ch07::store_tile<ch07::kBestArrangement, Threads, Items>(out, start, valid, items, storage.exchange);
}
//! [look-back kernel]

/// Registry entry: decoupled look-back with a tile shape, a walk, packing
/// (for 4-byte types) and back-off.
template <int Threads, int Items, LookBack Walk, bool Packed, bool BackOff, bool Tuning = false>
struct DecoupledLookBack {
  /// Elements per tile.
  static constexpr int kTile = Threads * Items;
  /// The tile state for T: packed where it fits one word and packing is on.
  template <class T>
  using State = std::conditional_t<Packed && sizeof(T) == 4, PackedTileState<T>, SplitTileState<T>>;

  /// Name, summary and limits, for the registry.
  static VariantInfo info() {
    VariantInfo v;
    const std::string shape = ch07::shape_name(Threads, Items);
    if (Tuning) {
      v.name = "tuned-" + shape;
    } else {
      v.name = Walk == LookBack::serial ? "serial-lookback" : Packed ? "tuned" : "warp-lookback";
    }
    v.summary = std::string(Walk == LookBack::serial ? "one thread looks back one tile at a time"
                                                     : "a warp looks back over 32 tiles at once") +
                (Packed ? ", status and value in one word (4-byte types)" : ", status and value apart") +
                (BackOff ? ", back-off" : "") + ", tiles of " + shape;
    v.block = Threads;
    v.items_per_thread = Items;
    v.float_order_varies = true;  // how many aggregates a look-back combines depends on timing
    v.tuning = Tuning;
    return v;
  }
  /// The scratch memory run() takes: the ticket and the tile states.
  template <class T, class Op>
  static void reserve(Workspace& workspace, std::int64_t n, int) {
    (void)take_state<T>(workspace, tile_count(n, kTile));
  }
  /// Scans r.in into r.out on r.stream.
  template <class T, class Op>
  static void run(const ScanRequest<T>& r, Op op) {
    Workspace workspace = r.workspace;
    const unsigned tiles = tile_count(r.n, kTile);
    const auto [ticket, state, reset_bytes] = take_state<T>(workspace, tiles);
    // The ticket and every status start at zero (empty) for each launch.
    SCAN_CUDA(cudaMemsetAsync(ticket, 0, reset_bytes, r.stream));
    decoupled_look_back_scan<Threads, Items, Walk><<<tiles, Threads, 0, r.stream>>>(
        r.in, r.out, r.n, r.kind, ticket, state, Spin{BackOff}, op);
    SCAN_CUDA_LAUNCH();
  }

 private:
  /// What run() takes from the workspace: the ticket, then the status
  /// words (one memset of `reset_bytes` clears both), then the value slots
  /// of the split state.
  template <class T>
  struct Taken {
    unsigned* ticket;
    State<T> state;
    std::size_t reset_bytes;
  };
  template <class T>
  static Taken<T> take_state(Workspace& workspace, std::size_t tiles) {
    unsigned* ticket = workspace.take<unsigned>(1);
    // Bytes from the ticket to the end of `count` words at `words`. (While
    // measuring, every pointer is null and the size is not needed.)
    const auto reset_bytes = [ticket](const auto* words, std::size_t count) -> std::size_t {
      if (ticket == nullptr) return 0;
      return static_cast<std::size_t>(reinterpret_cast<const char*>(words) + count * sizeof(*words) -
                                      reinterpret_cast<const char*>(ticket));
    };
    if constexpr (std::is_same_v<State<T>, PackedTileState<T>>) {
      auto* words = workspace.take<unsigned long long>(tiles);
      return {ticket, PackedTileState<T>{words}, reset_bytes(words, tiles)};
    } else {
      unsigned* status = workspace.take<unsigned>(tiles);
      const std::size_t reset = reset_bytes(status, tiles);
      T* aggregates = workspace.take<T>(tiles);
      T* prefixes = workspace.take<T>(tiles);
      return {ticket, SplitTileState<T>{status, aggregates, prefixes}, reset};
    }
  }
};

/// Tile shape of variants 1 and 2 (chapter 07's).
inline constexpr int kThreads = 256;
/// Items per thread of variants 1 and 2.
inline constexpr int kItems = 16;
/// Tile shape of the tuned variant, chosen by the sweep in the text.
inline constexpr int kTunedThreads = 128;
/// Items per thread of the tuned variant.
inline constexpr int kTunedItems = 24;

}  // namespace scan::ch10
