/// \file
/// \brief Implementation of verify_scan() (included by verify.hpp).
#pragma once

#include <scan/host_parallel.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <type_traits>
#include <vector>

namespace scan {
namespace detail {

/// The smallest q >= 0 such that x * 2^q is an integer (0 for integers).
template <class F>
int fraction_bits(F x) {
  using Bits = std::conditional_t<sizeof(F) == 4, std::uint32_t, std::uint64_t>;
  constexpr int kStored = std::numeric_limits<F>::digits - 1;  // significand bits in the word
  constexpr int kBias = std::numeric_limits<F>::max_exponent - 1;
  const Bits bits = std::bit_cast<Bits>(x);
  const Bits significand = bits & ((Bits{1} << kStored) - 1);
  const int field = static_cast<int>((bits >> kStored) & ((Bits{1} << (sizeof(F) * 8 - 1 - kStored)) - 1));
  if (field == 0 && significand == 0) return 0;      // zero
  if (field == (2 * kBias + 1)) return 0;             // infinity or NaN: no fraction to speak of
  // x = whole * 2^scale, whole an odd integer once its trailing zeros go.
  const Bits whole = field == 0 ? significand : (significand | (Bits{1} << kStored));
  const int scale = (field == 0 ? 1 : field) - kBias - kStored + std::countr_zero(whole);
  return scale < 0 ? -scale : 0;
}

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class T>
bool is_poison(const T& value) {
  return same_bits(value, poison_value<T>());
}

/// What a floating-point sum's judge knows about the elements combined so
/// far (verify.hpp): their number, the extremes of their prefix sums
/// (counting the empty prefix, 0) and their finest fraction.
template <class Acc>
struct RangeStats {
  std::int64_t count = 0;
  Acc prefix{};   ///< sum of the elements so far
  Acc highest{};  ///< largest prefix sum so far
  Acc lowest{};   ///< smallest prefix sum so far
  int fraction_bits = 0;

  template <class T>
  void absorb(const T& x) {
    ++count;
    prefix += static_cast<Acc>(x);
    highest = std::max(highest, prefix);
    lowest = std::min(lowest, prefix);
    fraction_bits = std::max(fraction_bits, detail::fraction_bits(x));
  }
  /// The stats of `earlier` followed by `later` (later's taken from 0).
  static RangeStats chain(const RangeStats& earlier, const RangeStats& later) {
    RangeStats s;
    s.count = earlier.count + later.count;
    s.prefix = earlier.prefix + later.prefix;
    s.highest = std::max(earlier.highest, earlier.prefix + later.highest);
    s.lowest = std::min(earlier.lowest, earlier.prefix + later.lowest);
    s.fraction_bits = std::max(earlier.fraction_bits, later.fraction_bits);
    return s;
  }
  /// The largest magnitude of a sum of contiguous elements so far.
  Acc largest_range() const { return highest - lowest; }
};

/// Per-element acceptance: exact, or within what the summation can lose.
template <class T, class Op>
struct Judge {
  using Acc = oracle_accumulator_t<T, Op>;
  static constexpr bool kRounds = std::is_floating_point_v<T> && std::is_same_v<Op, Add>;

  /// True if out[i] = `got` is acceptable for the wide reference
  /// `reference`, given the stats of the elements out[i] combines.
  static bool accepts(const T& got, const Acc& reference, const RangeStats<Acc>& stats) {
    if constexpr (!kRounds) {
      return same_bits(got, static_cast<T>(reference));
    } else {
      const Acc error = std::fabs(static_cast<Acc>(got) - reference);
      if (error == 0) return true;
      if (!(error == error)) return false;  // NaN (a poisoned element)
      const Acc range = stats.largest_range();
      // No addition can have rounded: every range sum is a multiple of 2^-q
      // no larger than `range`, and range * 2^q fits in the significand.
      // (Scaling by a power of two is exact in Acc.)
      const bool exact = std::ldexp(range, stats.fraction_bits) <= std::ldexp(Acc{1}, std::numeric_limits<T>::digits);
      if (exact) return false;
      // Most elements pass a cheap test: the bound is at least m u range / 2
      // (expm1(m log1p(u)) >= m log1p(u) >= m u / 2), so an error below that
      // is accepted without the long double transcendental functions, which
      // would otherwise dominate checking 2^30 floats.
      const auto additions = static_cast<Acc>(stats.count - 1);
      if (error <= Acc{0.5} * additions * static_cast<Acc>(std::numeric_limits<T>::epsilon() / 2) * range) {
        return true;
      }
      return static_cast<long double>(error) <= rounding_bound(stats.count - 1, range);
    }
  }

