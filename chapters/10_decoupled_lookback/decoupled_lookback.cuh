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
  /// moments before it: most are still looking back themselves, so it finds
  /// aggregates and walks on, window after window, while its block holds its
  /// place on the SM. A few microseconds later the nearest predecessors
  /// have published their prefixes. The text measures what this buys.
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
inline constexpr BackOff kNoBackOff{0, 0, 0, 0};

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
  const int lane = threadIdx.x % ch06::kWarpSize;
  T prefix = Op::template identity<T>();
  for (long long end = tile;; end -= ch06::kWarpSize) {
    const long long j = end - ch06::kWarpSize + lane;
    T value = Op::template identity<T>();  // before tile 0: the identity, as a prefix
    Status s = Status::prefix;
    unsigned nap_ns = wait.first_nap_ns;
    if (j >= 0) {
      while ((s = state.load(static_cast<unsigned>(j), value)) == Status::empty) wait.nap(nap_ns);
    }
    const unsigned prefix_lanes = __ballot_sync(ch06::kFullMask, s == Status::prefix);
    const int stop = prefix_lanes != 0 ? 31 - __clz(prefix_lanes) : -1;
    if (lane < stop) value = Op::template identity<T>();
    const T window = __shfl_sync(ch06::kFullMask, ch06::warp_inclusive_scan(value, op), 31);
    prefix = op(window, prefix);
    if (prefix_lanes != 0) return prefix;
  }
}
// [warp look-back]

/// How a tile learns its prefix.
enum class LookBack { serial, warp };

/// How a tile travels between global memory and registers.
enum class TileIo {
  /// Chapter 07's vector-transposed tile: the whole block regroups the tile
  /// in shared memory, with a barrier before and after.
  block,
  /// Each warp regroups its own 32 x Items elements in its own slice of
  /// shared memory: only __syncwarp(), no block barrier.
  warp,
};

// [warp tile]
/// Shared memory of a tile moved warp by warp: a private exchange slice per
/// warp, with the same padding as chapter 07's, and the block scan's
/// storage. Unlike chapter 07's TileStorage they must not share bytes: one
/// warp may still regroup its slice while another already writes its warp
/// total.
template <class T, int Threads, int Items>
struct WarpTileStorage {
  static constexpr int kWarpItems = ch06::kWarpSize * Items;  ///< elements per warp
  static constexpr int kSliceSlots = kWarpItems + kWarpItems / 32;  ///< with one spare slot per 32
  T exchange[Threads / ch06::kWarpSize][kSliceSlots];  ///< one slice per warp
  ch06::BlockScanStorage<T> scan;                      ///< the block scan of thread totals
};

/// Loads this warp's 32 x Items elements of the tile at `start` (blocked:
/// lane l gets the warp's elements l * Items ...), padding past `valid`.
/// Full tiles travel as 16-byte vectors, consecutive across the warp.
template <int Threads, int Items, class T>
__device__ __forceinline__ void load_warp_tile(const T* in, std::int64_t start, int valid, T (&items)[Items],
                                               T* slice, T padding) {
  constexpr int kWarpItems = ch06::kWarpSize * Items;
  constexpr int kWidth = kVectorItems<T>;
  static_assert(Items % kWidth == 0, "whole vectors per thread");
  const int lane = threadIdx.x % ch06::kWarpSize;
  const int first = threadIdx.x / ch06::kWarpSize * kWarpItems;  // the warp's first element in the tile
  if (valid == Threads * Items && reinterpret_cast<std::uintptr_t>(in) % 16 == 0) {
    const auto* vectors = reinterpret_cast<const Vector<T>*>(in + start + first);
#pragma unroll
    for (int v = 0; v < Items / kWidth; ++v) {
      const Vector<T> loaded = vectors[v * ch06::kWarpSize + lane];
#pragma unroll
      for (int k = 0; k < kWidth; ++k) {
        slice[ch07::exchange_slot((v * ch06::kWarpSize + lane) * kWidth + k)] = loaded.values[k];
      }
    }
  } else {
#pragma unroll
    for (int j = 0; j < Items; ++j) {
      const int e = j * ch06::kWarpSize + lane;
      slice[ch07::exchange_slot(e)] = first + e < valid ? in[start + first + e] : padding;
    }
  }
  __syncwarp();
#pragma unroll
  for (int j = 0; j < Items; ++j) items[j] = slice[ch07::exchange_slot(lane * Items + j)];
}

