#include "decoupled_lookback.cuh"

namespace scan::ch10 {
namespace {

/// The tuned variant at one shape, for the sweep (int32 and float sums).
template <int Threads, int... Items>
void add_sweep_row(std::vector<Variant>& variants) {
  (variants.push_back(
       gpu_variant<DecoupledLookBack<Threads, Items, LookBack::warp, true, true, true>, SweepCombos>()),
   ...);
}

std::vector<Variant> variants() {
  std::vector<Variant> v = {
      gpu_variant<DecoupledLookBack<kThreads, kItems, LookBack::serial, false, false>>(),
      gpu_variant<DecoupledLookBack<kThreads, kItems, LookBack::warp, false, false>>(),
      gpu_variant<DecoupledLookBack<kTunedThreads, kTunedItems, LookBack::warp, true, true>>(),
  };
  add_sweep_row<128, 8, 12, 16, 24>(v);
  add_sweep_row<256, 8, 12, 16, 24>(v);
  add_sweep_row<512, 8, 12, 16>(v);  // 512 x 24 would exceed 48 KiB of shared memory
  return v;
}

}  // namespace

const Chapter& chapter() {
  static const Chapter c{"10", "decoupled_lookback", "Decoupled look-back", Where::device, variants()};
  return c;
}

}  // namespace scan::ch10
