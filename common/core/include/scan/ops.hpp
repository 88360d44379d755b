/// \file
/// \brief The scan operators: add, max, min, and a non-commutative one.
///
/// A scan needs an *associative* operator with an *identity*:
/// \f$ (a \oplus b) \oplus c = a \oplus (b \oplus c) \f$ and
/// \f$ e \oplus a = a \oplus e = a \f$. It does not need commutativity, and a
/// parallel scan must never assume it: every algorithm in the tutorial keeps
/// the left operand to the left. AffineCompose is here to catch the ones
/// that do not (chapter 01 explains why).
///
/// Each operator is a small struct usable on host and device:
/// `op(a, b)` combines, `Op::template identity<T>()` is the identity.
#pragma once

#include <cuda/std/limits>

#include <cstdint>
#include <type_traits>

#if defined(__CUDACC__)
/// Marks a function callable from host and device code (and plain C++ when
/// the file is compiled by the host compiler alone).
#define SCAN_HD __host__ __device__
#else
#define SCAN_HD
#endif

namespace scan {

/// Addition; identity 0. Integers wrap around (defined for unsigned types).
struct Add {
  static constexpr const char* name = "add";  ///< name on the command line
  /// The identity: 0.
  template <class T>
  SCAN_HD static constexpr T identity() {
    return T(0);
  }
  /// a + b (wrapping for unsigned integers).
  template <class T>
  SCAN_HD constexpr T operator()(const T& a, const T& b) const {
    return static_cast<T>(a + b);
  }
};

/// Maximum; identity the lowest value (minus infinity for floating point).
struct Max {
  static constexpr const char* name = "max";  ///< name on the command line
  /// The identity: minus infinity, or the lowest value of an integer type.
  template <class T>
  SCAN_HD static constexpr T identity() {
    if constexpr (cuda::std::numeric_limits<T>::has_infinity) {
      return -cuda::std::numeric_limits<T>::infinity();
    } else {
      return cuda::std::numeric_limits<T>::lowest();
    }
  }
  /// The larger of a and b.
  template <class T>
  SCAN_HD constexpr T operator()(const T& a, const T& b) const {
    return a < b ? b : a;
  }
};

/// Minimum; identity the largest value (plus infinity for floating point).
struct Min {
  static constexpr const char* name = "min";  ///< name on the command line
  /// The identity: plus infinity, or the largest value of an integer type.
  template <class T>
  SCAN_HD static constexpr T identity() {
    if constexpr (cuda::std::numeric_limits<T>::has_infinity) {
      return cuda::std::numeric_limits<T>::infinity();
    } else {
      return cuda::std::numeric_limits<T>::max();
    }
  }
  /// The smaller of a and b.
  template <class T>
  SCAN_HD constexpr T operator()(const T& a, const T& b) const {
    return b < a ? b : a;
  }
};

/// Composition of affine maps modulo 2^16: associative, **not** commutative.
///
/// A 32-bit word `(a << 16) | b` stands for the map \f$ x \mapsto a x + b \f$
/// (mod \f$2^{16}\f$). `op(f, g)` is "first f, then g":
/// \f[ g(f(x)) = a_g (a_f x + b_f) + b_g = (a_g a_f)\,x + (a_g b_f + b_g). \f]
/// Composition of functions is associative; swapping f and g gives another
/// map, so an algorithm that swaps operands anywhere produces wrong prefixes.
/// The identity is the map \f$ x \mapsto x \f$: a = 1, b = 0.
///
/// The same composition, over real numbers, turns the recurrence
/// \f$ x_i = a_i x_{i-1} + b_i \f$ into a scan.
struct AffineCompose {
  static constexpr const char* name = "affine";  ///< name on the command line
  /// The identity map x -> x: a = 1, b = 0.
  template <class T>
  SCAN_HD static constexpr T identity() {
    static_assert(std::is_same_v<T, std::uint32_t>, "AffineCompose works on uint32 words");
    return 0x00010000u;
  }
  /// The composed map: apply `first`, then `then`.
  SCAN_HD constexpr std::uint32_t operator()(std::uint32_t first, std::uint32_t then) const {
    const std::uint32_t a_first = first >> 16, b_first = first & 0xFFFFu;
    const std::uint32_t a_then = then >> 16, b_then = then & 0xFFFFu;
    // 16-bit factors: the products fit in 32 bits before the reduction.
    const std::uint32_t a = (a_then * a_first) & 0xFFFFu;
    const std::uint32_t b = (a_then * b_first + b_then) & 0xFFFFu;
    return (a << 16) | b;
  }
};

}  // namespace scan
