/// \file
/// \brief Chapter 12: the segmented operator, its warp, thread and block
///        scans, and the per-tile look-back that stops at a head.
///
/// The first of chapter 12's two headers (bulk.cuh follows it; segmented.cuh
/// includes both).
#pragma once

#include "copy_ceiling.cuh"        // chapter 11: warp-private tile movement, 16-byte states
#include "decoupled_lookback.cuh"  // chapter 10: tile states, back-off
#include "stream_scan.cuh"         // chapter 09: take_ticket
#include "warp_shuffle.cuh"        // chapter 06: warp scans

#include <scan/device.cuh>
#include <scan/registry.hpp>

#include <cuda/atomic>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

namespace scan::ch12 {

using ch10::BackOff;
using ch10::Status;

// kit: region segmented-op body "__host__ __device__ Flagged<T> operator()(const Flagged<T>& left, const Flagged<T>& right) const"
// kit: todo The segmented combination of `left` (the elements just before) and `right`: right's value
// kit: todo alone if right holds a head, else Op{}(left.value, right.value); the result holds a head if
// kit: todo either side does.
// kit: stub (void)left;
// kit: stub return right;
// [segmented operator]
/// A value and whether a segment starts inside the stretch it covers: the
/// element of the transformed scan.
template <class T>
struct Flagged {
  T value;    ///< the combination since the last head (or of the whole stretch, without one)
  bool head;  ///< a segment starts somewhere in the stretch
};

/// The segmented operator built from Op:
/// \f$ (a, f) \oplus_s (b, g) = (g\ ?\ b : a \oplus b,\ f \lor g) \f$.
/// The right operand's head cuts off everything on its left. It is
/// associative (the text proves it) and never commutative, whatever Op is.
template <class Op>
struct Segmented {
  /// `left` covers the elements just before `right`.
  template <class T>
  __host__ __device__ Flagged<T> operator()(const Flagged<T>& left, const Flagged<T>& right) const {
    return {right.head ? right.value : Op{}(left.value, right.value), left.head || right.head};
  }
  /// The identity: nothing, and no head.
  template <class T>
  __host__ __device__ static Flagged<T> identity() {
    return {Op::template identity<T>(), false};
  }
};
// [segmented operator]

// ---------------------------------------------------------------------------
// Warp level: the two constructions.

// [transformed warp scan]
/// Inclusive scan of (value, flag) pairs across a warp with the segmented
/// operator: chapter 06's Kogge-Stone, shuffling both halves of the pair.
template <class T, class Op>
__device__ __forceinline__ Flagged<T> warp_scan_transformed(Flagged<T> x, Op) {
  const int lane = threadIdx.x % kWarpSize;
#pragma unroll
  for (int offset = 1; offset < kWarpSize; offset *= 2) {
    const Flagged<T> left{__shfl_up_sync(kFullMask, x.value, offset),
                          static_cast<bool>(__shfl_up_sync(kFullMask, static_cast<int>(x.head), offset))};
    if (lane >= offset) x = Segmented<Op>{}(left, x);
  }
  return x;
}
// [transformed warp scan]

// kit: region direct-warp body "warp_scan_direct(Flagged<T> x, Op op)"
// kit: todo The warp's segmented inclusive scan by conditional indexing: a ballot of the heads gives each
// kit: todo lane its segment's start within the warp (the highest lane at or below it with a head; lane 0
// kit: todo without one). Five Kogge-Stone steps with __shfl_up_sync (offset 1 to 16) combine the value
// kit: todo from offset lanes back on the left only if that lane is not before the start. The result's
// kit: todo head: whether any lane at or below this one holds a head.
// kit: stub (void)op;
// kit: stub return x;
// [direct warp scan]
/// The same scan by conditional indexing. A ballot of the head flags tells
/// each lane where its segment starts within the warp (the highest lane at
/// or below it with a head: one count-leading-zeros); the Kogge-Stone steps
/// then add a value from `offset` lanes back only if that lane is still in
/// the segment. No flag travels with the values. (After the step with
/// offset d, lane l holds the combination of lanes max(start, l - 2d + 1)
/// to l: the lane it reads from has the same start, or it would not read.)
template <class T, class Op>
__device__ __forceinline__ Flagged<T> warp_scan_direct(Flagged<T> x, Op op) {
  const int lane = threadIdx.x % kWarpSize;
  const unsigned heads = __ballot_sync(kFullMask, x.head);
  const unsigned at_or_below = heads & (0xFFFFFFFFu >> (31 - lane));
  const int start = at_or_below != 0 ? 31 - __clz(at_or_below) : 0;  // without a head: lane 0
#pragma unroll
  for (int offset = 1; offset < kWarpSize; offset *= 2) {
    const T left = __shfl_up_sync(kFullMask, x.value, offset);
    if (lane - offset >= start) x.value = op(left, x.value);
  }
  x.head = at_or_below != 0;
  return x;
}
// [direct warp scan]

/// The two constructions, as the tile code takes them.
enum class Construction { transformed, direct };

/// The warp scan a Construction names.
template <Construction C, class T, class Op>
__device__ __forceinline__ Flagged<T> warp_scan(Flagged<T> x, Op op) {
  if constexpr (C == Construction::transformed) {
    return warp_scan_transformed(x, op);
  } else {
    return warp_scan_direct(x, op);
  }
}

// ---------------------------------------------------------------------------
// Block level.

/// Shared memory of a segmented block scan: each warp's total.
template <class T>
struct SegmentedScanStorage {
  T values[kWarpSize];     ///< each warp's value
  bool heads[kWarpSize];   ///< whether each warp holds a head
};

// [block scan]
/// Exclusive segmented scan across the block of each thread's (value, flag):
/// thread t gets the combination of threads 0..t-1 (the identity, no head,
/// for thread 0) and `total` the whole block's. A warp scan in every warp,
/// one more over the warps' totals, and a combine: chapter 06's block scan
/// with the segmented operator, each warp scan done by construction C.
template <Construction C, class T, class Op>
__device__ Flagged<T> block_exclusive_scan(Flagged<T> x, Op op, SegmentedScanStorage<T>& storage,
                                           Flagged<T>& total) {
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  const int warps = blockDim.x / kWarpSize;
  const Flagged<T> in_warp = warp_scan<C>(x, op);
  if (lane == kWarpSize - 1) {
    storage.values[warp] = in_warp.value;
    storage.heads[warp] = in_warp.head;
  }
  __syncthreads();
  if (warp == 0) {
    Flagged<T> warp_total = Segmented<Op>::template identity<T>();
    if (lane < warps) warp_total = {storage.values[lane], storage.heads[lane]};
    const Flagged<T> scanned = warp_scan<C>(warp_total, op);
    storage.values[lane] = scanned.value;
    storage.heads[lane] = scanned.head;
  }
  __syncthreads();
  total = {storage.values[warps - 1], storage.heads[warps - 1]};
  const Flagged<T> before_warp = warp == 0 ? Segmented<Op>::template identity<T>()
                                           : Flagged<T>{storage.values[warp - 1], storage.heads[warp - 1]};
  // The lanes before this one in the warp: the previous lane's inclusive value.
  const Flagged<T> left{__shfl_up_sync(kFullMask, in_warp.value, 1),
                        static_cast<bool>(__shfl_up_sync(kFullMask, static_cast<int>(in_warp.head), 1))};
  return lane == 0 ? before_warp : Segmented<Op>{}(before_warp, left);
}
// [block scan]

// ---------------------------------------------------------------------------
// Thread level: a thread's Items consecutive elements.

// [thread scan]
/// A thread's own segmented scan of its items, in registers: each item
/// becomes the combination since the last head at or before it (within the
/// thread). Returns the thread's total: (value after its last head, or of
/// all its items; whether it has a head).
template <int Items, class T, class Op>
__device__ __forceinline__ Flagged<T> thread_scan(T (&items)[Items], const bool (&heads)[Items], Op op) {
  bool any = heads[0];
#pragma unroll
  for (int j = 1; j < Items; ++j) {
    if (!heads[j]) items[j] = op(items[j - 1], items[j]);
    any = any || heads[j];
  }
  return {items[Items - 1], any};
}

/// Turns a thread's scanned items into the result, given `before`, the
/// combination of everything since the last head before the thread's first
/// item: items up to the thread's first head get `before` on their left.
/// Exclusive: each item takes its left neighbour's inclusive value, and the
/// identity at a head.
template <int Items, class T, class Op>
__device__ __forceinline__ void add_prefix(T (&items)[Items], const bool (&heads)[Items], T before, Kind kind,
                                           Op op) {
  bool cut = false;  // a head at or before item j, within the thread
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    cut = cut || heads[j];
    if (!cut) items[j] = op(before, items[j]);
  }
  if (kind == Kind::exclusive) {
#pragma unroll
    for (int j = Items - 1; j > 0; --j) items[j] = heads[j] ? Op::template identity<T>() : items[j - 1];
    items[0] = heads[0] ? Op::template identity<T>() : before;
  }
}
// [thread scan]

