/// \file
/// \brief Chapter 05: CPU models of Kogge-Stone and Brent-Kung that count
///        their operations and steps.
///
/// Each model runs its algorithm, step by step, on a host array exactly as
/// the GPU kernels do (every thread of a step reads before any writes), and
/// counts one operation per application of the operator and one step per
/// barrier-separated round. The tests check the counts against the formulas
/// and the results against the sequential scan; `ch05_op_counts` prints the
/// table in the chapter's text.
#pragma once

#include <cstdint>
#include <vector>

namespace scan::ch05 {

/// What a model counted.
struct OpCount {
  std::int64_t operations = 0;  ///< applications of the operator
  int steps = 0;                ///< rounds separated by a barrier
};

/// Kogge-Stone, in place: after it, `a` holds the inclusive scan.
/// For n = 2^k: n log2 n - (n - 1) operations in log2 n steps.
template <class T, class Op>
OpCount kogge_stone_model(std::vector<T>& a, Op op) {
  OpCount count;
  const auto n = static_cast<std::int64_t>(a.size());
  for (std::int64_t offset = 1; offset < n; offset *= 2) {
    const std::vector<T> before = a;  // all reads of a step happen before its writes
    for (std::int64_t i = offset; i < n; ++i) {
      a[i] = op(before[i - offset], before[i]);
      ++count.operations;
    }
    ++count.steps;
  }
  return count;
}

/// The up-sweep both tree scans share: a reduction tree in place, after
/// which a[j] holds the total of the largest aligned block ending at j.
/// n - 1 operations in log2 n steps, added to `count`.
template <class T, class Op>
void up_sweep_model(std::vector<T>& a, Op op, OpCount& count) {
  const auto n = static_cast<std::int64_t>(a.size());
  for (std::int64_t stride = 1; stride < n; stride *= 2) {
    for (std::int64_t j = 2 * stride - 1; j < n; j += 2 * stride) {
      a[j] = op(a[j - stride], a[j]);
      ++count.operations;
    }
    ++count.steps;
  }
}

/// Brent-Kung (up-sweep, then down-sweep), in place, for n a power of two.
/// 2(n - 1) - log2 n operations in 2 log2 n - 1 steps.
template <class T, class Op>
OpCount brent_kung_model(std::vector<T>& a, Op op) {
  OpCount count;
  const auto n = static_cast<std::int64_t>(a.size());
  up_sweep_model(a, op, count);
  for (std::int64_t stride = n / 4; stride >= 1; stride /= 2) {
    for (std::int64_t j = 2 * stride - 1; j + stride < n; j += 2 * stride) {
      a[j + stride] = op(a[j], a[j + stride]);
      ++count.operations;
    }
    ++count.steps;
  }
  return count;
}

/// Blelloch's exclusive scan, in place, for n a power of two.
/// 2(n - 1) operations in 2 log2 n steps (plus setting the root).
template <class T, class Op>
OpCount blelloch_model(std::vector<T>& a, Op op, T identity) {
  OpCount count;
  const auto n = static_cast<std::int64_t>(a.size());
  up_sweep_model(a, op, count);
  a[n - 1] = identity;
  for (std::int64_t stride = n / 2; stride >= 1; stride /= 2) {
    for (std::int64_t j = 2 * stride - 1; j < n; j += 2 * stride) {
      const T left_total = a[j - stride];
      a[j - stride] = a[j];
      a[j] = op(a[j], left_total);
      ++count.operations;
    }
    ++count.steps;
  }
  return count;
}

}  // namespace scan::ch05
