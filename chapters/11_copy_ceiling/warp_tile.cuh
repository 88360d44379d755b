/// \file
/// \brief Chapter 11, step 1: each warp moves its own part of the tile.
///
/// The first of chapter 11's headers, in the order the text takes them:
/// warp_tile.cuh, look_back.cuh (8-byte states and the look-back walks,
/// the grouped one among them), prefetch.cuh (step 5), ring.cuh (steps 3
/// and 4: persistent blocks and a ring of bulk copies), recipes.cuh (every
/// step as a variant) and copy_ceiling.cuh (what `deterministic` and
/// `fastest` run). Each includes the one before it.
#pragma once

#include "coarsening.cuh"          // chapter 07: the tile pieces
#include "decoupled_lookback.cuh"  // chapter 10: tile states, look-backs, the per-tile kernel
#include "stream_scan.cuh"         // chapter 09: take_ticket
#include "warp_shuffle.cuh"        // chapter 06: warp and block scans
#include "bulk_copy.cuh"           // this chapter: the PTX of bulk copies and mbarriers

#include <scan/device.cuh>
#include <scan/registry.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>
#include <type_traits>

namespace scan::ch11 {

using ch10::BackOff;
using ch10::Status;

// ---------------------------------------------------------------------------
// Step 1: each warp moves its own part of the tile.

/// Shared memory of a tile moved warp by warp: a private exchange slice per
/// warp, with the same padding as chapter 07's, and the block scan's
/// storage. Unlike chapter 07's TileStorage they must not share bytes: one
/// warp may still regroup its slice while another already writes its warp
/// total.
template <class T, int Threads, int Items>
struct WarpTileStorage {
  static constexpr int kWarpItems = kWarpSize * Items;        ///< elements per warp
  static constexpr int kSliceSlots = kWarpItems + kWarpItems / 32;  ///< with one spare slot per 32
  T exchange[Threads / kWarpSize][kSliceSlots];               ///< one slice per warp
  ch06::BlockScanStorage<T> scan;                                   ///< the block scan of thread totals
};

// [warp tile]
/// Loads this warp's 32 x Items elements of the tile at `start` (blocked:
/// lane l gets the warp's elements l * Items ...), padding past `valid`.
/// Full tiles travel as 16-byte vectors, consecutive across the warp.
template <int Threads, int Items, class T>
__device__ __forceinline__ void load_warp_tile(const T* in, std::int64_t start, int valid, T (&items)[Items],
                                               T* slice, T padding) {
  constexpr int kWarpItems = kWarpSize * Items;
  constexpr int kWidth = kVectorItems<T>;
  static_assert(Items % kWidth == 0, "whole vectors per thread");
  const int lane = threadIdx.x % kWarpSize;
  const int first = threadIdx.x / kWarpSize * kWarpItems;  // the warp's first element in the tile
  if (valid == Threads * Items && reinterpret_cast<std::uintptr_t>(in) % 16 == 0) {
    const auto* vectors = reinterpret_cast<const Vector<T>*>(in + start + first);
#pragma unroll
    for (int v = 0; v < Items / kWidth; ++v) {
      const Vector<T> loaded = vectors[v * kWarpSize + lane];
#pragma unroll
      for (int k = 0; k < kWidth; ++k) {
        slice[ch07::exchange_slot((v * kWarpSize + lane) * kWidth + k)] = loaded.values[k];
      }
    }
  } else {
#pragma unroll
    for (int j = 0; j < Items; ++j) {
      const int e = j * kWarpSize + lane;
      slice[ch07::exchange_slot(e)] = first + e < valid ? in[start + first + e] : padding;
    }
  }
  __syncwarp();  // the warp's writes to its slice land before any lane reads them back (no block barrier)
#pragma unroll
  for (int j = 0; j < Items; ++j) items[j] = slice[ch07::exchange_slot(lane * Items + j)];
}
// [warp tile]

/// Stores this warp's items (blocked) to the tile at `start`, its first
/// `valid` elements only: the mirror image of load_warp_tile().
template <int Threads, int Items, class T>
__device__ __forceinline__ void store_warp_tile(T* out, std::int64_t start, int valid, const T (&items)[Items],
                                                T* slice) {
  constexpr int kWarpItems = kWarpSize * Items;
  constexpr int kWidth = kVectorItems<T>;
  const int lane = threadIdx.x % kWarpSize;
  const int first = threadIdx.x / kWarpSize * kWarpItems;
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
        packed.values[k] = slice[ch07::exchange_slot((v * kWarpSize + lane) * kWidth + k)];
      }
      vectors[v * kWarpSize + lane] = packed;
    }
  } else {
#pragma unroll
    for (int j = 0; j < Items; ++j) {
      const int e = j * kWarpSize + lane;
      if (first + e < valid) out[start + first + e] = slice[ch07::exchange_slot(e)];
    }
  }
}

/// The warp-by-warp tile mover, with chapter 10's BlockTileIo interface.
struct WarpTileIo {
  /// Shared memory the mover needs, with a block scan's storage.
  template <class T, int Threads, int Items>
  using Storage = WarpTileStorage<T, Threads, Items>;

  /// Loads the tile at `start` into `items` (blocked arrangement).
  template <int Threads, int Items, class T, class S>
  __device__ __forceinline__ static void load(const T* in, std::int64_t start, int valid, T (&items)[Items],
                                              S& storage, T padding) {
    load_warp_tile<Threads, Items>(in, start, valid, items, storage.exchange[threadIdx.x / kWarpSize],
                                   padding);
  }
  /// Called as the block takes a tile: nothing to do (see PrefetchingIo).
  template <int Tile, class T>
  __device__ __forceinline__ static void taken(const T*, std::int64_t, unsigned) {}
  /// Stores `items` (blocked arrangement) to the tile at `start`.
  template <int Threads, int Items, class T, class S>
  __device__ __forceinline__ static void store(T* out, std::int64_t start, int valid, const T (&items)[Items],
                                               S& storage) {
    store_warp_tile<Threads, Items>(out, start, valid, items, storage.exchange[threadIdx.x / kWarpSize]);
  }
};

}  // namespace scan::ch11