// ---------------------------------------------------------------------------
// Device level: a single pass with decoupled look-back.

/// The state word of one tile: 64 bits for 4-byte T, 128 for 8-byte T.
template <class T, bool Wide = (sizeof(T) == 8)>
struct FlaggedWord {
  using type = unsigned long long;  ///< (status and flag) << 32 | value bits
};
/// \cond SPECIALIZATIONS
template <class T>
struct FlaggedWord<T, true> {
  using type = typename ch11::WideTileState<T>::Word;
};
/// \endcond

// [flagged state]
/// Tile states that carry the head flag with the value: a Status in the
/// low two bits of the status word and the flag in bit 2. For 4-byte T one
/// 64-bit word (as chapter 10's packed state), for 8-byte T one 16-byte word
/// (as chapter 11's).
template <class T>
struct FlaggedTileState {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "4- or 8-byte values");
  /// One tile's state word.
  using Word = typename FlaggedWord<T>::type;
  Word* words;  ///< per tile

  /// Publishes a tile's aggregate or inclusive prefix with its flag.
  __device__ void publish(unsigned tile, Status what, const Flagged<T>& x) const {
    const unsigned status = static_cast<unsigned>(what) | (x.head ? 4u : 0u);
    if constexpr (sizeof(T) == 4) {
      unsigned bits;
      std::memcpy(&bits, &x.value, sizeof bits);
      cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> word(words[tile]);
      word.store((static_cast<unsigned long long>(status) << 32) | bits, cuda::memory_order_relaxed);
    } else {
      ch11::WideTileState<T>{words}.publish(tile, static_cast<Status>(status), x.value);
    }
  }
  /// Reads a tile's status, value and flag in one load.
  __device__ Status load(unsigned tile, Flagged<T>& x) const {
    unsigned status;
    if constexpr (sizeof(T) == 4) {
      cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> word(words[tile]);
      const unsigned long long w = word.load(cuda::memory_order_relaxed);
      const auto bits = static_cast<unsigned>(w);
      std::memcpy(&x.value, &bits, sizeof bits);
      status = static_cast<unsigned>(w >> 32);
    } else {
      status = static_cast<unsigned>(ch11::WideTileState<T>{words}.load(tile, x.value));
    }
    x.head = (status & 4u) != 0;
    return static_cast<Status>(status & 3u);
  }
};
// [flagged state]

