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
#include "warp_scan.cuh"           // chapter 06: warp and block scans

#include <scan/device.cuh>
#include <scan/ops.hpp>

#include <cstdint>
#include <cstring>

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

/// Where the elements a predicate rejects go.
enum class Rejected {
  dropped,   ///< nowhere: stream compaction
  reversed,  ///< after the selected ones, from the end backwards (cub::DevicePartition's order)
  in_order,  ///< after the selected ones, in input order: a stable split (needs the selected total first)
};

// kit: region gather from "unsigned front = before;"
// kit: to end
// kit: todo The tile's scatter, after its count scan and look-back. Gather in shared memory: thread t's
// kit: todo selected items go to staged[before], staged[before + 1], ... in order; unless Mode drops
// kit: todo them, its rejected items follow all the tile's selected ones, in order (the rejected items
// kit: todo before thread t number t * Items - before). Barrier. Then consecutive threads write
// kit: todo consecutive entries of staged: the i-th selected element of the tile goes to
// kit: todo out[selected_before + i]; a rejected one goes to n - 1 - (rejected before it) for
// kit: todo Rejected::reversed, to *selected_total + (rejected before it) for Rejected::in_order. The
// kit: todo tile that ends the array writes *selected_total (not for in_order, which reads it).
// kit: stub (void)out; (void)n; (void)staged; (void)selected_total; (void)before; (void)picked;
// [scatter kernel]
/// One block per tile, in ticket order. Each thread counts the elements of
/// its items the predicate selects; the block scans the counts (chapter 06);
/// the tile publishes its count and looks back for the count of everything
/// selected before it (chapter 10, over counts: an exclusive sum). Then the
/// tile's selected elements are gathered in shared memory, in order, and
/// written out as one contiguous run, so the scatter stays coalesced; the
/// rejected ones likewise, where `Mode` sends them. The last tile writes
/// the total selected. `ticket` and the states must be zero at launch;
/// `selected_total` is read (Rejected::in_order) or written (the others).
template <int Threads, int Items, Rejected Mode, class T, class Pred>
__global__ void __launch_bounds__(Threads)
    scatter_selected(const T* in, T* out, std::int64_t n, unsigned* ticket, ch10::PackedTileState<unsigned> state,
                     unsigned long long* selected_total, Pred pred, BackOff wait) {
  constexpr int kTileSize = Threads * Items;
  __shared__ ch11::WarpTileStorage<T, Threads, Items> storage;
  __shared__ T staged[kTileSize];
  __shared__ ch06::BlockScanStorage<unsigned> count_scan;
  __shared__ unsigned selected_before;
  const unsigned tile = ch09::take_ticket(ticket);
  const TileSpan span = tile_span(tile, kTileSize, n);

  T items[Items];
  ch11::WarpTileIo::load<Threads, Items>(in, span.start, span.valid, items, storage, T{});
  bool picked[Items];
  unsigned count = 0;
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    picked[j] = static_cast<int>(threadIdx.x) * Items + j < span.valid && pred(items[j]);
    count += picked[j];
  }
  unsigned tile_count;
  const unsigned before = ch06::block_exclusive_scan(count, Add{}, count_scan, tile_count);
  if (threadIdx.x < ch06::kWarpSize) {
    if (threadIdx.x == 0) state.publish(tile, tile == 0 ? Status::prefix : Status::aggregate, tile_count);
    unsigned prefix = 0;
    if (tile != 0) {
      wait.settle(tile);
      prefix = ch10::look_back_warp<unsigned>(state, tile, Add{}, wait);
      if (threadIdx.x == 0) state.publish(tile, Status::prefix, prefix + tile_count);
    }
    if (threadIdx.x == 0) selected_before = prefix;
  }
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
// [scatter kernel]

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
  for (int offset = 16; offset > 0; offset /= 2) mine += __shfl_down_sync(ch06::kFullMask, mine, offset);
  if (threadIdx.x % ch06::kWarpSize == 0 && mine != 0) atomicAdd(selected, mine);
}

// ---------------------------------------------------------------------------
// First-order linear recurrences: a scan over affine maps.

// [affine maps]
/// The affine map x -> a x + b over floats.
struct Affine {
  float a;  ///< slope
  float b;  ///< offset
};

/// Composition of affine maps, "first f, then g": chapter 01's AffineCompose
/// over real numbers. x_i = a_i x_{i-1} + b_i is the composition of the
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

/// Scratch bytes the scatter launches need for n elements.
std::size_t scatter_scratch_bytes(std::int64_t n);

/// Stream compaction: writes the elements of in[0, n) that `keep` selects to
/// `out`, in order, and their number to `*kept` (device memory). T: a
/// 4-byte type.
template <class T>
void select_if(const T* in, T* out, std::int64_t n, KeepBelow keep, unsigned long long* kept, void* scratch,
               cudaStream_t stream);

/// The split of a radix sort: the keys whose bit `bit` is 0, then those
/// whose bit is 1, each in input order. `zeros` (device memory) receives
/// the number of zeros; pass `counted` to use that count as given (made by
/// count_ones_per_bit: zeros = n - ones) instead of counting first.
void split_by_bit(const std::uint32_t* in, std::uint32_t* out, std::int64_t n, int bit, unsigned long long* zeros,
                  bool counted, void* scratch, cudaStream_t stream);

/// cub::DevicePartition::If's contract, in one pass: the keys whose bit
/// `bit` is 0 in order, then the others from the end backwards (not stable).
void partition_by_bit(const std::uint32_t* in, std::uint32_t* out, std::int64_t n, int bit,
                      unsigned long long* zeros, void* scratch, cudaStream_t stream);

/// Scratch bytes radix_sort() needs for n keys.
std::size_t sort_scratch_bytes(std::int64_t n);

/// An LSD radix sort of 32-bit keys from 32 splits, one bit at a time: one
/// read of the keys counts every bit, then each split moves every key once.
/// `keys` is sorted in place (through a second buffer in the scratch).
void radix_sort(std::uint32_t* keys, std::int64_t n, void* scratch, cudaStream_t stream);

/// Scratch bytes linear_recurrence() needs for n elements.
std::size_t recurrence_scratch_bytes(std::int64_t n);

/// x_i = a_i x_{i-1} + b_i (x_{-1} = 0) for i in [0, n), restarting at
/// every `row` elements (0: one sequence; otherwise a multiple of kTile).
void linear_recurrence(const float* a, const float* b, float* x, std::int64_t n, std::int64_t row, void* scratch,
                       cudaStream_t stream);

}  // namespace scan::ch13
