/// \file
/// \brief The simple glue that turns a tile scan into a scan of any length.
///
/// Chapters 02 to 07 each build a kernel that scans *tiles* (one tile per
/// block). This helper makes a full scan from such a kernel, the way the
/// readings do it ("block sums and fix-up"):
///
/// 1. scan every tile of the input and write each tile's total;
/// 2. scan the array of totals, with the same tile kernel, recursively, until
///    one tile holds them all;
/// 3. add to every element of tile b the scanned total of tiles 0 .. b-1.
///
/// It moves about 4n elements through global memory (read and write in step
/// 1, read and write again in step 3). Chapter 08 explains this glue properly
/// and replaces it with schemes that move less.
#pragma once

#include <scan/device.cuh>
#include <scan/registry.hpp>
#include <scan/trace.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace scan {

/// What a tile kernel is asked to do by scan_by_tiles().
template <class T>
struct TileLaunch {
  const T* in = nullptr;        ///< input of this level
  T* out = nullptr;             ///< output of this level (tile-wise scans)
  std::int64_t n = 0;           ///< elements at this level
  Kind kind = Kind::inclusive;  ///< the user's kind at level 0, inclusive above it
  T* tile_totals = nullptr;     ///< where tile b writes its total (null: only one tile)
  bool top_level = false;       ///< level 0: the level `--trace` shows
};

// [add carries]
/// Adds the scanned total of tiles 0 .. b-1 to every element of tile b > 0.
///
/// Block k covers `span` elements (a whole number of tiles, at least a few
/// thousand elements) starting at tile 1 + k * (span / tile); tile 0 needs
/// no carry. Inside the block an index fits 32 bits, so finding an
/// element's tile is a cheap 32-bit division. The pass is a copy with one
/// addition, so it is written like a fast copy: 16-byte vectors (when the
/// tile is a whole number of vectors, all of a vector's elements share one
/// carry), and kBatch of them loaded by each thread before it stores any,
/// so that enough bytes are in flight to keep the memory busy. The carry
/// goes on the *left*: the operator need not commute.
template <class T, class Op>
__global__ void add_tile_carries(T* data, std::int64_t n, std::uint32_t tile, std::uint32_t span,
                                 const T* scanned_totals, Op op) {
  constexpr int kBatch = 4;
  constexpr int kWidth = kVectorItems<T>;
  const std::int64_t begin = tile + static_cast<std::int64_t>(blockIdx.x) * span;
  const std::uint32_t count = static_cast<std::uint32_t>(n - begin < span ? n - begin : span);
  const T* carries = scanned_totals + (begin / tile - 1);  // carries[i / tile]: element i's carry
  std::uint32_t done = 0;
  if (tile % kWidth == 0 && reinterpret_cast<std::uintptr_t>(data + begin) % 16 == 0) {
    auto* vectors = reinterpret_cast<Vector<T>*>(data + begin);
    const std::uint32_t vector_count = count / kWidth;
    for (std::uint32_t base = 0; base < vector_count; base += kBatch * blockDim.x) {
      Vector<T> batch[kBatch];
#pragma unroll
      for (int k = 0; k < kBatch; ++k) {
        const std::uint32_t v = base + k * blockDim.x + threadIdx.x;
        if (v < vector_count) batch[k] = vectors[v];
      }
#pragma unroll
      for (int k = 0; k < kBatch; ++k) {
        const std::uint32_t v = base + k * blockDim.x + threadIdx.x;
        if (v < vector_count) {
          const T carry = carries[v * kWidth / tile];
#pragma unroll
          for (int e = 0; e < kWidth; ++e) batch[k].values[e] = op(carry, batch[k].values[e]);
          vectors[v] = batch[k];
        }
      }
    }
    done = vector_count * kWidth;
  }
  // What vectors did not cover: the last few elements, or all of them.
  for (std::uint32_t i = done + threadIdx.x; i < count; i += blockDim.x) {
    data[begin + i] = op(carries[i / tile], data[begin + i]);
  }
}
// [add carries]

/// Threads per block of add_tile_carries.
inline constexpr int kCarryThreads = 256;
/// Elements a block of add_tile_carries covers, at least (rounded up to whole tiles).
inline constexpr std::int64_t kCarrySpan = 8192;