/// Stores this warp's items (blocked) to the tile at `start`, its first
/// `valid` elements only: the mirror image of load_warp_tile().
template <int Threads, int Items, class T>
__device__ __forceinline__ void store_warp_tile(T* out, std::int64_t start, int valid, const T (&items)[Items],
                                                T* slice) {
  constexpr int kWarpItems = ch06::kWarpSize * Items;
  constexpr int kWidth = kVectorItems<T>;
  const int lane = threadIdx.x % ch06::kWarpSize;
  const int first = threadIdx.x / ch06::kWarpSize * kWarpItems;
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
        packed.values[k] = slice[ch07::exchange_slot((v * ch06::kWarpSize + lane) * kWidth + k)];
      }
      vectors[v * ch06::kWarpSize + lane] = packed;
    }
  } else {
#pragma unroll
    for (int j = 0; j < Items; ++j) {
      const int e = j * ch06::kWarpSize + lane;
      if (first + e < valid) out[start + first + e] = slice[ch07::exchange_slot(e)];
    }
  }
}
// [warp tile]

/// Shared memory of the look-back kernel, for either TileIo.
template <TileIo Io, class T, int Threads, int Items>
using LookBackStorage = std::conditional_t<Io == TileIo::warp, WarpTileStorage<T, Threads, Items>,
                                           ch07::TileStorage<T, Threads, Items, ch07::kBestArrangement>>;

// [look-back kernel]
/// One block per tile of Threads x Items, in ticket order. The tile publishes
/// its aggregate as soon as its block scan has it, looks back (warp 0, or
/// thread 0), publishes its inclusive prefix, and finishes its tile.
/// `ticket` and the tile states must be zero at launch.
template <int Threads, int Items, LookBack Walk, TileIo Io, class State, class T, class Op>
__global__ void __launch_bounds__(Threads)
    decoupled_look_back_scan(const T* in, T* out, std::int64_t n, Kind kind, unsigned* ticket,
                             State state, BackOff wait, Op op) {
  __shared__ LookBackStorage<Io, T, Threads, Items> storage;
  __shared__ T tile_prefix;
  constexpr int kTile = Threads * Items;
  const unsigned tile = ch09::take_ticket(ticket);
  const std::int64_t start = static_cast<std::int64_t>(tile) * kTile;
  const int valid = n - start < kTile ? static_cast<int>(n - start) : kTile;

  T items[Items];
  if constexpr (Io == TileIo::warp) {
    load_warp_tile<Threads, Items>(in, start, valid, items, storage.exchange[threadIdx.x / ch06::kWarpSize],
                                   Op::template identity<T>());
  } else {
    ch07::load_tile<ch07::kBestArrangement, Threads, Items>(in, start, valid, items, storage.exchange,
                                                             Op::template identity<T>());
  }
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
    wait.settle(tile);
    T prefix;
    if constexpr (Walk == LookBack::warp) {
      prefix = look_back_warp<T>(state, tile, op, wait);
    } else {
      prefix = threadIdx.x == 0 ? look_back_serial<T>(state, tile, op, wait) : Op::template identity<T>();
    }
    if (threadIdx.x == 0) {
      state.publish(tile, Status::prefix, op(prefix, aggregate));
      tile_prefix = prefix;
    }
  }
  __syncthreads();

  ch07::add_prefix(items, op(tile_prefix, before), kind, op);
  if constexpr (Io == TileIo::warp) {
    store_warp_tile<Threads, Items>(out, start, valid, items, storage.exchange[threadIdx.x / ch06::kWarpSize]);
  } else {
    ch07::store_tile<ch07::kBestArrangement, Threads, Items>(out, start, valid, items, storage.exchange);
  }
}
// [look-back kernel]

