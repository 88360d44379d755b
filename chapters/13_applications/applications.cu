#include "applications.cuh"

#include <scan/error.hpp>

#include <algorithm>

namespace scan::ch13 {
namespace {

/// The scatter's scratch for n elements in tiles of `tile` elements
/// (chapter 10's take_ticket_and_words(), so measuring and taking cannot
/// disagree): the words of kTile-element tiles are taken in any case (the
/// most any kernel needs), but only those of `tile`-element tiles are reset.
ch10::TicketAndWords<unsigned long long> take_scatter(Workspace& workspace, std::int64_t n, int tile = kTile) {
  return ch10::take_ticket_and_words<unsigned long long>(workspace, tile_count(n, kTile), tile_count(n, tile));
}

/// Blocks of the counting kernels: four per SM, each looping over its share.
unsigned count_blocks() {
  static const unsigned blocks = [] {
    int device = 0, sms = 0;
    SCAN_CUDA(cudaGetDevice(&device));
    SCAN_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    return static_cast<unsigned>(4 * sms);
  }();
  return blocks;
}

/// The settle of chapter 10's packed-settle variant, with the first wave exempt.
/// (One count per kernel: kernels of one signature share a pointer type,
/// so the kernel itself is the template argument.)
template <auto Kernel, int Threads = kThreads>
BackOff settle_for() {
  static const int resident = resident_blocks(Kernel, Threads);
  BackOff wait = ch10::kSettle;
  wait.first_settling_tile = static_cast<unsigned>(resident);
  return wait;
}

/// Launches the persistent bulk scatter of recipe `S`: as many blocks as the
/// device holds at once (no more than there are tiles), each with the
/// ring in dynamic shared memory.
template <ch11::Recipe S, Rejected Mode, class T, class Pred>
void launch_bulk(const T* in, T* out, std::int64_t n, const ch10::TicketAndWords<unsigned long long>& s,
                 unsigned long long* selected, Pred pred, cudaStream_t stream) {
  static_assert(S.kernel == ch11::Kernel::bulk && S.ahead == 0 && !S.refill_in_look_back,
                "a scatter runs the plain bulk loop: no look-back warp, no prefetch, no refill in the look-back");
  constexpr int kBulkTile = S.threads * S.items;
  static_assert(kBulkTile >= kTile, "the scratch holds a state per kTile elements");
  constexpr auto kernel =
      bulk_scatter_selected<S.threads, S.items, S.stages, ch11::WalkOf<S.walk, S.windows>, Mode, T, Pred>;
  constexpr std::size_t kBytes = sizeof(BulkScatterStorage<T, S.threads, S.items, S.stages>);
  // Shared memory allowed and occupancy asked, once per device.
  const int resident = persistent_blocks<kernel>(S.threads, kBytes);
  const unsigned tiles = tile_count(n, kBulkTile);
  BackOff wait = S.wait;
  wait.first_settling_tile = static_cast<unsigned>(resident);
  kernel<<<std::min<unsigned>(tiles, static_cast<unsigned>(resident)), S.threads, kBytes, stream>>>(
      in, out, n, s.ticket, ch10::PackedTileState<unsigned>{s.words}, selected, pred, wait);
}

/// Elements per tile of a scatter kernel.
int tile_of(ScatterKernel kernel) {
  switch (kernel) {
    case ScatterKernel::bulk: return kBulkGrouped.threads * kBulkGrouped.items;
    case ScatterKernel::bulk_any_prefix: return kBulkAnyPrefix.threads * kBulkAnyPrefix.items;
    case ScatterKernel::ballot: return kBallotThreads * kBallotItems;
    case ScatterKernel::per_tile: break;
  }
  return kTile;
}

/// Runs the scatter kernel of mode `Mode` over n elements.
template <Rejected Mode, class T, class Pred>
void scatter(const T* in, T* out, std::int64_t n, unsigned long long* selected, Pred pred, void* scratch,
             cudaStream_t stream, ScatterKernel which) {
  if (n <= 0) return;
  if (n >= (std::int64_t{1} << 32)) {
    throw UsageError("the scatter's counts are 32-bit: n must be below 2^32, not " + std::to_string(n));
  }
  Workspace workspace(static_cast<std::byte*>(scratch), scatter_scratch_bytes(n));
  const int tile = tile_of(which);
  const auto s = take_scatter(workspace, n, tile);
  SCAN_CUDA(cudaMemsetAsync(s.ticket, 0, s.reset_bytes, stream));
  const unsigned ahead = ch11::tiles_ahead<T>(kPrefetchAheadBytes, tile);  // for the per-tile kernels
  switch (which) {
    case ScatterKernel::per_tile: {
      constexpr auto kernel = &scatter_selected<kThreads, kItems, Mode, T, Pred>;
      kernel<<<tile_count(n, tile), kThreads, 0, stream>>>(in, out, n, s.ticket,
                                                           ch10::PackedTileState<unsigned>{s.words}, selected, pred,
                                                           settle_for<kernel>(), ahead);
      break;
    }
    case ScatterKernel::ballot: {
      constexpr auto kernel = &ballot_scatter_selected<kBallotThreads, kBallotItems, Mode, T, Pred>;
      static_assert(kBallotThreads * kBallotItems >= kTile, "the scratch holds a state per kTile elements");
      kernel<<<tile_count(n, tile), kBallotThreads, 0, stream>>>(in, out, n, s.ticket,
                                                                 ch10::PackedTileState<unsigned>{s.words}, selected,
                                                                 pred, settle_for<kernel, kBallotThreads>(), ahead);
      break;
    }
    case ScatterKernel::bulk: launch_bulk<kBulkGrouped, Mode>(in, out, n, s, selected, pred, stream); break;
    case ScatterKernel::bulk_any_prefix: launch_bulk<kBulkAnyPrefix, Mode>(in, out, n, s, selected, pred, stream); break;
  }
  SCAN_CUDA_LAUNCH();
}

}  // namespace

// [count bits]
__global__ void count_ones_per_bit(const std::uint32_t* keys, std::int64_t n, unsigned long long* ones) {
  __shared__ unsigned block_ones[32];
  const int lane = threadIdx.x % kWarpSize;
  if (threadIdx.x < 32) block_ones[threadIdx.x] = 0;
  __syncthreads();
  unsigned mine = 0;  // lane b counts the ones of bit b over the warp's keys
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t base = global_thread_index() - lane; base < n; base += stride) {
    const std::int64_t i = base + lane;
    const std::uint32_t key = i < n ? keys[i] : 0u;
#pragma unroll
    for (int b = 0; b < 32; ++b) {
      const unsigned set = __popc(__ballot_sync(kFullMask, (key >> b) & 1u));
      if (lane == b) mine += set;
    }
  }
  atomicAdd(&block_ones[lane], mine);
  __syncthreads();
  if (threadIdx.x < 32) atomicAdd(&ones[threadIdx.x], static_cast<unsigned long long>(block_ones[threadIdx.x]));
}
// [count bits]

