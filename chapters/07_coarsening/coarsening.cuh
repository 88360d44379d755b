/// \file
/// \brief Chapter 07: many items per thread (thread coarsening).
///
/// A block scans a tile of Threads x Items elements in three phases:
/// 1. each thread scans its Items consecutive elements in registers;
/// 2. the block scans the threads' totals (chapter 06's block scan);
/// 3. each thread combines its items with the total of the threads before it.
/// Getting the tile into registers with coalesced accesses is half the work:
/// through a shared-memory transpose, or with 16-byte vector loads.
///
/// The pieces (load_tile, thread_inclusive_scan, add_prefix, store_tile) are
/// device functions that chapters 08 to 10 compose with their own grid-level
/// schemes, as CUB composes its block-level primitives.
#pragma once

#include "warp_shuffle.cuh"  // chapter 06: block_exclusive_scan

#include "block_sums.cuh"  // chapter 02: the block-sums glue
#include <scan/device.cuh>
#include <scan/registry.hpp>
#include <scan/trace.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace scan::ch07 {

/// The chapter's variants.
const Chapter& chapter();

/// How a tile travels between global memory and registers.
enum class Arrangement {
  direct,      ///< each thread reads its own Items consecutive elements (uncoalesced)
  transposed,  ///< the warp reads consecutive elements; shared memory regroups them
  vectorized,  ///< each thread reads its own elements as 16-byte vectors
  /// 16-byte vectors, consecutive across the warp; shared memory regroups them
  vector_transposed,
};

/// True for the arrangements that regroup the tile in shared memory.
SCAN_HD constexpr bool uses_exchange(Arrangement mode) {
  return mode == Arrangement::transposed || mode == Arrangement::vector_transposed;
}

// [tile storage]
/// Shared memory of one tile scan. The exchange buffer (for the transpose)
/// and the block scan's storage are never in use at the same time, so they
/// share the same bytes; a barrier separates their uses. Only the
/// transposing arrangements need the exchange buffer.
template <class T, int Threads, int Items, Arrangement Mode>
struct TileStorage {
  /// One spare slot after every 32 elements (see exchange_slot()). For
  /// 4-byte elements it makes the striped vector accesses conflict-free for
  /// every Items, and the blocked accesses (a thread's Items consecutive
  /// elements) only when Items divides 32; Items = 12 or 24 keeps two-way
  /// conflicts there. Striped scalar accesses are conflict-free either way.
  static constexpr int kSlots = uses_exchange(Mode) ? Threads * Items + Threads * Items / 32 : 1;
  union {
    T exchange[kSlots];                  ///< the tile, during a transpose
    ch06::BlockScanStorage<T> scan;      ///< the block scan of thread totals
  };
};
// [tile storage]

/// Slot of tile element e in TileStorage::exchange.
__device__ __forceinline__ int exchange_slot(int e) { return e + e / 32; }

/// Direct (blocked) access: thread t reads its own Items consecutive
/// elements. Consecutive lanes are Items elements apart, so one warp-wide
/// load touches Items times more memory segments than it uses.
template <int Items, class T>
__device__ __forceinline__ void load_direct(const T* in, std::int64_t start, int valid, T (&items)[Items],
                                            T padding) {
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    const int e = threadIdx.x * Items + j;
    items[j] = e < valid ? in[start + e] : padding;
  }
}

/// The mirror image of load_direct(): stores the first `valid` elements.
template <int Items, class T>
__device__ __forceinline__ void store_direct(T* out, std::int64_t start, int valid, const T (&items)[Items]) {
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    const int e = threadIdx.x * Items + j;
    if (e < valid) out[start + e] = items[j];
  }
}

