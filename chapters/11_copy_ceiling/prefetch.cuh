/// \file
/// \brief Chapter 11, step 5: start the input early (bulk prefetches into L2).
#pragma once

#include "look_back.cuh"

namespace scan::ch11 {

// ---------------------------------------------------------------------------
// The bulk-copy pipeline (Hopper's TMA, sm_90; the PTX wrappers are in
// bulk_copy.cuh).

// [prefetch ahead]
/// Starts moving elements [first, first + count) of `in` into L2 with one
/// bulk prefetch, and returns at once: a hint, which changes no result.
/// Elements past n are left out, and so are the bytes before the first and
/// after the last 16-byte boundary of the range (the bulk engine moves
/// aligned blocks of 16 bytes; the ordinary loads fetch those edges).
template <class T>
__device__ void prefetch_range_l2(const T* in, std::int64_t n, std::int64_t first, std::int64_t count) {
  if (first >= n) return;
  const auto begin = reinterpret_cast<std::uintptr_t>(in + first);
  const auto end = reinterpret_cast<std::uintptr_t>(in + (count < n - first ? first + count : n));
  const std::uintptr_t aligned_begin = (begin + 15) & ~std::uintptr_t{15};
  const std::uintptr_t aligned_end = end & ~std::uintptr_t{15};
  if (aligned_end > aligned_begin) {
    const auto bytes = static_cast<unsigned>(aligned_end - aligned_begin);
    tma::prefetch_l2(reinterpret_cast<const void*>(aligned_begin), bytes);
  }
}

/// The tiles between the one a block takes and the one it prefetches, for
/// `ahead_bytes` of input in tiles of `tile` elements of T (0: none).
template <class T>
__host__ __device__ constexpr unsigned tiles_ahead(std::size_t ahead_bytes, int tile) {
  return static_cast<unsigned>(ahead_bytes / (static_cast<std::size_t>(tile) * sizeof(T)));
}

/// A tile mover (`Mover`: chapter 10's BlockTileIo or WarpTileIo) whose
/// block, as it takes tile k, has thread 0 start the input AheadBytes
/// further on into L2. The block that takes that ticket later finds its
/// loads in L2: the memory keeps reading while blocks sit in look-backs.
template <class Mover, std::size_t AheadBytes>
struct PrefetchingIo : Mover {
  /// Starts tile `tile`'s successor `AheadBytes` on into L2 (thread 0).
  template <int Tile, class T>
  __device__ __forceinline__ static void taken(const T* in, std::int64_t n, unsigned tile) {
    constexpr unsigned kAhead = tiles_ahead<T>(AheadBytes, Tile);
    static_assert(kAhead > 0, "prefetch at least one tile ahead");
    if (threadIdx.x == 0) prefetch_range_l2(in, n, (std::int64_t{tile} + kAhead) * Tile, Tile);
  }
};
// [prefetch ahead]

}  // namespace scan::ch11
