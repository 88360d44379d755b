/// \file
/// \brief Checking a scan's output against the oracle, and poisoning outputs.
///
/// The rules every check follows:
/// - outputs are *poisoned* before every run, so an element a variant never
///   wrote cannot pass: integers with the byte 0xA5 repeated, floating point
///   with all bits set (a NaN, which fails every comparison);
/// - integers, and max/min of any type, must match exactly;
/// - floating-point sums must lie within
///   \f$ \lceil \log_2 n \rceil \, \varepsilon \sum_{j \le i} |x_j| \f$ of the
///   wide reference: the rounding error of a summation tree of depth d is at
///   most \f$ d\,\varepsilon \sum |x_j| \f$, and the prefix's sum of magnitudes
///   is what makes the bound grow along the array;
/// - except when no rounding can have happened: if every input so far is a
///   multiple of \f$ 2^{-q} \f$ and \f$ 2^q \sum_{j\le i} |x_j| \f$ fits in the
///   significand, every partial sum in any order is exact, so the output must
///   be exact too (small integers stored as floats match exactly).
#pragma once

#include <scan/oracle.hpp>
#include <scan/types.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace scan {

/// The value a poisoned element holds: 0xA5 bytes for integers, a NaN for floats.
template <class T>
T poison_value();

/// The byte a poisoned buffer is filled with (cudaMemset and memset take one byte).
template <class T>
constexpr unsigned char poison_byte() {
  return std::is_floating_point_v<T> ? 0xFF : 0xA5;
}

/// The outcome of a verification.
struct VerifyReport {
  bool ok = true;                ///< every element matched
  std::int64_t n = 0;            ///< elements checked
  std::int64_t wrong = 0;        ///< how many were wrong
  std::int64_t first_bad = -1;   ///< index of the first wrong element
  std::string expected;          ///< reference at first_bad
  std::string got;               ///< output at first_bad
  std::vector<std::string> neighbourhood;  ///< "index: expected .., got .." lines around first_bad

  /// A multi-line account: "3 of 1000 elements wrong; first at index 512:
  /// expected 123, got -1515870811 (poison: never written)", then the
  /// neighbourhood. Empty when ok.
  std::string describe() const;
};

/// Checks `got` (n elements) against the oracle's scan of `input`.
/// \param input   the scan's input
/// \param got     what the variant wrote
/// \param kind    inclusive or exclusive
/// \param op      the operator
/// \param segment 0 for a full scan; k > 0 for a tile-wise scan of k-element segments
template <class T, class Op>
VerifyReport verify_scan(const std::vector<T>& input, const std::vector<T>& got, Kind kind,
                         Op op, std::int64_t segment = 0);

/// Formats a value as the reports print it.
template <class T>
std::string format_value(T value);

}  // namespace scan

#include <scan/detail/verify_impl.hpp>