// [load tile]
/// Loads the tile that starts at `start` (with `valid` elements, the rest
/// padded with `padding`) into `items`, in the *blocked* arrangement:
/// thread t holds elements t * Items ... t * Items + Items - 1.
/// The transposed mode ends with a barrier (the exchange buffer is free).
template <Arrangement Mode, int Threads, int Items, class T>
__device__ __forceinline__ void load_tile(const T* in, std::int64_t start, int valid, T (&items)[Items],
                                          T* exchange, T padding) {
  const int t = threadIdx.x;
  if constexpr (uses_exchange(Mode)) {
    static_assert(Mode != Arrangement::vector_transposed || Items % kVectorItems<T> == 0,
                  "vector loads need Items to be a multiple of 16 / sizeof(T)");
    constexpr int kVectors = Items / kVectorItems<T>;
    if (Mode == Arrangement::vector_transposed && valid == Threads * Items &&
        reinterpret_cast<std::uintptr_t>(in) % 16 == 0) {
      // Striped vectors: in round v, consecutive threads read consecutive
      // 16-byte vectors, so one warp-wide load covers 512 contiguous bytes.
      const auto* vectors = reinterpret_cast<const Vector<T>*>(in + start);
#pragma unroll
      for (int v = 0; v < kVectors; ++v) {
        const Vector<T> loaded = vectors[v * Threads + t];
        const int e = (v * Threads + t) * kVectorItems<T>;
#pragma unroll
        for (int k = 0; k < kVectorItems<T>; ++k) exchange[exchange_slot(e + k)] = loaded.values[k];
      }
    } else {
      // Striped: in round j, consecutive threads read consecutive elements.
#pragma unroll
      for (int j = 0; j < Items; ++j) {
        const int e = j * Threads + t;
        exchange[exchange_slot(e)] = e < valid ? in[start + e] : padding;
      }
    }
    __syncthreads();
    // Blocked: each thread takes its Items consecutive elements.
#pragma unroll
    for (int j = 0; j < Items; ++j) items[j] = exchange[exchange_slot(t * Items + j)];
    __syncthreads();
  } else if constexpr (Mode == Arrangement::vectorized) {
    static_assert(Items % kVectorItems<T> == 0, "vector loads need Items to be a multiple of 16 / sizeof(T)");
    if (valid == Threads * Items && reinterpret_cast<std::uintptr_t>(in) % 16 == 0) {
      // Items / 4 (or / 2) loads of 16 bytes each instead of Items of 4 (or 8).
      const auto* vectors = reinterpret_cast<const Vector<T>*>(in + start + t * Items);
#pragma unroll
      for (int v = 0; v < Items / kVectorItems<T>; ++v) {
        const Vector<T> loaded = vectors[v];
#pragma unroll
        for (int k = 0; k < kVectorItems<T>; ++k) items[v * kVectorItems<T> + k] = loaded.values[k];
      }
    } else {
      load_direct(in, start, valid, items, padding);  // the last, partial tile
    }
  } else {
    load_direct(in, start, valid, items, padding);
  }
}
// [load tile]

/// Stores `items` (blocked arrangement) to the tile at `start`, its first
/// `valid` elements only; the mirror image of load_tile().
template <Arrangement Mode, int Threads, int Items, class T>
__device__ __forceinline__ void store_tile(T* out, std::int64_t start, int valid, const T (&items)[Items],
                                           T* exchange) {
  const int t = threadIdx.x;
  if constexpr (uses_exchange(Mode)) {
    static_assert(Mode != Arrangement::vector_transposed || Items % kVectorItems<T> == 0,
                  "vector stores need Items to be a multiple of 16 / sizeof(T)");
    constexpr int kVectors = Items / kVectorItems<T>;
#pragma unroll
    for (int j = 0; j < Items; ++j) exchange[exchange_slot(t * Items + j)] = items[j];
    __syncthreads();
    if (Mode == Arrangement::vector_transposed && valid == Threads * Items &&
        reinterpret_cast<std::uintptr_t>(out) % 16 == 0) {
      auto* vectors = reinterpret_cast<Vector<T>*>(out + start);
#pragma unroll
      for (int v = 0; v < kVectors; ++v) {
        const int e = (v * Threads + t) * kVectorItems<T>;
        Vector<T> packed;
#pragma unroll
        for (int k = 0; k < kVectorItems<T>; ++k) packed.values[k] = exchange[exchange_slot(e + k)];
        vectors[v * Threads + t] = packed;
      }
    } else {
#pragma unroll
      for (int j = 0; j < Items; ++j) {
        const int e = j * Threads + t;
        if (e < valid) out[start + e] = exchange[exchange_slot(e)];
      }
    }
  } else if constexpr (Mode == Arrangement::vectorized) {
    static_assert(Items % kVectorItems<T> == 0, "vector stores need Items to be a multiple of 16 / sizeof(T)");
    if (valid == Threads * Items && reinterpret_cast<std::uintptr_t>(out) % 16 == 0) {
      auto* vectors = reinterpret_cast<Vector<T>*>(out + start + t * Items);
#pragma unroll
      for (int v = 0; v < Items / kVectorItems<T>; ++v) {
        Vector<T> packed;
#pragma unroll
        for (int k = 0; k < kVectorItems<T>; ++k) packed.values[k] = items[v * kVectorItems<T> + k];
        vectors[v] = packed;
      }
    } else {
      store_direct(out, start, valid, items);
    }
  } else {
    store_direct(out, start, valid, items);
  }
}