std::size_t scatter_scratch_bytes(std::int64_t n) {
  Workspace measuring;
  (void)take_scatter(measuring, n);
  return measuring.used();
}

template <class T>
void select_if(const T* in, T* out, std::int64_t n, KeepBelow keep, unsigned long long* kept, void* scratch,
               cudaStream_t stream, ScatterKernel kernel) {
  if (n <= 0) {
    SCAN_CUDA(cudaMemsetAsync(kept, 0, sizeof *kept, stream));
    return;
  }
  scatter<Rejected::dropped>(in, out, n, kept, keep, scratch, stream, kernel);
}
template void select_if(const std::int32_t*, std::int32_t*, std::int64_t, KeepBelow, unsigned long long*, void*,
                        cudaStream_t, ScatterKernel);
template void select_if(const std::uint32_t*, std::uint32_t*, std::int64_t, KeepBelow, unsigned long long*, void*,
                        cudaStream_t, ScatterKernel);
template void select_if(const float*, float*, std::int64_t, KeepBelow, unsigned long long*, void*, cudaStream_t,
                        ScatterKernel);

/// Writes the count of zeros of bit `bit`, `*zeros = n - ones[bit]`, where the
/// next split reads it (on the device: the host never waits for a count).
__global__ void zeros_from_ones(const unsigned long long* ones, int bit, std::int64_t n, unsigned long long* zeros) {
  *zeros = static_cast<unsigned long long>(n) - ones[bit];
}