/// Blocks of `kernel` (with `threads` threads) the current device holds at
/// once.
template <class Kernel>
int resident_blocks(Kernel kernel, int threads) {
  int device = 0;
  int sms = 0;
  int per_sm = 0;
  SCAN_CUDA(cudaGetDevice(&device));
  SCAN_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  SCAN_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0));
  return sms * per_sm;
}

/// How a sweep point's name spells its tile movement and back-off, e.g.
/// "-warp-io-settle1200-nap640".
std::string sweep_suffix(TileIo io, BackOff wait);

/// Which variant a Recipe makes.
enum class Role { serial_lookback, warp_lookback, tuned, sweep };

/// Everything that tells this chapter's variants apart: tile shape, walk, state, back-off, tile movement.
struct Recipe {
  int threads;                    ///< threads per block
  int items;                      ///< items per thread
  LookBack walk = LookBack::warp; ///< who looks back
  bool packed = false;            ///< status and value in one word (4-byte types)
  BackOff wait = kNoBackOff;      ///< how a waiting tile spins
  TileIo io = TileIo::block;      ///< how the tile moves
  Role role = Role::sweep;        ///< which variant it is
};

/// Registry entry: decoupled look-back with a tile shape, a walk, packing
/// (for 4-byte types), back-off and tile movement.
template <Recipe Config>
struct DecoupledLookBack {
  static constexpr int Threads = Config.threads;  ///< threads per block
  static constexpr int Items = Config.items;      ///< items per thread
  /// Elements per tile.
  static constexpr int kTile = Threads * Items;
  /// The tile state for T: packed where it fits one word and packing is on.
  template <class T>
  using State = std::conditional_t<Config.packed && sizeof(T) == 4, PackedTileState<T>, SplitTileState<T>>;

  /// Name, summary and limits, for the registry.
  static VariantInfo info() {
    VariantInfo v;
    const std::string shape = ch07::shape_name(Threads, Items);
    switch (Config.role) {
      case Role::serial_lookback: v.name = "serial-lookback"; break;
      case Role::warp_lookback: v.name = "warp-lookback"; break;
      case Role::tuned: v.name = "tuned"; break;
      case Role::sweep: v.name = shape + sweep_suffix(Config.io, Config.wait); break;
    }
    v.summary = std::string(Config.walk == LookBack::serial ? "one thread looks back one tile at a time"
                                                            : "a warp looks back over 32 tiles at once") +
                (Config.packed ? ", status and value in one word (4-byte types)" : ", status and value apart") +
                (Config.wait.first_nap_ns != 0 ? ", back-off" : "") +
                (Config.wait.settle_ns != 0 ? ", settles before looking" : "") +
                (Config.io == TileIo::warp ? ", warp-private transposes" : "") + ", tiles of " + shape;
    v.block = Threads;
    v.items_per_thread = Items;
    v.float_order_varies = true;  // how many aggregates a look-back combines depends on timing
    v.tuning = Config.role == Role::sweep;
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
    const auto kernel = decoupled_look_back_scan<Threads, Items, Config.walk, Config.io, State<T>, T, Op>;
    static const int resident = resident_blocks(kernel, Threads);  // once per kernel (one device per program)
    Workspace workspace = r.workspace;
    const unsigned tiles = tile_count(r.n, kTile);
    const auto [ticket, state, reset_bytes] = take_state<T>(workspace, tiles);
    BackOff wait = Config.wait;
    wait.first_settling_tile = static_cast<unsigned>(resident);
    // The ticket and every status start at zero (empty) for each launch.
    SCAN_CUDA(cudaMemsetAsync(ticket, 0, reset_bytes, r.stream));
    kernel<<<tiles, Threads, 0, r.stream>>>(r.in, r.out, r.n, r.kind, ticket, state, wait, op);
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
/// The tuned variant's back-off, chosen by the sweep in the text.
inline constexpr BackOff kPatient{3000, 640, 640, 0};
/// The tuned variant: shape, movement and back-off chosen by the sweeps in the text.
inline constexpr Recipe kTuned{128, 32, LookBack::warp, true, kPatient, TileIo::warp, Role::tuned};

}  // namespace scan::ch10
