/// \file
/// \brief Chapter 11, steps 3 and 4: persistent blocks and a ring of bulk copies.
///
/// Shared-memory stages read without bank conflicts, the ring of bulk
/// loads and stores with its mbarriers, and the two persistent kernels.
#pragma once

#include <type_traits>

#include "prefetch.cuh"

namespace scan::ch11 {

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
/// The loads a tile needs besides its values: none (chapter 12 adds its
/// head flags).
struct NoExtraLoads {
  static constexpr unsigned kBytes = 0;  ///< bytes they bring into the stage's barrier
  /// Starts them for the tile at `start`, loading into `stage`.
  __device__ void operator()(int /*stage*/, std::int64_t /*start*/, std::uint64_t* /*landed*/) const {}
};

/// The parts every bulk kernel shares: which tiles travel in bulk, taking
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
  /// `landed`: the one arrival it expects, and the tile's bytes. `extra`
  /// starts the loads a job adds to a tile (chapter 12's head flags) on the
  /// same barrier: Extra::kBytes more bytes to expect.
  template <class Extra = NoExtraLoads>
  __device__ void refill(int stage, unsigned* ticket, const Extra& extra = {}) const {
    const unsigned tile = atomicAdd(ticket, 1u);  // tiles in ticket order, as in chapter 09
    shared.tile_of[stage] = tile;
    if (ahead != 0) prefetch_range_l2(in, n, (std::int64_t{tile} + ahead) * kTile, kTile);  // step 5
    if (tile < tiles && bulk(tile)) {
      const std::int64_t start = static_cast<std::int64_t>(tile) * kTile;
      tma::arrive_expecting(&shared.landed[stage], kTileBytes + Extra::kBytes);  // arrive, and expect this many bytes
      extra(stage, start, &shared.landed[stage]);
      // The copy engine counts the bytes in as they land.
      tma::load(shared.stage[stage], in + start, kTileBytes, &shared.landed[stage]);
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

// [ring loop]
/// The loop of every persistent bulk-copy kernel: this chapter's scan,
/// chapter 12's segmented scan and chapter 13's compaction run it with
/// their own tile job. A persistent block takes tiles in ticket order; its
/// ring thread loads them with bulk copies into a ring of `Stages`
/// shared-memory stages, `Stages - 2` tiles ahead of the one being
/// finished. For each tile k the block
///  1. (as soon as tile k + 1 has landed) reduces tile k + 1 and publishes
///     its aggregate: the look-back of others never waits for a tile this
///     block holds;
///  2. looks back for tile k (warp 0);
///  3. finishes tile k and, if the job keeps it in its stage, stores it
///     with one bulk copy.
///
/// What a tile is, the job says (ScanTileJob below is this chapter's):
///  - `Carry`: what a thread keeps of a tile from step 1 to step 3;
///  - `refill(stage)`: the ring thread takes a ticket and starts its loads;
///  - `reduce(tile, stage)`: step 1, every thread; returns the Carry;
///  - `look_back(tile, carry)`: step 2, warp 0; leaves the tile's prefix in
///    shared memory for step 3;
///  - `hold(tile, stage, carry)`: step 2 for the other warps, while warp 0
///    looks back (a `Held` of nothing, or chapter 13's items picked again);
///  - `finish(tile, stage, carry, held)`: step 3, after a barrier;
///  - `kStoresInBulk`: finish() leaves the tile in its stage, for the ring
///    thread to store in bulk (false: the threads wrote it themselves).
///
/// With `RefillInLookBack` a thread of the second warp stores the tiles
/// and refills the ring, and it refills the stage of tile k - 1 while warp 0
/// looks back for tile k (when the other warps only wait at the barrier)
/// instead of after tile k is finished. The load then has the look-back
/// and the finishing of a tile more to arrive in, so three stages do what
/// four did, and the shared memory saved holds a fourth block per SM.
template <int Stages, bool RefillInLookBack, class Job>
__device__ __forceinline__ void run_ring(Job& job) {
  static_assert(Stages >= 3, "one stage finished, one reduced ahead, one being refilled");
  static_assert(!RefillInLookBack || Job::kStoresInBulk, "the early refill waits for the bulk stores");
  // The thread that stores tiles and refills stages (a bulk store is
  // waited for by the thread that issued it).
  constexpr unsigned kRingThread = RefillInLookBack ? kWarpSize : 0;
  const auto& ring = job.ring;
  const auto next_stage = [](unsigned i) { return static_cast<int>(i % Stages); };

  if (threadIdx.x == 0) init_ring<std::remove_reference_t<decltype(ring.shared)>, Stages>(ring.shared);
  __syncthreads();
  if (threadIdx.x == kRingThread) {
    for (int s = 0; s < Stages - 1; ++s) job.refill(s);
  }
  unsigned tile = ring.arrived(0);
  if (tile >= ring.tiles) return;
  typename Job::Carry carry = job.reduce(tile, 0);
  // The loop's first reduce() writes the block scan's storage again: every
  // thread must have read this one's total first (inside the loop, the
  // barriers of steps 2 and 3 separate one reduce() from the next).
  __syncthreads();
  for (unsigned i = 0;; ++i) {
    const int stage = next_stage(i);
    // 1. Look ahead: the next tile's aggregate goes out before our look-back.
    const unsigned next = ring.arrived(i + 1);
    typename Job::Carry next_carry{};
    if (next < ring.tiles) {
      next_carry = job.reduce(next, next_stage(i + 1));
    } else if constexpr (!Job::kStoresInBulk) {
      // No reduce() this time, and so none of its barriers; without a bulk
      // store there is no barrier after step 3 either. This one keeps warp
      // 0 from writing the new prefix (step 2) while slower threads still
      // read the last one in finish().
      __syncthreads();
    }
    if (RefillInLookBack && threadIdx.x == kRingThread) {
      // The stage of tile k - 1 (empty on the first iteration), once its
      // store has read it, while warp 0 looks back.
      tma::wait_stores_read<0>();
      job.refill(next_stage(i + Stages - 1));
    }
    // 2. The look-back for this tile.
    if (threadIdx.x < kWarpSize) job.look_back(tile, carry);
    const typename Job::Held held = job.hold(tile, stage, carry);
    __syncthreads();
    // 3. Finish the tile; store it, and refill the previous tile's stage
    //    once its store has read it.
    job.finish(tile, stage, carry, held);
    if constexpr (Job::kStoresInBulk) {
      __syncthreads();
      if (threadIdx.x == kRingThread) {
        ring.store(tile, stage);
        if (!RefillInLookBack) {
          tma::wait_stores_read<1>();
          job.refill(next_stage(i + Stages - 1));
        }
      }
    } else if (threadIdx.x == kRingThread) {
      // The previous tile's stage: finished in the last iteration, and
      // barriers have passed since (this tile's may still be read).
      job.refill(next_stage(i + Stages - 1));
    }
    if (next >= ring.tiles) break;
    tile = next;
    carry = next_carry;
  }
  if (Job::kStoresInBulk && threadIdx.x == kRingThread) tma::wait_stores_done();
}
// [ring loop]

// [bulk kernel]
/// This chapter's tile job for run_ring(): a tile of values, scanned.
template <int Threads, int Items, int Stages, class Walker, class State, class T, class Op>
struct ScanTileJob {
  using Tiles = BulkTiles<Threads, Items, Stages, T>;  ///< the ring
  /// What a thread keeps of a tile from its reduction to its finish.
  struct Carry {
    T before;     ///< the combination of this thread's items' predecessors within the tile
    T aggregate;  ///< the tile's aggregate
  };
  struct Held {};  ///< nothing to hold while warp 0 looks back
  static constexpr bool kStoresInBulk = true;  ///< finish() leaves the tile in its stage

  Tiles ring;       ///< the ring, and the block's shared memory
  unsigned* ticket; ///< the tile counter
  State state;      ///< the tiles' states
  BackOff wait;     ///< how a look-back waits
  Op op;            ///< the operator
  Kind kind;        ///< inclusive or exclusive
  T first;          ///< what comes before tile 0: the seed, or the identity

  /// The ring thread: the next ticket's tile into `stage`.
  __device__ void refill(int stage) const { ring.refill(stage, ticket); }
  /// Step 1: the tile's aggregate, published, and each thread's exclusive
  /// prefix within the tile.
  __device__ Carry reduce(unsigned tile, int stage) const {
    T items[Items];
    ring.template read<Op>(tile, stage, items);
    T thread_total = items[0];
#pragma unroll
    for (int j = 1; j < Items; ++j) thread_total = op(thread_total, items[j]);
    Carry c;
    c.before = ch06::block_exclusive_scan(thread_total, op, ring.shared.scan, c.aggregate);
    if (threadIdx.x == 0) {
      if (tile == 0 && !Walker::kGrouped) {
        state.publish(0, Status::prefix, op(first, c.aggregate));  // tile 0 knows its prefix at once
      } else {
        state.publish(tile, Status::aggregate, c.aggregate);
      }
    }
    return c;
  }
  /// Step 2 (warp 0): the tile's exclusive prefix, into shared memory.
  __device__ void look_back(unsigned tile, const Carry& c) const {
    T prefix = first;
    if (tile != 0 || Walker::kGrouped) {
      if (!std::is_same_v<Walker, NoWalk>) wait.settle(tile);
      const Resolved<T> r = Walker::template resolve<T>(state, tile, c.aggregate, op, wait, first);
      if (threadIdx.x == 0 && r.publish) state.publish(tile, Status::prefix, r.inclusive);
      prefix = r.exclusive;
    }
    if (threadIdx.x == 0) ring.shared.tile_prefix = prefix;
  }
  /// Step 2 for the other warps: nothing.
  __device__ Held hold(unsigned, int, const Carry&) const { return {}; }
  /// Step 3: the tile finished where it lies.
  __device__ void finish(unsigned tile, int stage, const Carry& c, Held) const {
    T items[Items];
    ring.template read<Op>(tile, stage, items);
    (void)ch07::thread_inclusive_scan(items, op);
    ch07::add_prefix(items, op(ring.shared.tile_prefix, c.before), kind, op);
    ring.write(tile, stage, items);
  }
};

/// The persistent bulk-copy scan: run_ring() with ScanTileJob. Tiles that
/// cannot travel in bulk (the last, partial one, or unaligned pointers) are
/// read and written by the threads directly. `ticket` and the tile states
/// must be zero at launch, or, launched early (launch_scan()), once the
/// grid before it has finished.
template <int Threads, int Items, int Stages, class Walker, class State, class T, class Op,
          bool RefillInLookBack = false>
__global__ void __launch_bounds__(Threads)
    bulk_look_back_scan(const T* in, T* out, std::int64_t n, Kind kind, unsigned* ticket, State state,
                        BackOff wait, Op op, const T* seed, unsigned ahead) {
  static_assert(!RefillInLookBack || Threads > kWarpSize, "a second warp to refill");
  using Job = ScanTileJob<Threads, Items, Stages, Walker, State, T, Op>;
  using Tiles = typename Job::Tiles;
  auto& shared = *dynamic_shared<typename Tiles::Storage>();
  const bool aligned = (reinterpret_cast<std::uintptr_t>(in) | reinterpret_cast<std::uintptr_t>(out)) % 16 == 0;
  Job job{Tiles{shared, in, out, n, static_cast<unsigned>(ceil_div<std::int64_t>(n, Tiles::kTile)), aligned, ahead},
          ticket, state, wait, op, kind, seed != nullptr ? *seed : Op::template identity<T>()};
  tma::wait_for_prerequisite_grid();  // launched early: the ticket and states are cleared now
  run_ring<Stages, RefillInLookBack>(job);
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
/// `ticket` and the tile states must be zero at launch, or, launched early
/// (launch_scan()), once the grid before it has finished.
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
  tma::wait_for_prerequisite_grid();  // launched early: the ticket and states are cleared now
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

}  // namespace scan::ch11