void split_by_bit(const std::uint32_t* in, std::uint32_t* out, std::int64_t n, int bit, unsigned long long* zeros,
                  bool counted, void* scratch, cudaStream_t stream, ScatterKernel kernel) {
  if (n <= 0) return;
  if (!counted) {
    // The stable split must know how many zeros there are before it places a one.
    SCAN_CUDA(cudaMemsetAsync(zeros, 0, sizeof *zeros, stream));
    count_selected<<<std::min<unsigned>(tile_count(n, 1024), count_blocks()), 256, 0, stream>>>(in, n, zeros,
                                                                                              BitIsZero{bit});
    SCAN_CUDA_LAUNCH();
  }
  scatter<Rejected::in_order>(in, out, n, zeros, BitIsZero{bit}, scratch, stream, kernel);
}

void partition_by_bit(const std::uint32_t* in, std::uint32_t* out, std::int64_t n, int bit,
                      unsigned long long* zeros, void* scratch, cudaStream_t stream, ScatterKernel kernel) {
  if (n <= 0) return;
  scatter<Rejected::reversed>(in, out, n, zeros, BitIsZero{bit}, scratch, stream, kernel);
}

std::size_t sort_scratch_bytes(std::int64_t n) {
  Workspace measuring;
  (void)measuring.take<std::uint32_t>(static_cast<std::size_t>(n));  // the second buffer
  (void)measuring.take<unsigned long long>(32 + 1);                  // ones per bit, then zeros
  (void)measuring.take<std::byte>(scatter_scratch_bytes(n));
  return measuring.used();
}

// [radix sort]
void radix_sort(std::uint32_t* keys, std::int64_t n, void* scratch, cudaStream_t stream, ScatterKernel kernel) {
  if (n <= 1) return;
  Workspace workspace(static_cast<std::byte*>(scratch), sort_scratch_bytes(n));
  std::uint32_t* other = workspace.take<std::uint32_t>(static_cast<std::size_t>(n));
  auto* ones = workspace.take<unsigned long long>(32 + 1);
  unsigned long long* zeros = ones + 32;
  void* split_scratch = workspace.take<std::byte>(scatter_scratch_bytes(n));
  // Every split permutes the keys but keeps their bits: one read counts them all.
  SCAN_CUDA(cudaMemsetAsync(ones, 0, 32 * sizeof *ones, stream));
  count_ones_per_bit<<<std::min<unsigned>(tile_count(n, 1024), count_blocks()), 256, 0, stream>>>(keys, n, ones);
  SCAN_CUDA_LAUNCH();
  std::uint32_t* from = keys;
  std::uint32_t* to = other;
  for (int bit = 0; bit < 32; ++bit) {
    zeros_from_ones<<<1, 1, 0, stream>>>(ones, bit, n, zeros);
    SCAN_CUDA_LAUNCH();
    split_by_bit(from, to, n, bit, zeros, true, split_scratch, stream, kernel);
    std::swap(from, to);
  }
  // 32 splits: the keys are back in `keys`.
}
// [radix sort]

// ---------------------------------------------------------------------------
// Linear recurrences.

namespace {

/// Tile states for affine maps: one 16-byte word, the status in the first
/// four bytes and the map in the last eight, read and written whole with
/// chapter 11's 128-bit loads and stores.
struct AffineTileState {
  ch11::WideTileState<unsigned long long> words;  ///< per tile: (status, the map's bits)

