/// \file
/// \brief Chapter 15's program: its options, the keys it sorts, and the CPU
///        reference the program and the tests check every result against.
#pragma once

#include "radix_sort.cuh"  // KeyBits: the order every check uses

#include <scan/cli.hpp>
#include <scan/generate.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace scan::ch15 {

/// What the keys look like.
enum class KeyDistribution {
  uniform,  ///< random bits (floats: finite and nonzero; see make_keys)
  few,      ///< seven distinct keys
  equal,    ///< one key, n times
  sorted,   ///< random keys, already in order
};

/// The key types of `--type`.
enum class KeyType { u32, i32, f32, u64 };

/// The command line of ch15_radix_sort.
struct SortOptions : RunOptions {
  std::int64_t n = std::int64_t{16} << 20;  ///< keys
  KeyType type = KeyType::u32;              ///< `--type`
  bool pairs = false;                       ///< `--pairs`: 32-bit values ride along
  KeyDistribution dist = KeyDistribution::uniform;  ///< `--dist`
  std::vector<int> digit_bits = {8};        ///< `--bits`: the digit widths to run
  OutputFormat format = OutputFormat::table;  ///< table or `--csv`
  bool baselines = true;                    ///< the CUB and copy rows
};

/// The program's main: parses the command line, sorts, checks, times.
int run_sort_program(int argc, char** argv);

/// n keys of `dist` from `seed`. Float keys of the uniform and few
/// distributions are finite and nonzero: CUB sorts -0.0 and +0.0 as one key
/// and this chapter by IEEE 754's totalOrder (-0.0 first), and the program
/// checks both against one reference. The tests cover zeros and NaNs alone.
template <class Key>
std::vector<Key> make_keys(std::int64_t n, KeyDistribution dist, std::uint64_t seed) {
  std::vector<Key> keys(static_cast<std::size_t>(n));
  constexpr std::array<std::uint64_t, 7> kFew = {0x0123456789abcdefull, 0x1111111111111111ull, 0x7fedcba987654321ull,
                                                 0x8000000000000001ull, 0x00ff00ff00ff00ffull, 0x3c3c3c3c3c3c3c3cull,
                                                 0xfedcba9876543210ull};
  for (std::int64_t i = 0; i < n; ++i) {
    std::uint64_t r = random_bits(seed, static_cast<std::uint64_t>(i));
    if (dist == KeyDistribution::few) r = kFew[r % kFew.size()];
    if (dist == KeyDistribution::equal) r = 0x5555555555555555ull;
    if constexpr (std::is_same_v<Key, float>) {
      auto b = static_cast<std::uint32_t>(r >> 32);
      if ((b & 0x7f800000u) == 0x7f800000u) b &= 0xbfffffffu;  // no infinity or NaN: clear an exponent bit
      if ((b & 0x7fffffffu) == 0) b |= 1u;                      // no zero: the smallest subnormal instead
      std::memcpy(&keys[static_cast<std::size_t>(i)], &b, sizeof b);
    } else {
      keys[static_cast<std::size_t>(i)] = static_cast<Key>(r >> (64 - 8 * sizeof(Key)));
    }
  }
  if (dist == KeyDistribution::sorted) {
    std::sort(keys.begin(), keys.end(), [](Key x, Key y) { return KeyBits<Key>::to_bits(x) < KeyBits<Key>::to_bits(y); });
  }
  return keys;
}

/// The reference: a plain stable LSD radix sort with 8-bit digits on the
/// CPU, keys by KeyBits, values (if any) carried along. The tests check it
/// against std::stable_sort; the program checks every GPU result against it.
template <class Key, class Value>
void reference_sort(std::vector<Key>& keys, std::vector<Value>* values) {
  using Bits = typename KeyBits<Key>::Bits;
  const std::size_t n = keys.size();
  std::vector<Bits> bits(n), other_bits(n);
  for (std::size_t i = 0; i < n; ++i) bits[i] = KeyBits<Key>::to_bits(keys[i]);
  std::vector<Value> other_values(values ? n : 0);
  for (int shift = 0; shift < int(sizeof(Bits) * 8); shift += 8) {
    std::array<std::size_t, 257> start{};
    for (Bits b : bits) ++start[digit_of<8>(b, shift) + 1];
    for (int d = 0; d < 256; ++d) start[d + 1] += start[d];
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t to = start[digit_of<8>(bits[i], shift)]++;
      other_bits[to] = bits[i];
      if (values) other_values[to] = (*values)[i];
    }
    bits.swap(other_bits);
    if (values) values->swap(other_values);
  }
  for (std::size_t i = 0; i < n; ++i) keys[i] = KeyBits<Key>::from_bits(bits[i]);
}

/// The first difference between a sort's result and the reference (bit for
/// bit, so a float key must come back exactly), or "" if none.
template <class Key, class Value>
std::string first_difference(const std::vector<Key>& got_keys, const std::vector<Key>& keys,
                             const std::vector<Value>* got_values, const std::vector<Value>* values) {
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (std::memcmp(&got_keys[i], &keys[i], sizeof(Key)) != 0) {
      return "key at index " + std::to_string(i) + ": expected " + std::to_string(keys[i]) + ", got " +
             std::to_string(got_keys[i]);
    }
    if (values && (*got_values)[i] != (*values)[i]) {
      return "value at index " + std::to_string(i) + " (key " + std::to_string(keys[i]) + "): expected " +
             std::to_string((*values)[i]) + ", got " + std::to_string((*got_values)[i]);
    }
  }
  return "";
}

}  // namespace scan::ch15
