/// \file
/// \brief Chapter 13's program: its options, the inputs it makes, and the CPU
///        references it and the tests check every result against.
#pragma once

#include <scan/cli.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace scan::ch13 {

/// The slopes a_i of the recurrences the program and the tests run.
enum class Slopes {
  decaying,  ///< a in [0.9, 0.9999): an exponential moving average, a model's decaying state
  one,       ///< a = 1: a plain running sum (of small integers: exact)
  mixed,     ///< a = 1 at every third element, elsewhere |a| < 0.99 of either sign
};

/// The command line of ch13_applications.
struct AppOptions : RunOptions {
  std::int64_t n = std::int64_t{16} << 20;  ///< elements
  std::string app = "all";                  ///< which application
  DType dtype = DType::i32;                 ///< compact: the element type (32-bit)
  double select = 0.5;                      ///< compact: the fraction kept
  int bit = 0;                              ///< split: the bit
  std::int64_t row = 65536;                 ///< recurrence: the batch's row length (0: none)
  Slopes slopes = Slopes::decaying;         ///< recurrence: the a_i
  OutputFormat format = OutputFormat::table;  ///< table or `--csv`
  bool baselines = true;                    ///< the library rows
};

/// The applications, in the order the program runs them.
const std::vector<std::string>& application_names();

/// Slopes a_i of a recurrence of n elements.
std::vector<float> recurrence_slopes(std::int64_t n, Slopes kind, std::uint64_t seed);
/// Offsets b_i of a recurrence of n elements.
std::vector<float> recurrence_offsets(std::int64_t n, Slopes kind, std::uint64_t seed);
/// The depth of the association tree of element i in linear_recurrence()'s
/// kernel (rows of `row` elements; 0: one sequence): what its error bound
/// counts (the text derives it).
double recurrence_depth(std::int64_t i, std::int64_t row);

/// The program's main: parses the command line and runs the applications.
int run_applications(int argc, char** argv);

// --- The CPU references: what each application must produce, computed the
// plain way, and how a GPU result is judged. ---------------------------------

/// The first difference between `got` and `expected`, or "" if none.
template <class T>
std::string first_difference(const std::vector<T>& got, const std::vector<T>& expected) {
  if (got.size() != expected.size()) {
    return std::to_string(got.size()) + " elements, expected " + std::to_string(expected.size());
  }
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!(got[i] == expected[i])) {
      std::size_t wrong = 0;
      for (std::size_t j = i; j < got.size(); ++j) wrong += !(got[j] == expected[j]);
      return std::to_string(wrong) + " of " + std::to_string(got.size()) + " elements wrong; first at index " +
             std::to_string(i) + ": expected " + std::to_string(expected[i]) + ", got " + std::to_string(got[i]);
    }
  }
  return "";
}

/// Stream compaction: the elements `keep` selects, in order.
template <class T, class Pred>
std::vector<T> compact_reference(const std::vector<T>& in, Pred keep) {
  std::vector<T> out;
  for (const T& x : in) {
    if (keep(x)) out.push_back(x);
  }
  return out;
}

/// The split: selected elements in order, then the others in order
/// (`reversed`: the others from the end backwards, cub::DevicePartition's order).
template <class T, class Pred>
std::vector<T> split_reference(const std::vector<T>& in, Pred select, bool reversed) {
  std::vector<T> out, rest;
  for (const T& x : in) (select(x) ? out : rest).push_back(x);
  if (reversed) std::reverse(rest.begin(), rest.end());
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

/// Sorted keys: a plain LSD radix sort with 8-bit digits (four counting sorts).
std::vector<std::uint32_t> sort_reference(std::vector<std::uint32_t> keys);

/// What a linear recurrence must produce, and how close a float result
/// must come (chapter 13's text derives the bound).
struct RecurrenceReference {
  std::vector<double> x;          ///< x_i, computed in double
  std::vector<double> tolerance;  ///< the largest error a correct float scan can make at i
};

/// x_i = a_i x_{i-1} + b_i in double, restarting every `row` elements (0:
/// never), with each element's tolerance for a float scan whose
/// association tree has depth at most `depth(i)` (chapter 13's text
/// derives it). Term j of x_i, \f$ b_j \prod_{k=j+1}^{i} a_k \f$, is
/// rounded at most once per tree level by the multiply-adds that carry it
/// (h roundings), and its product of slopes, made by the tree's
/// multiplications, at most once per slope (i - j). So
/// \f$ |e_i| \le \sum_j |b_j| \prod |a_k| \big((1+u)^{(i-j)+2h} - 1\big)
///   = (1+u)^{2h} T_i - M_i \f$
/// with \f$ M_i = |a_i| M_{i-1} + |b_i| \f$ and
/// \f$ T_i = (1+u)|a_i| T_{i-1} + |b_i| \f$, two recurrences of magnitudes.
/// (2h counts each level twice: a margin for the products.) A plain sum of
/// whole numbers that float holds exactly is checked exactly.
template <class Depth>
RecurrenceReference recurrence_reference(const std::vector<float>& a, const std::vector<float>& b, std::int64_t row,
                                         Depth depth) {
  const std::size_t n = a.size();
  RecurrenceReference r{std::vector<double>(n), std::vector<double>(n)};
  const double u = std::numeric_limits<float>::epsilon() / 2.0;
  double x = 0, magnitude = 0, grown = 0;
  bool exact = true;  // slopes of 1 and whole offsets so far, and sums float holds exactly
  for (std::size_t i = 0; i < n; ++i) {
    if (row > 0 && static_cast<std::int64_t>(i) % row == 0) {
      x = magnitude = grown = 0;
      exact = true;
    }
    const double slope = std::fabs(static_cast<double>(a[i])), offset = std::fabs(static_cast<double>(b[i]));
    x = static_cast<double>(a[i]) * x + b[i];
    magnitude = slope * magnitude + offset;
    grown = (1 + u) * slope * grown + offset;
    exact = exact && a[i] == 1.0f && b[i] == std::floor(b[i]) && magnitude <= 16777216.0;
    const double levels = 2.0 * depth(static_cast<std::int64_t>(i));
    const double bound = std::expm1(levels * std::log1p(u)) * grown + std::max(0.0, grown - magnitude);
    r.x[i] = x;
    r.tolerance[i] = exact ? 0.0 : bound * (1 + 1e-9) + 1e-12 * magnitude;  // plus the double reference's own rounding
  }
  return r;
}

/// Judges a float recurrence result against its reference.
inline std::string judge_recurrence(const std::vector<float>& got, const RecurrenceReference& r) {
  std::size_t wrong = 0, first = got.size();
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double error = std::fabs(static_cast<double>(got[i]) - r.x[i]);
    if (!(error <= r.tolerance[i])) {  // NaN fails too
      if (wrong++ == 0) first = i;
    }
  }
  if (wrong == 0) return "";
  return std::to_string(wrong) + " of " + std::to_string(got.size()) + " elements wrong; first at index " +
         std::to_string(first) + ": expected " + std::to_string(r.x[first]) + " within " +
         std::to_string(r.tolerance[first]) + ", got " + std::to_string(got[first]);
}

}  // namespace scan::ch13