// [segmented look-back]
/// Chapter 10's warp look-back over (value, flag) pairs. A predecessor ends
/// the walk if it has published its inclusive prefix, *or* if its
/// aggregate holds a head: nothing before a head matters. So with short
/// segments a look-back rarely goes past its nearest predecessor. Returns
/// the combination of everything since the last head before tile `tile`.
template <Construction C, class T, class Op, class State>
__device__ Flagged<T> look_back(const State& state, unsigned tile, Op op, BackOff wait) {
  const int lane = threadIdx.x % kWarpSize;
  Flagged<T> prefix = Segmented<Op>::template identity<T>();
  for (long long end = tile;; end -= kWarpSize) {
    const long long j = end - kWarpSize + lane;
    Flagged<T> x = Segmented<Op>::template identity<T>();
    Status s = Status::prefix;  // before tile 0: nothing, and the walk ends
    unsigned nap_ns = wait.first_nap_ns;
    if (j >= 0) {
      while ((s = state.load(static_cast<unsigned>(j), x)) == Status::empty) wait.nap(nap_ns);
    }
    const unsigned stops = __ballot_sync(kFullMask, s == Status::prefix || x.head);
    const int stop = stops != 0 ? 31 - __clz(stops) : -1;
    if (lane < stop) x = Segmented<Op>::template identity<T>();
    const Flagged<T> scanned = warp_scan<C>(x, op);
    const Flagged<T> window{__shfl_sync(kFullMask, scanned.value, 31),
                            static_cast<bool>(__shfl_sync(kFullMask, static_cast<int>(scanned.head), 31))};
    prefix = Segmented<Op>{}(window, prefix);  // the window comes before what was gathered
    if (stops != 0) return prefix;
  }
}
// [segmented look-back]

