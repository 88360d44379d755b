#include "decoupled_lookback.cuh"

namespace scan::ch10 {
namespace {

/// Sweep points: the tuned variant's knobs, one at a time (int32 and float sums).
template <Tuning... Points>
void add_sweep(std::vector<Variant>& variants) {
  (variants.push_back(gpu_variant<DecoupledLookBack<Points>, SweepCombos>()), ...);
}

constexpr BackOff kDoubling{0, 32, 256};
constexpr BackOff kPatient{1200, 640, 640};
constexpr BackOff kFixedNap{0, 640, 640};
constexpr BackOff kSettleDoubling{1200, 32, 256};

std::vector<Variant> variants() {
  std::vector<Variant> v = {
      gpu_variant<DecoupledLookBack<Tuning{kThreads, kItems, LookBack::serial, false, kNoBackOff, TileIo::block, true, Role::serial_lookback}>>(),
      gpu_variant<DecoupledLookBack<Tuning{kThreads, kItems, LookBack::warp, false, kNoBackOff, TileIo::block, true, Role::warp_lookback}>>(),
      gpu_variant<DecoupledLookBack<Tuning{kTunedThreads, kTunedItems, LookBack::warp, true, kDoubling, TileIo::block, true, Role::tuned}>>(),
  };
  add_sweep<Tuning{128, 24, LookBack::warp, true, kDoubling, TileIo::block, true},
            Tuning{128, 24, LookBack::warp, true, kDoubling, TileIo::block, false},
            Tuning{128, 24, LookBack::warp, true, kDoubling, TileIo::warp, true},
            Tuning{128, 24, LookBack::warp, true, kPatient, TileIo::block, true},
            Tuning{128, 24, LookBack::warp, true, kFixedNap, TileIo::block, true},
            Tuning{128, 24, LookBack::warp, true, kSettleDoubling, TileIo::block, true},
            Tuning{128, 24, LookBack::warp, true, kPatient, TileIo::warp, true},
            Tuning{128, 24, LookBack::warp, true, kPatient, TileIo::warp, false},
            Tuning{128, 24, LookBack::warp, true, kNoBackOff, TileIo::warp, true},
            Tuning{256, 12, LookBack::warp, true, kPatient, TileIo::warp, true},
            Tuning{128, 16, LookBack::warp, true, kPatient, TileIo::warp, true},
            Tuning{256, 16, LookBack::warp, true, kPatient, TileIo::warp, true}>(v);
  return v;
}

}  // namespace

const Chapter& chapter() {
  static const Chapter c{"10", "decoupled_lookback", "Decoupled look-back", Where::device, variants()};
  return c;
}

}  // namespace scan::ch10
