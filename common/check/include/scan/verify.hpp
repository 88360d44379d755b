/// \file
/// \brief Checking a scan's output against the oracle, and poisoning outputs.
///
/// The rules every check follows:
/// - outputs are *poisoned* before every run, so an element a variant never
///   wrote cannot pass: integers with the byte 0xA5 repeated, floating point
///   with all bits set (a NaN, which fails every comparison);
/// - integers, and max/min of any type, must match exactly;
/// - floating-point sums are judged by what a correct scan can really lose.
///   Every value a correct scan computes on its way to out[i], in whatever
///   order it adds, is the rounded sum of a *contiguous range* of
///   \f$ x_0 \ldots x_i \f$; call \f$ R_i \f$ the largest magnitude of such a
///   range sum, \f$ \max_{b \le i} P_b - \min_{a \le i} P_a \f$ over the prefix
///   sums \f$ P \f$ (with \f$ P_{-1} = 0 \f$), which the wide reference
///   knows exactly.
///   - If every input so far is a multiple of \f$ 2^{-q} \f$ and
///     \f$ 2^q R_i \f$ fits in the significand, every range sum is exactly
///     representable: no addition rounds, in any order, so out[i] must be
///     exact. The generated float inputs (generate.hpp) are built so, at any
///     n: a dropped, doubled or shifted element is caught at n = 2^30 as at
///     n = 8.
///   - Otherwise out[i] is the root of some tree of \f$ m = i \f$ additions
///     (i for inclusive, i - 1 for exclusive), each rounding its result by a
///     factor \f$ (1 + \delta) \f$, \f$ |\delta| \le u \f$ (half an ulp at
///     1). By induction over the tree its error is at most
///     \f$ ((1 + u)^m - 1)\, R_i \approx m\,u\,R_i \f$, whatever the tree's
///     shape: a chain of tiles and a balanced tree are both covered. This is
///     sound and it is tight enough only while \f$ m\,u\,R_i \f$ is below the
///     element one wants to see: for float (u = 2^-24) and the real-valued
///     test inputs (R about 4, elements up to 4), a dropped element of at
///     least 2 is still caught up to about n = 2^22; beyond that no sound
///     bound can tell one element from rounding, which is why the default
///     inputs keep every sum exact. For double (u = 2^-53) the bound stays
///     far below one element at every n.
///   The bound adds the reference's own rounding (in the wide type), which is
///   negligible.
#pragma once

#include <scan/host_parallel.hpp>
#include <scan/oracle.hpp>
#include <scan/poison.hpp>
#include <scan/types.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace scan {

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

/// Checks `got` (n elements) against the oracle's scan of `input`, using
/// every core of the host (2^30 elements take seconds, not minutes).
/// \param input   the scan's input
/// \param got     what the variant wrote
/// \param kind    inclusive or exclusive
/// \param op      the operator
/// \param restarts where the scan starts over: nowhere (a full scan), every k
///                 elements (a tile-wise scan; pass VariantInfo::segment), or
///                 at head flags (a segmented scan, chapter 12)
template <class T, class Op>
VerifyReport verify_scan(const std::vector<T>& input, const std::vector<T>& got, Kind kind,
                         Op op, Restarts restarts = {});

namespace detail {
template <class T, class Op>
struct Carry;
template <class T, class Op>
struct Judge;
}  // namespace detail

/// verify_scan() in two steps, for checking several outputs of one input:
/// the constructor makes the oracle's pass over the input (each chunk's
/// carry), once; check() then walks each output from those carries. The
/// runner checks every variant of a chapter this way, which at 2^30
/// elements halves the host's time.
template <class T, class Op>
class ScanChecker {
 public:
  /// The oracle's pass over `input` (kept by reference: it must outlive the checker).
  ScanChecker(const std::vector<T>& input, Op op, Restarts restarts = {});
  /// Checks `got` against the scan of the input, as verify_scan() does.
  VerifyReport check(const std::vector<T>& got, Kind kind) const;

 private:
  using Acc = oracle_accumulator_t<T, Op>;
  using Carry = detail::Carry<T, Op>;
  using Judge = detail::Judge<T, Op>;
  const std::vector<T>& input_;
  Op op_;
  Restarts restarts_;
  Chunks chunks_;
  std::vector<Carry> carries_;  ///< the state before each chunk
};

/// Formats a value as the reports print it.
template <class T>
std::string format_value(T value);

}  // namespace scan

#include <scan/detail/verify_impl.hpp>