  /// Publishes a tile's aggregate or inclusive prefix.
  __device__ void publish(unsigned tile, Status what, const Affine& map) const {
    unsigned long long bits;
    std::memcpy(&bits, &map, sizeof bits);
    words.publish(tile, what, bits);
  }
  /// Reads a tile's status and map in one load.
  __device__ Status load(unsigned tile, Affine& map) const {
    unsigned long long bits;
    const Status s = words.load(tile, bits);
    std::memcpy(&map, &bits, sizeof map);
    return s;
  }
};

// [compose warp]
/// A warp-wide inclusive scan of affine maps (chapter 06's Kogge-Stone,
/// shuffling both halves): lane k gets the composition of lanes 0..k.
__device__ Affine warp_compose(Affine x) {
  const int lane = threadIdx.x % kWarpSize;
#pragma unroll
  for (int offset = 1; offset < kWarpSize; offset *= 2) {
    const Affine left{__shfl_up_sync(kFullMask, x.a, offset), __shfl_up_sync(kFullMask, x.b, offset)};
    if (lane >= offset) x = Compose{}(left, x);
  }
  return x;
}
// [compose warp]

/// The composition of every map before tile `tile` back to `first` (the
/// first tile of its row): chapter 10's warp look-back with Compose,
/// treating tiles before `first` as the identity and as a prefix.
__device__ Affine look_back_maps(const AffineTileState& state, unsigned tile, unsigned first, BackOff wait) {
  const int lane = threadIdx.x % kWarpSize;
  Affine prefix = Compose::identity();
  for (long long end = tile;; end -= kWarpSize) {
    const long long j = end - kWarpSize + lane;
    Affine map = Compose::identity();
    Status s = Status::prefix;
    unsigned nap_ns = wait.first_nap_ns;
    if (j >= static_cast<long long>(first)) {
      while ((s = state.load(static_cast<unsigned>(j), map)) == Status::empty) wait.nap(nap_ns);
    }
    const unsigned prefix_lanes = __ballot_sync(kFullMask, s == Status::prefix);
    const int stop = prefix_lanes != 0 ? 31 - __clz(prefix_lanes) : -1;
    if (lane < stop) map = Compose::identity();
    const Affine scanned = warp_compose(map);
    const Affine window{__shfl_sync(kFullMask, scanned.a, 31), __shfl_sync(kFullMask, scanned.b, 31)};
    prefix = Compose{}(window, prefix);
    if (prefix_lanes != 0) return prefix;
  }
}

}  // namespace