  /// The most `additions` additions in T can lose when no range sum exceeds
  /// `range`: ((1 + u)^m - 1) * range, plus the reference's own rounding.
  static long double rounding_bound(std::int64_t additions, Acc range) {
    if (additions <= 0) return 0;
    const auto m = static_cast<long double>(additions);
    const long double u = std::numeric_limits<T>::epsilon() / 2.0L;
    const long double u_reference = std::numeric_limits<Acc>::epsilon() / 2.0L;
    const long double growth = std::expm1(m * std::log1p(u)) + 2 * std::expm1(m * std::log1p(u_reference));
    return growth * static_cast<long double>(range) * (1 + 1e-9L);
  }
};

/// The oracle's state after some elements: the wide running value and, for
/// float sums, the judge's stats.
template <class T, class Op>
struct Carry {
  using Acc = oracle_accumulator_t<T, Op>;
  Acc running = static_cast<Acc>(Op::template identity<T>());
  RangeStats<Acc> stats;
};

template <class T>
std::string describe_got(const T& got) {
  std::string text = format_value(got);
  if (is_poison(got)) text += " (poison: never written)";
  return text;
}

}  // namespace detail

template <class T, class Op>
ScanChecker<T, Op>::ScanChecker(const std::vector<T>& input, Op op, Restarts restarts)
    : input_(input), op_(op), restarts_(restarts), chunks_(static_cast<std::int64_t>(input.size())) {
  // Pass 1 of a blocked two-pass scan over the host's cores (chapter 01):
  // each chunk's own summary (the state after its last element, from the
  // identity, and whether it started over on the way), then the carries
  // from the summaries in order. Each check() is pass 2.
  std::vector<Carry> summaries(static_cast<std::size_t>(chunks_.pieces()));
  std::vector<char> restarted(summaries.size(), 0);
  for_each_chunk(chunks_, [&](int k) {
    Carry& s = summaries[static_cast<std::size_t>(k)];
    for (std::int64_t i = chunks_.begin(k); i < chunks_.end(k); ++i) {
      if (restarts_.at(i)) {
        s = Carry{};
        restarted[static_cast<std::size_t>(k)] = 1;
      }
      s.running = op_(s.running, static_cast<Acc>(input_[i]));
      if constexpr (Judge::kRounds) s.stats.absorb(input_[i]);
    }
  });
  carries_.resize(summaries.size());
  for (std::size_t k = 1; k < carries_.size(); ++k) {
    if (restarted[k - 1]) {
      carries_[k] = summaries[k - 1];  // what came before the restart no longer counts
    } else {
      carries_[k].running = op_(carries_[k - 1].running, summaries[k - 1].running);  // earlier on the left
      carries_[k].stats = detail::RangeStats<Acc>::chain(carries_[k - 1].stats, summaries[k - 1].stats);
    }
  }
}

template <class T, class Op>
VerifyReport ScanChecker<T, Op>::check(const std::vector<T>& got, Kind kind) const {
  const std::vector<T>& input = input_;
  VerifyReport report;
  const auto n = static_cast<std::int64_t>(input.size());
  report.n = n;
  if (got.size() != input.size()) {
    report.ok = false;
    report.wrong = n;
    report.first_bad = 0;
    report.expected = std::to_string(n) + " elements";
    report.got = std::to_string(got.size()) + " elements";
    return report;
  }

  // Checks elements [begin, end) from `carry`, the state after element
  // begin - 1; `on_wrong(i, reference)` is told of every wrong element.
  const auto check_range = [&](std::int64_t begin, std::int64_t end, Carry carry, auto&& on_wrong) {
    for_each_reference(input.data(), begin, end, kind, op_, restarts_, carry.running,
                       [&](std::int64_t i, Acc reference) {
                         if (restarts_.at(i)) carry.stats = {};
                         if constexpr (Judge::kRounds) {
                           if (kind == Kind::inclusive) carry.stats.absorb(input[i]);
                         }
                         if (!Judge::accepts(got[i], reference, carry.stats)) on_wrong(i, reference);
                         if constexpr (Judge::kRounds) {
                           if (kind == Kind::exclusive) carry.stats.absorb(input[i]);
                         }
                       });
  };

  struct Tally {
    std::int64_t wrong = 0;
    std::int64_t first_bad = -1;
    Acc reference{};
  };
  std::vector<Tally> tallies(carries_.size());
  for_each_chunk(chunks_, [&](int k) {
    Tally& t = tallies[static_cast<std::size_t>(k)];
    check_range(chunks_.begin(k), chunks_.end(k), carries_[static_cast<std::size_t>(k)],
                [&](std::int64_t i, Acc reference) {
                  if (t.wrong++ == 0) {
                    t.first_bad = i;
                    t.reference = reference;
                  }
                });
  });
  for (const Tally& t : tallies) {
    if (t.wrong == 0) continue;
    if (report.wrong == 0) {
      report.first_bad = t.first_bad;
      report.expected = format_value(static_cast<T>(t.reference));
      report.got = detail::describe_got(got[t.first_bad]);
    }
    report.wrong += t.wrong;
  }
  report.ok = report.wrong == 0;
  if (report.ok) return report;

  // The neighbourhood of the first bad element, for the report: walk again
  // from the start of its chunk.
  const std::int64_t lo = std::max<std::int64_t>(0, report.first_bad - 3);
  const std::int64_t hi = std::min<std::int64_t>(n - 1, report.first_bad + 3);
  int k = 0;
  while (chunks_.end(k) <= lo) ++k;
  for_each_reference(input.data(), chunks_.begin(k), hi + 1, kind, op_, restarts_,
                     carries_[static_cast<std::size_t>(k)].running, [&](std::int64_t i, Acc reference) {
                       if (i < lo) return;
                       std::ostringstream line;
                       line << (i == report.first_bad ? "-> " : "   ") << "[" << i << "] expected "
                            << format_value(static_cast<T>(reference)) << ", got " << detail::describe_got(got[i]);
                       report.neighbourhood.push_back(line.str());
                     });
  return report;
}

template <class T, class Op>
VerifyReport verify_scan(const std::vector<T>& input, const std::vector<T>& got, Kind kind, Op op,
                         Restarts restarts) {
  return ScanChecker<T, Op>(input, op, restarts).check(got, kind);
}

}  // namespace scan
