#include <scan/types.hpp>

namespace scan {

std::optional<std::size_t> combo_index(DType dtype, OpId op) {
  std::optional<std::size_t> index;
  visit_combo(dtype, op, [&]<class T, class Op>() { index = combo_index_of<T, Op>(); });
  return index;
}

std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::i32: return "int32";
    case DType::u32: return "uint32";
    case DType::i64: return "int64";
    case DType::f32: return "float";
    case DType::f64: return "double";
  }
  return "?";
}

std::size_t dtype_size(DType dtype) {
  switch (dtype) {
    case DType::i32:
    case DType::u32:
    case DType::f32: return 4;
    case DType::i64:
    case DType::f64: return 8;
  }
  return 0;
}

std::string_view op_name(OpId op) {
  switch (op) {
    case OpId::add: return Add::name;
    case OpId::max: return Max::name;
    case OpId::min: return Min::name;
    case OpId::affine: return AffineCompose::name;
  }
  return "?";
}

std::string_view kind_name(Kind kind) {
  return kind == Kind::inclusive ? "inclusive" : "exclusive";
}

std::optional<DType> parse_dtype(std::string_view text) {
  for (DType d : kAllDTypes) {
    if (dtype_name(d) == text) return d;
  }
  return std::nullopt;
}

std::optional<OpId> parse_op(std::string_view text) {
  for (OpId op : kAllOps) {
    if (op_name(op) == text) return op;
  }
  return std::nullopt;
}

std::optional<Kind> parse_kind(std::string_view text) {
  if (text == "inclusive") return Kind::inclusive;
  if (text == "exclusive") return Kind::exclusive;
  return std::nullopt;
}

}  // namespace scan
