/// \file
/// \brief Chapter 09: StreamScan, a single pass with a chain of tiles.
///
/// One kernel. Each block takes a tile, computes the tile's total, waits
/// until the tile before it has published its inclusive prefix, publishes
/// its own, and finishes its tile. The input is read once and the output
/// written once: 2n moves, the least possible. The price is a chain: tile k
/// cannot publish before tile k - 1 has, so the tiles hand the prefix along
/// one at a time.
#pragma once

#include "coarsening.cuh"    // chapter 07: the tile pieces
#include "warp_shuffle.cuh"  // chapter 06: block scans

#include <scan/device.cuh>
#include <scan/registry.hpp>

#include <cuda/atomic>

#include <cstdint>
#include <string>

namespace scan::ch09 {

/// The chapter's variants.
const Chapter& chapter();

using ch07::Arrangement;

// [ticket]
/// Hands out tile numbers in the order blocks *start running*.
///
/// Tile k waits for tile k - 1. If tiles were numbered by blockIdx.x, a
/// block with a high index could be resident and spinning while the block
/// it waits for has not been scheduled yet, because every SM is full of such
/// spinning blocks: a deadlock. CUDA promises nothing about the order in
/// which blocks start. A ticket taken when the block is already running
/// means every smaller ticket belongs to a block that has started (it is
/// running or done), so the tile being waited for never belongs to a block
/// still waiting for an SM. That a started block keeps making progress while
/// others spin is what CUDA's execution model promises (parallel forward
/// progress for threads that have started); that a block not yet started
/// will start while running ones wait is not promised, and the ticket never
/// needs it (chapter 10's text says more).
__device__ __forceinline__ unsigned take_ticket(unsigned* counter) {
  __shared__ unsigned ticket;
  if (threadIdx.x == 0) ticket = atomicAdd(counter, 1u);
  __syncthreads();
  return ticket;
}
// [ticket]

// kit: region publish body "__device__ void publish(unsigned tile, const T& value) const"
// kit: todo Publish tile `tile`'s inclusive prefix: write value to prefix[tile], then set ready[tile] to 1
// kit: todo with a release store through cuda::atomic_ref<unsigned, cuda::thread_scope_device>.
// kit: stub (void)tile; (void)value;
// kit: rule acquire-release ready publishes prefix
// kit: region wait body "__device__ T wait(unsigned tile) const"
// kit: todo Spin until ready[tile] is set, reading it with acquire loads through
// kit: todo cuda::atomic_ref<unsigned, cuda::thread_scope_device>, then return prefix[tile].
// kit: stub (void)tile;
// kit: stub return T{};
// kit: rule acquire-release ready reads prefix
// [publish and wait]
/// The chain's mailbox: per tile, a flag and the tile's inclusive prefix.
///
/// Publishing writes the value, then sets the flag with a *release* store:
/// every write the thread made before it (the value) becomes visible to any
/// thread that reads the flag with an *acquire* load and sees it set. So a
/// reader that sees the flag cannot see a stale value. Both are device-scope
/// atomics (cuda::atomic_ref), because the threads are in different blocks.
template <class T>
struct Mailbox {
  unsigned* ready;  ///< per tile: 0 until the prefix is published, then 1
  T* prefix;        ///< per tile: its inclusive prefix

  /// Publishes tile `tile`'s inclusive prefix.
  __device__ void publish(unsigned tile, const T& value) const {
    prefix[tile] = value;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> flag(ready[tile]);
    flag.store(1u, cuda::memory_order_release);
  }

