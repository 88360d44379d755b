/// \file
/// \brief Seeded, reproducible input generators.
///
/// Element i of an input is a pure function of (seed, i): a counter-based
/// generator (the SplitMix64 finalizer applied to seed and index) maps each
/// index to 64 random bits, and those bits to a value. So the same seed gives
/// the same array on every machine, a large array can be filled by several
/// threads, and no two checks that use different seeds see the same data.
///
/// The values are chosen so that mistakes show:
/// - never all zeros or all ones (they hide unwritten outputs and wrong
///   indexing, and make sums too easy to guess);
/// - signed integers include negatives;
/// - int32 stays within [-1000, 1000]: random prefixes of even 2^31 elements
///   stay near 577 sqrt(n), far from overflow (signed overflow is undefined
///   behaviour in C++);
/// - uint32 spans the whole range, so sums wrap around (defined behaviour);
/// - float and double are *telescoping*: \f$ x_i = f_i - f_{i-1} \f$ for
///   random \f$ f_i \f$ in [-2, 2] (and \f$ f_{-1} = 0 \f$), so every prefix
///   sum is \f$ f_i \f$ and every sum of a contiguous range,
///   \f$ f_j - f_{i-1} \f$, lies in [-4, 4] at any n. With the default
///   (Distribution::typical) the \f$ f_i \f$ are multiples of 1/256: every
///   range sum is a multiple of 1/256 below 4, exact in float, so a correct
///   scan in *any* order of additions is exact and verification demands
///   exact equality at every n (verify.hpp). Distribution::real_valued takes
///   \f$ f_i \f$ with 64 random bits, in a type wider than T, and rounds
///   each \f$ x_i \f$ to T: then the sums are no longer numbers T can hold,
///   additions round, and verification uses a bound.
#pragma once

#include <cstdint>
#include <vector>

namespace scan {

/// The shape of the generated values (they differ for float and double only).
enum class Distribution {
  typical,      ///< the default ranges described in the file comment; float sums are exact
  real_valued,  ///< float and double with random low bits: sums round (integers: as typical)
};

/// 64 random bits for index `i` of the stream `seed` (SplitMix64 finalizer).
constexpr std::uint64_t random_bits(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + (i + 1) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Returns `n` values of type T drawn from `dist` with `seed`.
/// Supported T: int32_t, uint32_t, int64_t, float, double.
template <class T>
std::vector<T> generate_input(std::int64_t n, std::uint64_t seed,
                              Distribution dist = Distribution::typical);

}  // namespace scan