/// Records a thread's items as row `step` of the trace (nothing when not tracing).
template <int Items, class T>
__device__ __forceinline__ void record_items(const StepLog<T>& log, int step, std::int64_t start,
                                             int valid, const T (&items)[Items]) {
  if (log.rows == nullptr) return;
  for (int j = 0; j < Items; ++j) {
    const int e = threadIdx.x * Items + j;
    if (e < valid) log.record(step, start + e, items[j]);
  }
}

// kit: region thread-scan body "T thread_inclusive_scan(T (&items)[Items], Op op)"
// kit: todo Phase 1: scan the thread's Items consecutive items in registers, in place: items[j]
// kit: todo becomes items[0] op ... op items[j] (earlier items on the left). Return the thread's total.
// kit: stub (void)op;
// kit: stub return items[Items - 1];
// kit: region add-prefix body "void add_prefix(T (&items)[Items], T prefix, Kind kind, Op op)"
// kit: todo Phase 3: `prefix` combines everything before the thread's first item, and items hold the
// kit: todo thread's inclusive scan. Inclusive: items[j] = prefix op items[j]. Exclusive: shift right by
// kit: todo one, items[j] = prefix op items[j - 1] and items[0] = prefix.
// kit: stub (void)items; (void)prefix; (void)kind; (void)op;
// [three phases]
/// Phase 1: inclusive scan of a thread's items, in registers. Returns the
/// thread's total.
template <int Items, class T, class Op>
__device__ __forceinline__ T thread_inclusive_scan(T (&items)[Items], Op op) {
#pragma unroll
  for (int j = 1; j < Items; ++j) items[j] = op(items[j - 1], items[j]);
  return items[Items - 1];
}

/// Phase 3: turns a thread's inclusive item scan into the final result,
/// given `prefix`, the combination of everything before the thread's first
/// item. Inclusive: prefix op item. Exclusive: shift by one, prefix first.
template <int Items, class T, class Op>
__device__ __forceinline__ void add_prefix(T (&items)[Items], T prefix, Kind kind, Op op) {
  if (kind == Kind::inclusive) {
#pragma unroll
    for (int j = 0; j < Items; ++j) items[j] = op(prefix, items[j]);
  } else {
#pragma unroll
    for (int j = Items - 1; j > 0; --j) items[j] = op(prefix, items[j - 1]);
    items[0] = prefix;
  }
}

/// Scans one tile: load, phase 1, phase 2 (the block scan of the thread
/// totals, chapter 06), phase 3 with `seed` (the combination of everything
/// before the tile; the identity for a tile-wise scan), store. Returns the
/// tile's total (of its own elements, not including the seed).
template <Arrangement Mode, int Threads, int Items, class T, class Op>
__device__ __forceinline__ T scan_tile(const T* in, T* out, std::int64_t start, int valid, Kind kind,
                                       T seed, Op op, TileStorage<T, Threads, Items, Mode>& storage,
                                       const StepLog<T>& log) {
  T items[Items];
  load_tile<Mode, Threads, Items>(in, start, valid, items, storage.exchange, Op::template identity<T>());
  record_items(log, 0, start, valid, items);
  const T thread_total = thread_inclusive_scan(items, op);                      // phase 1
  record_items(log, 1, start, valid, items);
  T tile_total;
  const T before = ch06::block_exclusive_scan(thread_total, op, storage.scan, tile_total);  // phase 2
  add_prefix(items, op(seed, before), kind, op);                               // phase 3
  record_items(log, 2, start, valid, items);
  if constexpr (uses_exchange(Mode)) {
    __syncthreads();  // every thread has read storage.scan: the exchange buffer is free again
  }
  store_tile<Mode, Threads, Items>(out, start, valid, items, storage.exchange);
  return tile_total;
}
// [three phases]