  /// Spins until tile `tile` has published, then returns its prefix.
  __device__ T wait(unsigned tile) const {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> flag(ready[tile]);
    while (flag.load(cuda::memory_order_acquire) == 0u) {
    }
    return prefix[tile];  // ordered after the acquire load that saw the flag
  }
};
// [publish and wait]

// kit: region chain from "const T prefix = tile == 0 ? Op::template identity<T>() : mailbox.wait(tile - 1);"
// kit: to "tile_prefix = prefix;"
// kit: todo Thread 0 passes the chain on: the prefix before this tile is the identity for tile 0, else
// kit: todo what tile - 1 published (mailbox.wait); publish this tile's inclusive prefix (that prefix
// kit: todo op the tile's aggregate) with mailbox.publish, and keep the prefix in tile_prefix for the
// kit: todo whole block.
// kit: stub tile_prefix = Op::template identity<T>();
// [chained kernel]
/// One block per tile of Threads x Items elements, in ticket order.
/// `control[0]` is the ticket counter, `control[1 + k]` tile k's flag; all
/// must be zero at launch.
template <int Threads, int Items, class T, class Op>
__global__ void __launch_bounds__(Threads)
    chained_scan(const T* in, T* out, std::int64_t n, Kind kind, unsigned* control, T* prefixes, Op op) {
  __shared__ ch07::TileStorage<T, Threads, Items, Arrangement::vectorized> storage;
  __shared__ T tile_prefix;
  constexpr int kTile = Threads * Items;
  const unsigned tile = take_ticket(control);
  const Mailbox<T> mailbox{control + 1, prefixes};
  const std::int64_t start = static_cast<std::int64_t>(tile) * kTile;
  const int valid = n - start < kTile ? static_cast<int>(n - start) : kTile;

  // The tile's own work first: load, thread scans, block scan of thread totals.
  T items[Items];
  ch07::load_tile<Arrangement::vectorized, Threads, Items>(in, start, valid, items, storage.exchange,
                                                           Op::template identity<T>());
  const T thread_total = ch07::thread_inclusive_scan(items, op);
  T aggregate;
  const T before = ch06::block_exclusive_scan(thread_total, op, storage.scan, aggregate);

  // The chain: one thread waits for the previous tile and passes the prefix on.
  if (threadIdx.x == 0) {
    const T prefix = tile == 0 ? Op::template identity<T>() : mailbox.wait(tile - 1);
    mailbox.publish(tile, op(prefix, aggregate));
    tile_prefix = prefix;
  }
  __syncthreads();

  ch07::add_prefix(items, op(tile_prefix, before), kind, op);
  ch07::store_tile<Arrangement::vectorized, Threads, Items>(out, start, valid, items, storage.exchange);
}
// [chained kernel]

/// Registry entry: the chained scan with tiles of Threads x Items.
template <int Threads, int Items>
struct Chained {
  /// Elements per tile.
  static constexpr int kTile = Threads * Items;
  /// Name, summary and limits, for the registry.
  static VariantInfo info() {
    VariantInfo v;
    v.name = kTile == 4096 ? "chained" : kTile < 4096 ? "chained-1k" : "chained-16k";
    v.summary = "one pass, tiles of " + ch07::shape_name(Threads, Items) +
                " in ticket order, each waits for its predecessor's prefix (release/acquire)";
    v.block = Threads;
    v.items_per_thread = Items;
    return v;
  }
  /// The scratch memory run() takes: the ticket, a flag and a prefix per tile.
  template <class T, class Op>
  static void reserve(Workspace& workspace, std::int64_t n, int) {
    const std::size_t tiles = tile_count(n, kTile);
    workspace.take<unsigned>(1 + tiles);
    workspace.take<T>(tiles);
  }
  /// Scans r.in into r.out on r.stream.
  template <class T, class Op>
  static void run(const ScanRequest<T>& r, Op op) {
    Workspace workspace = r.workspace;
    const unsigned tiles = tile_count(r.n, kTile);
    unsigned* control = workspace.take<unsigned>(1 + static_cast<std::size_t>(tiles));
    T* prefixes = workspace.take<T>(tiles);
    // Every launch starts from ticket 0 and no tile published: the state is
    // part of the call, so repeated calls and calls on other streams (with
    // their own workspace) cannot see each other's flags.
    SCAN_CUDA(cudaMemsetAsync(control, 0, (1 + static_cast<std::size_t>(tiles)) * sizeof(unsigned), r.stream));
    chained_scan<Threads, Items><<<tiles, Threads, 0, r.stream>>>(r.in, r.out, r.n, r.kind, control,
                                                                  prefixes, op);
    SCAN_CUDA_LAUNCH();
  }
};

}  // namespace scan::ch09