/// How a tile learns where its segments start.
enum class Marks {
  heads,  ///< one-byte head flags
  keys,   ///< 4-byte keys: a segment starts where the key changes (a scan by key)
};

/// Loads the head flags of a thread's Items consecutive elements (from
/// `start + threadIdx.x * Items`), or makes them from the keys; elements
/// past `valid` get no head (they are padding).
template <Marks M, int Items>
__device__ __forceinline__ void load_heads(const std::uint8_t* heads, const std::int32_t* keys, std::int64_t start,
                                           int valid, bool (&flags)[Items]) {
  const int first = threadIdx.x * Items;
  if constexpr (M == Marks::heads) {
    const std::uint8_t* mine = heads + start + first;
    if (first + Items <= valid && Items % 16 == 0 && reinterpret_cast<std::uintptr_t>(mine) % 16 == 0) {
      // Whole 16-byte vectors of flags.
#pragma unroll
      for (int v = 0; v < Items / 16; ++v) {
        const uint4 packed = reinterpret_cast<const uint4*>(mine)[v];
        const unsigned words[4] = {packed.x, packed.y, packed.z, packed.w};
#pragma unroll
        for (int k = 0; k < 16; ++k) flags[v * 16 + k] = ((words[k / 4] >> (8 * (k % 4))) & 0xFFu) != 0;
      }
    } else if (first + Items <= valid && Items % 4 == 0 && reinterpret_cast<std::uintptr_t>(mine) % 4 == 0) {
      // Whole 4-byte words of flags (28 items per thread: seven words,
      // each thread's flags 4-byte aligned but not 16-byte aligned).
#pragma unroll
      for (int w = 0; w < Items / 4; ++w) {
        const unsigned word = reinterpret_cast<const unsigned*>(mine)[w];
#pragma unroll
        for (int k = 0; k < 4; ++k) flags[w * 4 + k] = ((word >> (8 * k)) & 0xFFu) != 0;
      }
    } else {
#pragma unroll
      for (int j = 0; j < Items; ++j) flags[j] = first + j < valid && mine[j] != 0;
    }
  } else {
    const std::int64_t at = start + first;
    std::int32_t previous = at > 0 && first < valid ? keys[at - 1] : 0;
#pragma unroll
    for (int j = 0; j < Items; ++j) {
      const bool inside = first + j < valid;
      const std::int32_t key = inside ? keys[at + j] : previous;
      flags[j] = inside && (at + j == 0 || key != previous);
      previous = key;
    }
  }
}

