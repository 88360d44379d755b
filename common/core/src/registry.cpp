#include <scan/registry.hpp>

#include <stdexcept>
#include <string>

namespace scan {
namespace {

/// The block a call runs with: block_for(requested), checked against the variant's limits.
int checked_block(const Variant& v, int requested) {
  if (const std::string why = v.block_problem(requested); !why.empty()) throw std::invalid_argument(why);
  return v.block_for(requested);
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

std::string Variant::block_size_problem(int block) {
  if (block >= 1 && block <= 1024 && (block & (block - 1)) == 0) return {};
  return "a block must be a power of two from 1 to 1024 threads, not " + std::to_string(block);
}

std::string Variant::block_problem(int requested) const {
  const int block = block_for(requested);
  if (!info.takes_block) return {};  // its own fixed shape
  if (std::string why = block_size_problem(block); !why.empty()) return "variant '" + info.name + "': " + why;
  if (block < info.block_min) {
    return "a block of " + std::to_string(block) + " threads is too small for '" + info.name +
           "', which needs at least " + std::to_string(info.block_min);
  }
  return {};
}

const Variant* Chapter::find(const std::string& name) const {
  for (const auto& v : variants) {
    if (v.info.name == name) return &v;
  }
  return nullptr;
}

}  // namespace scan