// [recurrence kernel]
/// x_i = a_i x_{i-1} + b_i for n elements, in rows of `row_tiles` tiles
/// each (x restarts from 0 at the start of every row; 0: one sequence).
/// One block per tile, in ticket order: a and b arrive through warp-private
/// transposes, each thread composes its maps, the block composes the
/// threads' totals (chapter 06's block scan with Compose), the tile
/// publishes its map and looks back, never past the first tile of its row.
template <int Threads, int Items>
__global__ void __launch_bounds__(Threads)
    recurrence_tiles(const float* a, const float* b, float* x, std::int64_t n, unsigned row_tiles, unsigned* ticket,
                     AffineTileState state, BackOff wait) {
  __shared__ ch11::WarpTileStorage<float, Threads, Items> storage;
  __shared__ Affine warp_totals[Threads / kWarpSize];
  __shared__ Affine tile_prefix;
  constexpr int kTileSize = Threads * Items;
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  const unsigned tile = ch09::take_ticket(ticket);
  const unsigned first = row_tiles == 0 ? 0 : tile - tile % row_tiles;
  const TileSpan span = tile_span(tile, kTileSize, n);

  // The maps of this thread's items; padding is the identity map.
  float slopes[Items], offsets[Items];
  ch11::WarpTileIo::load<Threads, Items>(a, span.start, span.valid, slopes, storage, 1.0f);
  __syncwarp();  // the warp's slice is read out before it is used again
  ch11::WarpTileIo::load<Threads, Items>(b, span.start, span.valid, offsets, storage, 0.0f);
  Affine thread_total = {slopes[0], offsets[0]};
#pragma unroll
  for (int j = 1; j < Items; ++j) thread_total = Compose{}(thread_total, {slopes[j], offsets[j]});

  // The block's composition of the threads' maps (chapter 06's block scan).
  const Affine in_warp = warp_compose(thread_total);
  if (lane == kWarpSize - 1) warp_totals[warp] = in_warp;
  __syncthreads();
  if (warp == 0) {
    const Affine total = lane < Threads / kWarpSize ? warp_totals[lane] : Compose::identity();
    const Affine scanned = warp_compose(total);
    if (lane < Threads / kWarpSize) warp_totals[lane] = scanned;
  }
  __syncthreads();
  const Affine aggregate = warp_totals[Threads / kWarpSize - 1];
  const Affine warp_before = warp == 0 ? Compose::identity() : warp_totals[warp - 1];
  const Affine left{__shfl_up_sync(kFullMask, in_warp.a, 1), __shfl_up_sync(kFullMask, in_warp.b, 1)};
  const Affine before = lane == 0 ? warp_before : Compose{}(warp_before, left);

  if (threadIdx.x < kWarpSize) {
    const bool starts_row = tile == first;
    if (threadIdx.x == 0) state.publish(tile, starts_row ? Status::prefix : Status::aggregate, aggregate);
    Affine prefix = Compose::identity();
    if (!starts_row) {
      wait.settle(tile);
      prefix = look_back_maps(state, tile, first, wait);
      if (threadIdx.x == 0) state.publish(tile, Status::prefix, Compose{}(prefix, aggregate));
    }
    if (threadIdx.x == 0) tile_prefix = prefix;
  }
  __syncthreads();

  // x_i is the b half of everything composed up to i, applied to x = 0.
  Affine running = Compose{}(tile_prefix, before);
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    running = Compose{}(running, {slopes[j], offsets[j]});
    offsets[j] = running.b;
  }
  ch11::WarpTileIo::store<Threads, Items>(x, span.start, span.valid, offsets, storage);
}
// [recurrence kernel]

namespace {

/// The recurrence's scratch: the ticket and one 16-byte state per tile.
ch10::TicketAndWords<ch11::WideTileState<unsigned long long>::Word> take_recurrence_scratch(Workspace& workspace,
                                                                                           std::int64_t n) {
  return ch10::take_ticket_and_words<ch11::WideTileState<unsigned long long>::Word>(workspace, tile_count(n, kTile));
}

}  // namespace

std::size_t recurrence_scratch_bytes(std::int64_t n) {
  Workspace measuring;
  (void)take_recurrence_scratch(measuring, n);
  return measuring.used();
}

void linear_recurrence(const float* a, const float* b, float* x, std::int64_t n, std::int64_t row, void* scratch,
                       cudaStream_t stream) {
  if (n <= 0) return;
  if (row != 0 && row % kTile != 0) {
    throw UsageError("rows of a batched recurrence must be a multiple of " + std::to_string(kTile) + " elements");
  }
  Workspace workspace(static_cast<std::byte*>(scratch), recurrence_scratch_bytes(n));
  const auto taken = take_recurrence_scratch(workspace, n);
  SCAN_CUDA(cudaMemsetAsync(taken.ticket, 0, taken.reset_bytes, stream));
  constexpr auto kernel = &recurrence_tiles<kThreads, kItems>;
  kernel<<<tile_count(n, kTile), kThreads, 0, stream>>>(a, b, x, n, static_cast<unsigned>(row / kTile), taken.ticket,
                                                        AffineTileState{{taken.words}}, settle_for<kernel>());
  SCAN_CUDA_LAUNCH();
}

}  // namespace scan::ch13