// [segmented kernel]
/// One block per tile of Threads x Items, in ticket order (chapter 10's
/// kernel with (value, flag) pairs). Each thread scans its items in
/// segments, the block scans the threads' totals (construction C), the
/// tile publishes its aggregate and flag, looks back (warp 0), and finishes.
/// Values travel through warp-private transposes (chapter 11). `ticket`
/// and the tile states must be zero at launch.
template <int Threads, int Items, Construction C, Marks M, class T, class Op>
__global__ void __launch_bounds__(Threads)
    segmented_scan(const T* in, const std::uint8_t* heads, const std::int32_t* keys, T* out, std::int64_t n,
                   Kind kind, unsigned* ticket, FlaggedTileState<T> state, BackOff wait, Op op) {
  __shared__ ch11::WarpTileStorage<T, Threads, Items> tile_storage;
  __shared__ SegmentedScanStorage<T> scan_storage;
  __shared__ Flagged<T> tile_prefix;
  constexpr int kTile = Threads * Items;
  const unsigned tile = ch09::take_ticket(ticket);
  const TileSpan span = tile_span(tile, kTile, n);

  T items[Items];
  bool flags[Items];
  ch11::WarpTileIo::load<Threads, Items>(in, span.start, span.valid, items, tile_storage, Op::template identity<T>());
  load_heads<M>(heads, keys, span.start, span.valid, flags);
  const Flagged<T> thread_total = thread_scan(items, flags, op);
  Flagged<T> aggregate;
  const Flagged<T> before = block_exclusive_scan<C>(thread_total, op, scan_storage, aggregate);

  if (threadIdx.x < kWarpSize) {
    // A tile that holds a head knows its inclusive prefix at once: nothing
    // before that head reaches past it. A tile that starts with a head
    // needs nothing from its predecessors at all.
    const bool starts_with_head = __shfl_sync(kFullMask, static_cast<int>(flags[0]), 0) != 0;
    if (threadIdx.x == 0) state.publish(tile, aggregate.head ? Status::prefix : Status::aggregate, aggregate);
    Flagged<T> prefix = Segmented<Op>::template identity<T>();
    if (!starts_with_head) {
      wait.settle(tile);
      prefix = look_back<C, T>(state, tile, op, wait);
      if (threadIdx.x == 0 && !aggregate.head) state.publish(tile, Status::prefix, Segmented<Op>{}(prefix, aggregate));
    }
    if (threadIdx.x == 0) tile_prefix = prefix;
  }
  __syncthreads();

  // Everything since the last head before this thread's first item.
  const Flagged<T> thread_before = Segmented<Op>{}(tile_prefix, before);
  add_prefix(items, flags, thread_before.value, kind, op);
  ch11::WarpTileIo::store<Threads, Items>(out, span.start, span.valid, items, tile_storage);
}
// [segmented kernel]

// [offsets]
/// Head flags from segment start offsets, the other common way to name
/// segments (CSR's row pointers: segment k starts at offsets[k]). Writes n
/// flags on `stream`: 1 at element 0 and at every offset in [0, n), 0
/// elsewhere. `offsets` is device memory; empty segments (repeated
/// offsets) simply mark the same element twice.
void offsets_to_heads(const std::int64_t* offsets, std::int64_t count, std::int64_t n, std::uint8_t* heads,
                      cudaStream_t stream);
// [offsets]

/// Tile shape of the chapter's variants (chapter 11's per-tile shape).
inline constexpr int kThreads = 128;
/// Items per thread.
inline constexpr int kItems = 32;

/// Throws std::logic_error unless the request carries the marks `M` reads
/// (the harness and scan_stress pass both: a check for a bug, not for input).
template <Marks M, class T>
void require_marks(const ScanRequest<T>& r) {
  if ((M == Marks::heads ? static_cast<const void*>(r.heads) : static_cast<const void*>(r.keys)) == nullptr) {
    throw std::logic_error("a segmented scan needs the segments' " +
                           std::string(M == Marks::heads ? "head flags" : "keys"));
  }
}

