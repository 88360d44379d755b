/// \file
/// \brief Chapter 15's sort as a library call: what it sorts, the scratch
///        memory it needs, and the call. Host code includes this header
///        alone; the kernels are in radix_sort.cuh.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace scan::ch15 {

/// The sort takes fewer than 2^32 keys: its output positions are 32-bit.
inline constexpr std::int64_t kMaxKeys = (std::int64_t{1} << 32) - 1;

/// Digit widths the sort is built for: 8 for every key type, and 1 and 4
/// for 32-bit unsigned keys alone (the chapter's measurement of why 8).
template <class Key, class Value>
constexpr bool digit_bits_supported(int digit_bits) {
  return digit_bits == 8 ||
         (std::is_same_v<Key, std::uint32_t> && std::is_void_v<Value> && (digit_bits == 1 || digit_bits == 4));
}

/// Keys in a tile of a digit pass (one block's share) of a sort of n keys
/// of these keys and values on the current device: where a pass's last
/// tile turns partial, so where tests probe. Small sorts (n = 0 asks for
/// them) take one tile; keys alone, and 8-byte keys with values, take a
/// wider one from a few million keys up where the GPU holds it
/// (radix_sort.cu's PassShape).
template <class Key, class Value>
std::int64_t sort_tile_keys(std::int64_t n = 0);

// [api]
/// Bytes of scratch memory onesweep_sort() needs for n keys (with values of
/// `Value` for pairs, `void` for keys alone) and digits of `digit_bits`.
template <class Key, class Value>
std::size_t sort_scratch_bytes(std::int64_t n, int digit_bits = 8);

/// Sorts n keys (and their values, unless `Value` is void) from `keys_in`
/// into `keys_out`, stably, by the keys' order (KeyBits: signed integers as
/// numbers, floats by IEEE 754's totalOrder), on `stream`. The input is left
/// as it was; `scratch` holds sort_scratch_bytes(n, digit_bits) bytes, and
/// two sorts in flight at once (on two streams) need a scratch each.
/// Throws UsageError for n outside [0, kMaxKeys] or a digit width it is not
/// built for, and CudaError for a failed CUDA call.
template <class Key, class Value>
void onesweep_sort(const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out, std::int64_t n,
                   int digit_bits, void* scratch, std::size_t scratch_bytes, cudaStream_t stream = nullptr);
// [api]

}  // namespace scan::ch15
