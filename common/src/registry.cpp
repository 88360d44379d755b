#include <scan/registry.hpp>

#include <stdexcept>

namespace scan {

void Workspace::throw_overflow() const {
  throw std::logic_error("workspace overflow: run() took " + std::to_string(used_) +
                         " bytes but reserve() asked for " + std::to_string(capacity_));
}

bool Variant::supports(DType dtype, OpId op) const {
  const auto index = combo_index(dtype, op);
  return index && implementations[*index].run != nullptr;
}

void Variant::run(DType dtype, OpId op, const ErasedRequest& request) const {
  if (!supports(dtype, op)) {
    throw std::logic_error("variant '" + info.name + "' is not built for " +
                           std::string(dtype_name(dtype)) + " " + std::string(op_name(op)));
  }
  implementations[*combo_index(dtype, op)].run(request);
}

std::size_t Variant::workspace_bytes(DType dtype, OpId op, std::int64_t n, int block_threads) const {
  if (!supports(dtype, op)) return 0;
  return implementations[*combo_index(dtype, op)].workspace_bytes(n, block_threads);
}

int Variant::block_for(int requested) const {
  return info.takes_block && requested > 0 ? requested : info.block;
}

const Variant* Chapter::find(const std::string& name) const {
  for (const auto& v : variants) {
    if (v.info.name == name) return &v;
  }
  return nullptr;
}

}  // namespace scan