/// The scratch memory of both single-pass kernels: the ticket, then one
/// flagged tile state per tile (chapter 10's take_ticket_and_words()).
/// Both must be zero at launch.
template <class T>
ch10::TicketAndWords<typename FlaggedTileState<T>::Word> take_ticket_and_states(Workspace& workspace,
                                                                               std::int64_t n, int tile) {
  return ch10::take_ticket_and_words<typename FlaggedTileState<T>::Word>(workspace, tile_count(n, tile));
}

/// Everything that tells the per-tile variants apart, by name (chapter
/// 11's Recipe style): `SegmentedScan<PerTileRecipe{.marks = Marks::keys}>`
/// is the scan by key, every other field at its default.
struct PerTileRecipe {
  Construction construction = Construction::direct;  ///< how (value, flag) pairs are combined
  Marks marks = Marks::heads;                         ///< head flags, or keys that change
  BackOff wait = ch10::kSettle;                       ///< how a tile waits before looking back
  int threads = kThreads;                             ///< threads per block
  int items = kItems;                                 ///< items per thread
};

/// Registry entry: the single-pass segmented scan of recipe R.
template <PerTileRecipe R>
struct SegmentedScan {
  /// Elements per tile.
  static constexpr int kTile = R.threads * R.items;

  /// Name, summary and limits, for the registry.
  static VariantInfo info() {
    constexpr bool kKeys = R.marks == Marks::keys;
    constexpr bool kTransformed = R.construction == Construction::transformed;
    constexpr bool kShape = R.threads != kThreads || R.items != kItems;
    constexpr bool kSpins = R.wait.settle_ns == 0;
    VariantInfo v;
    v.name = kKeys ? "by-key" : kTransformed ? "transformed" : "direct";
    if (kShape) v.name.append("-").append(ch07::shape_name(R.threads, R.items));
    if (R.wait.settle_ns != ch10::kSettle.settle_ns) {
      v.name += kSpins ? std::string("-spin") : std::string("-settle").append(std::to_string(R.wait.settle_ns));
    }
    v.summary = std::string(kTransformed ? "operator transformation: (value, flag) pairs"
                                         : "direct: conditional indexing from a ballot of heads") +
                (kKeys ? ", segments where a 4-byte key changes" : ", one-byte head flags") +
                ", single pass with a flagged look-back" + (kSpins ? ", spins" : "") + ", tiles of " +
                ch07::shape_name(R.threads, R.items);
    v.block = R.threads;
    v.items_per_thread = R.items;
    v.float_order_varies = true;  // as chapter 10: the look-back's order depends on timing
    v.segmented = true;
    v.tuning = kShape || R.wait.settle_ns != ch10::kSettle.settle_ns;
    return v;
  }
  /// The scratch memory run() takes: the ticket and the tile states.
  template <class T, class Op>
  static void reserve(Workspace& workspace, std::int64_t n, int) {
    (void)take_ticket_and_states<T>(workspace, n, kTile);
  }
  /// Scans r.in into r.out on r.stream, restarting at r.heads (or where r.keys changes).
  template <class T, class Op>
  static void run(const ScanRequest<T>& r, Op op) {
    require_marks<R.marks>(r);
    const auto kernel = segmented_scan<R.threads, R.items, R.construction, R.marks, T, Op>;
    static const int resident = resident_blocks(kernel, R.threads);
    Workspace workspace = r.workspace;
    const unsigned tiles = tile_count(r.n, kTile);
    const auto scratch = take_ticket_and_states<T>(workspace, r.n, kTile);
    SCAN_CUDA(cudaMemsetAsync(scratch.ticket, 0, scratch.reset_bytes, r.stream));
    BackOff wait = R.wait;
    wait.first_settling_tile = static_cast<unsigned>(resident);
    kernel<<<tiles, R.threads, 0, r.stream>>>(r.in, r.heads, r.keys, r.out, r.n, r.kind, scratch.ticket,
                                              FlaggedTileState<T>{scratch.words}, wait, op);
    SCAN_CUDA_LAUNCH();
  }
};

}  // namespace scan::ch12
