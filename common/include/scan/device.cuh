/// \file
/// \brief Small device-side helpers every GPU chapter uses.
#pragma once

#include <scan/error.hpp>
#include <scan/types.hpp>

#include <cstdint>

namespace scan {

/// \f$ \lceil a / b \rceil \f$ for positive integers.
template <class I>
SCAN_HD constexpr I ceil_div(I a, I b) {
  return (a + b - 1) / b;
}

/// The smallest s with \f$ 2^s \ge n \f$ (0 for n <= 1).
SCAN_HD constexpr int ceil_log2(std::int64_t n) {
  int s = 0;
  while ((std::int64_t{1} << s) < n) ++s;
  return s;
}

/// Elements in one 16-byte vector.
template <class T>
inline constexpr int kVectorItems = 16 / static_cast<int>(sizeof(T));

/// One 16-byte vector of T, so that one load instruction moves 16 bytes.
template <class T>
struct alignas(16) Vector {
  T values[kVectorItems<T>];  ///< the elements, in memory order
};

/// Element i of the sequence a scan kernel works on.
///
/// An exclusive scan is an inclusive scan of the input shifted right by one,
/// with the identity moved in at the front:
/// \f$ \mathrm{excl}(x)_i = \mathrm{incl}(e, x_0, \ldots, x_{n-2})_i \f$.
/// So a kernel that reads its input through this function computes either
/// kind with the same code. (Chapters 07 and later build the exclusive scan
/// into the tile itself, because the shifted read breaks vector loads.)
template <class T, class Op>
__device__ __forceinline__ T load_for_scan(const T* in, std::int64_t i, Kind kind, Op) {
  if (kind == Kind::inclusive) return in[i];
  return i == 0 ? Op::template identity<T>() : in[i - 1];
}

/// Global index of this thread in a one-dimensional grid, in 64 bits (so n
/// may exceed 2^31).
__device__ __forceinline__ std::int64_t global_thread_index() {
  return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

/// The block's dynamic shared memory as an array of T. (A templated kernel
/// cannot declare `extern __shared__ T tile[]` itself: every instantiation
/// would redeclare one symbol with a different type.)
template <class T>
__device__ __forceinline__ T* dynamic_shared() {
  extern __shared__ __align__(16) unsigned char scan_dynamic_shared[];
  return reinterpret_cast<T*>(scan_dynamic_shared);
}

/// Blocks needed for `count` threads at `threads` per block, checked against
/// the grid limit. Throws UsageError if the grid would be too large.
unsigned grid_size(std::int64_t count, int threads);

/// Tiles of `tile` elements needed for n elements (one block each), checked
/// against the grid limit like grid_size().
inline unsigned tile_count(std::int64_t n, std::int64_t tile) {
  return grid_size(ceil_div(n, tile), 1);
}

}  // namespace scan
