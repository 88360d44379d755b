/// \file
/// \brief The sequential reference scan, accumulating in a wider type.
///
/// This is the oracle every result is checked against. It is the plain loop
/// of chapter 01 with one change: sums are accumulated in a wider type
/// (int64 for int32, uint64 for uint32, double for float, long double for
/// double), so the reference is as close to the exact value as we can cheaply
/// get. Converting the wide integer sum back to T keeps the low bits, which
/// is exactly the wrap-around the GPU's integer adders perform.
#pragma once

#include <scan/ops.hpp>
#include <scan/segments.hpp>
#include <scan/types.hpp>

#include <cstdint>

namespace scan {

/// The accumulator type of the oracle for T under Op: wider for sums, T itself
/// for the operators that never round or overflow (max, min, affine).
template <class T, class Op>
struct oracle_accumulator {
  using type = T;  ///< the type the reference accumulates in
};
/// \cond SPECIALIZATIONS
template <> struct oracle_accumulator<std::int32_t, Add> { using type = std::int64_t; };
template <> struct oracle_accumulator<std::uint32_t, Add> { using type = std::uint64_t; };
template <> struct oracle_accumulator<float, Add> { using type = double; };
template <> struct oracle_accumulator<double, Add> { using type = long double; };
/// \endcond

/// Shorthand for oracle_accumulator<T, Op>::type.
template <class T, class Op>
using oracle_accumulator_t = typename oracle_accumulator<T, Op>::type;

/// Visits the reference scan of elements [begin, end) one element at a time:
/// `visit(i, reference_i)` with the wide value of out[i], starting from
/// `carry`, the combination of every element since the last restart before
/// `begin` (the identity when `begin` is 0). Chunks of one array can so be
/// checked by separate threads, each from its own carry.
template <class T, class Op, class Visit>
void for_each_reference(const T* in, std::int64_t begin, std::int64_t end, Kind kind, Op op, Restarts restarts,
                        oracle_accumulator_t<T, Op> carry, Visit&& visit) {
  using Acc = oracle_accumulator_t<T, Op>;
  const Acc identity = static_cast<Acc>(Op::template identity<T>());
  Acc running = carry;
  for (std::int64_t i = begin; i < end; ++i) {
    if (restarts.at(i)) running = identity;
    if (kind == Kind::exclusive) {
      visit(i, running);
      running = op(running, static_cast<Acc>(in[i]));
    } else {
      running = op(running, static_cast<Acc>(in[i]));
      visit(i, running);
    }
  }
}

/// The whole array: `visit(i, reference_i)` for every i in [0, n).
template <class T, class Op, class Visit>
void for_each_reference(const T* in, std::int64_t n, Kind kind, Op op, Restarts restarts, Visit&& visit) {
  const auto identity = static_cast<oracle_accumulator_t<T, Op>>(Op::template identity<T>());
  for_each_reference(in, 0, n, kind, op, restarts, identity, visit);
}

/// The oracle: out[i] = reference scan of in, converted back to T,
/// starting over where `restarts` says.
template <class T, class Op>
void reference_scan(const T* in, T* out, std::int64_t n, Kind kind, Op op, Restarts restarts = {}) {
  for_each_reference(in, n, kind, op, restarts,
                     [&](std::int64_t i, auto value) { out[i] = static_cast<T>(value); });
}

}  // namespace scan
