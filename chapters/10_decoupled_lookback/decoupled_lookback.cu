#include "decoupled_lookback.cuh"

namespace scan::ch10 {
namespace {

std::vector<Variant> variants() {
  return {
      gpu_variant<DecoupledLookBack<SerialLookBack, false, kSpin>>(),
      gpu_variant<DecoupledLookBack<WarpLookBack, false, kSpin>>(),
      gpu_variant<DecoupledLookBack<WarpLookBack, true, kSpin>>(),
      gpu_variant<DecoupledLookBack<WarpLookBack, true, kSettle>>(),
  };
}

}  // namespace

const Chapter& chapter() {
  static const Chapter c{"10", "decoupled_lookback", "Decoupled look-back", Where::device, variants()};
  return c;
}

}  // namespace scan::ch10