// [tile kernel]
/// One tile of Threads x Items elements per block. With `tile_totals` it is
/// the tile kernel of the block-sum fix-up; without, a tile-wise scan.
template <Arrangement Mode, int Threads, int Items, class T, class Op>
__global__ void __launch_bounds__(Threads)
    coarsened_scan_tiles(const T* in, T* out, std::int64_t n, Kind kind, T* tile_totals, Op op,
                         StepLog<T> log) {
  __shared__ TileStorage<T, Threads, Items, Mode> storage;
  constexpr int kTile = Threads * Items;
  const std::int64_t start = static_cast<std::int64_t>(blockIdx.x) * kTile;
  const int valid = n - start < kTile ? static_cast<int>(n - start) : kTile;
  const T total = scan_tile<Mode, Threads, Items>(in, out, start, valid, kind, Op::template identity<T>(),
                                                  op, storage, log);
  if (tile_totals != nullptr && threadIdx.x == 0) tile_totals[blockIdx.x] = total;
}
// [tile kernel]

/// Trace labels of the three phases.
std::vector<std::string> phase_labels();

/// The name of a tile shape, e.g. "256x16".
std::string shape_name(int threads, int items);

/// Registry entry: the three-phase tile scan with the block-sum fix-up.
/// `TileOnly` drops the fix-up: a tile-wise scan, the tile kernel alone.
template <Arrangement Mode, int Threads, int Items, bool TileOnly = false, bool Tuning = false>
struct Coarsened {
  static_assert(Threads % 32 == 0 && Threads <= 1024, "whole warps, at most 1024 threads");
  /// Elements per tile.
  static constexpr int kTile = Threads * Items;

  /// Name, summary and limits, for the registry.
  static VariantInfo info() {
    VariantInfo v;
    const char* mode = Mode == Arrangement::direct       ? "direct"
                       : Mode == Arrangement::transposed ? "transposed"
                       : Mode == Arrangement::vectorized ? "vectorized"
                                                         : "vector-transposed";
    v.name = Tuning ? (TileOnly ? "tile-" : "") + shape_name(Threads, Items) : mode;
    if (TileOnly && !Tuning) v.name = "tile-only";
    v.summary = std::string(TileOnly ? "the tile kernel alone (a tile-wise scan), " : "three phases, ") +
                shape_name(Threads, Items) + " threads x items, " +
                (Mode == Arrangement::direct       ? "each thread loads its own items (uncoalesced)"
                 : Mode == Arrangement::transposed ? "coalesced loads through a shared-memory transpose"
                 : Mode == Arrangement::vectorized ? "each thread loads its items as 16-byte vectors"
                                                   : "16-byte vectors across the warp, then a shared-memory transpose");
    if (!TileOnly) v.summary += ", block-sum fix-up";
    v.block = Threads;
    v.items_per_thread = Items;
    v.segment = TileOnly ? kTile : 0;
    v.tuning = Tuning;
    return v;
  }
  /// The scratch memory run() takes.
  template <class T, class Op>
  static void reserve(Workspace& workspace, std::int64_t n, int) {
    if (!TileOnly) reserve_by_tiles<T>(workspace, n, kTile);
  }
  /// Scans r.in into r.out on r.stream.
  template <class T, class Op>
  static void run(const ScanRequest<T>& r, Op op) {
    const auto launch = [&](const TileLaunch<T>& t) {
      StepRecorder<T> steps(t.top_level ? r.trace : nullptr, 3);
      coarsened_scan_tiles<Mode, Threads, Items><<<tile_count(t.n, kTile), Threads, 0, r.stream>>>(
          t.in, t.out, t.n, t.kind, t.tile_totals, op, steps.log());
      SCAN_CUDA_LAUNCH();
      steps.publish(phase_labels());
    };
    if constexpr (TileOnly) {
      launch(TileLaunch<T>{r.in, r.out, r.n, r.kind, nullptr, true});
    } else {
      scan_by_tiles(r, op, kTile, launch);
    }
  }
};

/// The shape the chapter's variants use (chosen by the sweep in the text).
inline constexpr int kThreads = 256;
/// Items per thread of the chapter's variants.
inline constexpr int kItems = 16;
/// The arrangement later chapters build on: the fastest one measured.
inline constexpr Arrangement kBestArrangement = Arrangement::vector_transposed;

}  // namespace scan::ch07