namespace detail {

/// The arrays of one level of the recursion.
template <class T>
struct TotalsLevel {
  T* totals = nullptr;   ///< the tile totals of the level below
  T* scanned = nullptr;  ///< their inclusive scan
};

inline constexpr int kMaxLevels = 48;

/// Takes, from `workspace`, the totals arrays for every level. Used by both
/// reserve_by_tiles() (measuring) and scan_by_tiles() (taking), so they agree.
template <class T>
std::array<TotalsLevel<T>, kMaxLevels> take_levels(Workspace& workspace, std::int64_t n,
                                                   std::int64_t tile) {
  std::array<TotalsLevel<T>, kMaxLevels> levels{};
  std::int64_t count = ceil_div(n, tile);
  for (int level = 0; count > 1; ++level) {
    if (level == kMaxLevels) throw UsageError("n = " + std::to_string(n) + " needs too many levels of tiles");
    levels[level].totals = workspace.take<T>(static_cast<std::size_t>(count));
    levels[level].scanned = workspace.take<T>(static_cast<std::size_t>(count));
    count = ceil_div(count, tile);
  }
  return levels;
}

// [scan level]
template <class T, class Op, class TileScan>
void scan_level(const T* in, T* out, std::int64_t n, Kind kind, std::int64_t tile,
                const std::array<TotalsLevel<T>, kMaxLevels>& levels, int level, Op op,
                cudaStream_t stream, Trace* trace, TileScan& scan_tiles) {
  const std::int64_t tiles = ceil_div(n, tile);
  TileLaunch<T> launch{in, out, n, kind, tiles > 1 ? levels[level].totals : nullptr, level == 0};
  scan_tiles(launch);
  if (tiles == 1) return;
  if (level == 0 && trace != nullptr) trace->snapshot("tiles scanned", out);
  // The totals are scanned inclusively whatever the user's kind: tile b needs
  // everything in tiles 0 .. b-1.
  scan_level(levels[level].totals, levels[level].scanned, tiles, Kind::inclusive, tile, levels,
             level + 1, op, stream, trace, scan_tiles);
  const std::int64_t span = ceil_div(kCarrySpan, tile) * tile;
  add_tile_carries<<<grid_size(n - tile, static_cast<int>(span)), kCarryThreads, 0, stream>>>(
      out, n, static_cast<std::uint32_t>(tile), static_cast<std::uint32_t>(span), levels[level].scanned, op);
  SCAN_CUDA_LAUNCH();
  if (level == 0 && trace != nullptr) trace->snapshot("carries added", out);
}
// [scan level]

}  // namespace detail

/// Reserves what scan_by_tiles() takes for n elements and tiles of `tile`.
template <class T>
void reserve_by_tiles(Workspace& workspace, std::int64_t n, std::int64_t tile) {
  (void)detail::take_levels<T>(workspace, n, tile);
}

/// Scans r.in into r.out with a tile-scan kernel and the block-sum fix-up.
///
/// `scan_tiles(const TileLaunch<T>&)` must launch, on r.stream, a kernel that
/// scans every `tile`-element tile of launch.in into launch.out, of kind
/// launch.kind, and, when launch.tile_totals is not null, writes to
/// launch.tile_totals[b] the combination of everything tile b scanned. Two
/// ways satisfy this: read through load_for_scan() and scan inclusively (the
/// total is then that of the shifted tile), or compute the exclusive tile
/// scan directly (the total is that of the tile's own elements). Either way
/// element i of tile b ends as `op(carry_b, local_i)`.
template <class T, class Op, class TileScan>
void scan_by_tiles(const ScanRequest<T>& r, Op op, std::int64_t tile, TileScan&& scan_tiles) {
  Workspace workspace = r.workspace;
  const auto levels = detail::take_levels<T>(workspace, r.n, tile);
  detail::scan_level(r.in, r.out, r.n, r.kind, tile, levels, 0, op, r.stream, r.trace, scan_tiles);
}

/// A registry entry made of one tile kernel and the block-sum fix-up: how
/// chapters 02 to 06 register their tile kernels, so that a new tile kernel
/// is one small description, registered as `gpu_variant<ScanByTiles<MyTiles>>()`:
/// \code
/// struct MyTiles {
///   static VariantInfo info();               // name, summary, block limits
///   static constexpr int kItems = 1;         // elements per thread: tile = kItems x block
///   template <class T, class Op>
///   static auto kernel() { return my_tile_kernel<T, Op>; }
///   static int shared_slots(int tile);       // dynamic shared memory, in elements of T
///   static std::vector<std::string> trace_labels(std::int64_t tile);  // one per recorded step
/// };
/// \endcode
/// The kernel, `(const T* in, T* out, std::int64_t n, Kind kind, T* tile_totals, Op op, StepLog<T> log)`,
/// scans one tile per block as scan_by_tiles() asks and records its steps in
/// `log` (a null log unless the user asked for `--trace`). For the trace,
/// `tile` is the first tile's size: the full tile, or n when n is smaller.
template <class Tiles>
struct ScanByTiles {
  /// Name, summary and limits of the description; items_per_thread is kItems.
  static VariantInfo info() {
    VariantInfo v = Tiles::info();
    v.items_per_thread = Tiles::kItems;
    return v;
  }
  /// The scratch memory run() takes: the tile totals of every level.
  template <class T, class Op>
  static void reserve(Workspace& workspace, std::int64_t n, int block_threads) {
    reserve_by_tiles<T>(workspace, n, Tiles::kItems * block_threads);
  }
  /// Scans r.in into r.out on r.stream.
  template <class T, class Op>
  static void run(const ScanRequest<T>& r, Op op) {
    const int threads = r.block_threads;
    const int tile = Tiles::kItems * threads;
    const std::size_t shared_bytes = static_cast<std::size_t>(Tiles::shared_slots(tile)) * sizeof(T);
    const auto kernel = Tiles::template kernel<T, Op>();
    scan_by_tiles(r, op, tile, [&](const TileLaunch<T>& t) {
      Trace* trace = t.top_level ? r.trace : nullptr;  // only the first level is traced
      const std::vector<std::string> labels =
          trace != nullptr ? Tiles::trace_labels(t.n < tile ? t.n : tile) : std::vector<std::string>{};
      StepRecorder<T> steps(trace, static_cast<int>(labels.size()));
      kernel<<<grid_size(t.n, tile), threads, shared_bytes, r.stream>>>(t.in, t.out, t.n, t.kind,
                                                                       t.tile_totals, op, steps.log());
      SCAN_CUDA_LAUNCH();
      steps.publish(labels);
    });
  }
};

}  // namespace scan
