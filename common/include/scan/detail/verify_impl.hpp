/// \file
/// \brief Implementation of verify_scan() (included by verify.hpp).
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <type_traits>

namespace scan {
namespace detail {

/// The smallest q >= 0 such that x * 2^q is an integer (0 for integers).
template <class F>
int fraction_bits(F x) {
  if (x == 0 || !std::isfinite(x)) return 0;
  int exponent = 0;
  const F mantissa = std::frexp(std::fabs(x), &exponent);  // x = m * 2^e, 0.5 <= m < 1
  constexpr int digits = std::numeric_limits<F>::digits;
  const auto integer = static_cast<std::uint64_t>(std::ldexp(mantissa, digits));
  const int q = digits - exponent - std::countr_zero(integer);
  return q > 0 ? q : 0;
}

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class T>
bool is_poison(const T& value) {
  return same_bits(value, poison_value<T>());
}

/// Per-element acceptance: exact, or within the floating-point bound.
template <class T, class Op>
class Judge {
 public:
  using Acc = oracle_accumulator_t<T, Op>;
  explicit Judge(std::int64_t n) {
    const double depth = std::ceil(std::log2(static_cast<double>(std::max<std::int64_t>(n, 2))));
    depth_ = static_cast<Acc>(depth);
  }

  /// Call for every input element in order, before judging its output
  /// (inclusive) or after (exclusive): keeps the prefix's sum of magnitudes
  /// and its finest fraction.
  void absorb(const T& x) {
    if constexpr (rounds()) {
      magnitudes_ += std::fabs(static_cast<Acc>(x));
      fraction_bits_ = std::max(fraction_bits_, fraction_bits(x));
    }
  }
  void restart() {
    magnitudes_ = 0;
    fraction_bits_ = 0;
  }

  bool accepts(const T& got, const Acc& reference) const {
    if constexpr (!rounds()) {
      return same_bits(got, static_cast<T>(reference));
    } else {
      // No rounding can have happened: every partial sum in any order is a
      // multiple of 2^-q no larger than the sum of magnitudes, and fits.
      const bool exact = std::ldexp(static_cast<double>(magnitudes_), fraction_bits_) <=
                         std::ldexp(1.0, std::numeric_limits<T>::digits);
      const Acc error = std::fabs(static_cast<Acc>(got) - reference);
      if (exact) return error == 0;
      const Acc bound = depth_ * static_cast<Acc>(std::numeric_limits<T>::epsilon()) * magnitudes_;
      return error <= bound;  // false for NaN
    }
  }

 private:
  static constexpr bool rounds() { return std::is_floating_point_v<T> && std::is_same_v<Op, Add>; }
  Acc magnitudes_{};
  Acc depth_{};
  int fraction_bits_ = 0;
};

template <class T>
std::string describe_got(const T& got) {
  std::string text = format_value(got);
  if (is_poison(got)) text += " (poison: never written)";
  return text;
}

}  // namespace detail

template <class T, class Op>
VerifyReport verify_scan(const std::vector<T>& input, const std::vector<T>& got, Kind kind, Op op,
                         std::int64_t segment) {
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

  detail::Judge<T, Op> judge(segment > 0 ? std::min(segment, n) : n);
  for_each_reference(input.data(), n, kind, op, segment, [&](std::int64_t i, auto reference) {
    if (segment > 0 && i % segment == 0) judge.restart();
    if (kind == Kind::inclusive) judge.absorb(input[i]);
    if (!judge.accepts(got[i], reference)) {
      if (report.wrong == 0) {
        report.first_bad = i;
        report.expected = format_value(static_cast<T>(reference));
        report.got = detail::describe_got(got[i]);
      }
      ++report.wrong;
    }
    if (kind == Kind::exclusive) judge.absorb(input[i]);
  });
  report.ok = report.wrong == 0;
  if (report.ok) return report;

  // The neighbourhood of the first bad element, for the report.
  const std::int64_t lo = std::max<std::int64_t>(0, report.first_bad - 3);
  const std::int64_t hi = std::min<std::int64_t>(n - 1, report.first_bad + 3);
  for_each_reference(input.data(), hi + 1, kind, op, segment, [&](std::int64_t i, auto reference) {
    if (i < lo) return;
    std::ostringstream line;
    line << (i == report.first_bad ? "-> " : "   ") << "[" << i << "] expected "
         << format_value(static_cast<T>(reference)) << ", got " << detail::describe_got(got[i]);
    report.neighbourhood.push_back(line.str());
  });
  return report;
}

}  // namespace scan
