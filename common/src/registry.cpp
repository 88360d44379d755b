#include <scan/registry.hpp>

#include <stdexcept>

namespace scan {
namespace {

/// The block a call runs with: block_for(requested), checked against the variant's limits.
int checked_block(const Variant& v, int requested) {
  const int block = v.block_for(requested);
  const VariantInfo& info = v.info;
  if (info.takes_block && (block < info.block_min || block > 1024 || (block & (block - 1)) != 0)) {
    throw std::invalid_argument("variant '" + info.name + "' takes a power-of-two block of " +
                                std::to_string(info.block_min) + " to 1024 threads, not " + std::to_string(block));
  }
  return block;
}

}  // namespace

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
  ErasedRequest resolved = request;
  resolved.block_threads = checked_block(*this, request.block_threads);
  implementations[*combo_index(dtype, op)].run(resolved);
}

std::size_t Variant::workspace_bytes(DType dtype, OpId op, std::int64_t n, int block_threads) const {
  if (!supports(dtype, op)) return 0;
  return implementations[*combo_index(dtype, op)].workspace_bytes(n, checked_block(*this, block_threads));
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
