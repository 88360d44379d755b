/// \file
/// \brief The element types and operators a variant is built for, and the
///        dispatch from run-time names to compile-time types.
///
/// Chapters are templates on the element type `T` and the operator `Op`. The
/// command line names them at run time (`--type float --op max`). This header
/// is the one bridge: the list of (T, Op) pairs every variant is compiled for
/// (ScanCombos), and visit_combo(), which calls a generic lambda with the
/// types a run-time pair names.
#pragma once

#include <scan/ops.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

namespace scan {

/// Inclusive: out[i] = in[0] op ... op in[i]. Exclusive: out[i] = identity op in[0] op ... op in[i-1].
enum class Kind { inclusive, exclusive };

/// The element types of the command line's `--type`.
enum class DType { i32, u32, i64, f32, f64 };

/// The operators of the command line's `--op`.
enum class OpId { add, max, min, affine };

/// The DType of a C++ type.
template <class T>
constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, std::int32_t>) return DType::i32;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return DType::u32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return DType::i64;
  else if constexpr (std::is_same_v<T, float>) return DType::f32;
  else {
    static_assert(std::is_same_v<T, double>, "unsupported element type");
    return DType::f64;
  }
}

/// The OpId of an operator type.
template <class Op>
constexpr OpId op_id_of() {
  if constexpr (std::is_same_v<Op, Add>) return OpId::add;
  else if constexpr (std::is_same_v<Op, Max>) return OpId::max;
  else if constexpr (std::is_same_v<Op, Min>) return OpId::min;
  else {
    static_assert(std::is_same_v<Op, AffineCompose>, "unsupported operator");
    return OpId::affine;
  }
}

/// A compile-time (T, Op) pair.
template <class T, class Op>
struct Combo {
  using value_type = T;  ///< the element type
  using op_type = Op;    ///< the operator
};

/// Every (T, Op) pair a variant is compiled for: five types times add, max
/// and min, plus the non-commutative AffineCompose on uint32.
using ScanCombos = std::tuple<
    Combo<std::int32_t, Add>, Combo<std::int32_t, Max>, Combo<std::int32_t, Min>,
    Combo<std::uint32_t, Add>, Combo<std::uint32_t, Max>, Combo<std::uint32_t, Min>,
    Combo<std::uint32_t, AffineCompose>,
    Combo<std::int64_t, Add>, Combo<std::int64_t, Max>, Combo<std::int64_t, Min>,
    Combo<float, Add>, Combo<float, Max>, Combo<float, Min>,
    Combo<double, Add>, Combo<double, Max>, Combo<double, Min>>;

/// Only the sums of int32 and float: the pairs a tuning sweep is built for.
using SweepCombos = std::tuple<Combo<std::int32_t, Add>, Combo<float, Add>>;

/// Number of pairs in ScanCombos.
inline constexpr std::size_t kComboCount = std::tuple_size_v<ScanCombos>;

/// Position of (dtype, op) in ScanCombos, or nothing if the pair is not built.
std::optional<std::size_t> combo_index(DType dtype, OpId op);

/// Position of a compile-time pair in ScanCombos.
template <class T, class Op>
constexpr std::size_t combo_index_of() {
  constexpr auto index = []<std::size_t... I>(std::index_sequence<I...>) {
    constexpr bool matches[] = {std::is_same_v<std::tuple_element_t<I, ScanCombos>, Combo<T, Op>>...};
    for (std::size_t i = 0; i < sizeof...(I); ++i) {
      if (matches[i]) return i;
    }
    return sizeof...(I);
  }(std::make_index_sequence<kComboCount>{});
  static_assert(index < kComboCount, "(T, Op) is not in ScanCombos");
  return index;
}

/// Calls `f.template operator()<T, Op>()` for every pair of the tuple `Combos`.
template <class Combos, class F>
void for_each_combo(F&& f) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (f.template operator()<typename std::tuple_element_t<I, Combos>::value_type,
                           typename std::tuple_element_t<I, Combos>::op_type>(),
     ...);
  }(std::make_index_sequence<std::tuple_size_v<Combos>>{});
}

/// Calls `f.template operator()<T, Op>()` with the types that (dtype, op)
/// name. Returns false, without calling, if the pair is not in ScanCombos.
template <class F>
bool visit_combo(DType dtype, OpId op, F&& f) {
  bool called = false;
  for_each_combo<ScanCombos>([&]<class T, class Op>() {
    if (!called && dtype_of<T>() == dtype && op_id_of<Op>() == op) {
      f.template operator()<T, Op>();
      called = true;
    }
  });
  return called;
}

/// "int32", "uint32", "int64", "float", "double".
std::string_view dtype_name(DType dtype);
/// Size of one element in bytes.
std::size_t dtype_size(DType dtype);
/// "add", "max", "min", "affine".
std::string_view op_name(OpId op);
/// "inclusive", "exclusive".
std::string_view kind_name(Kind kind);

/// Parses a type name; nothing if unknown.
std::optional<DType> parse_dtype(std::string_view text);
/// Parses an operator name; nothing if unknown.
std::optional<OpId> parse_op(std::string_view text);
/// Parses "inclusive" or "exclusive"; nothing otherwise.
std::optional<Kind> parse_kind(std::string_view text);

/// All element types, in command-line order.
inline constexpr std::array<DType, 5> kAllDTypes = {DType::i32, DType::u32, DType::i64,
                                                    DType::f32, DType::f64};
/// All operators, in command-line order.
inline constexpr std::array<OpId, 4> kAllOps = {OpId::add, OpId::max, OpId::min, OpId::affine};

}  // namespace scan
