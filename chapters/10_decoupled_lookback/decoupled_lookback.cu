#include "decoupled_lookback.cuh"

namespace scan::ch10 {
namespace {

/// Sweep points of the tuned variant (int32 and float sums).
template <Recipe... Points>
void add_sweep(std::vector<Variant>& variants) {
  (variants.push_back(gpu_variant<DecoupledLookBack<Points>, SweepCombos>()), ...);
}

/// A sweep point: the tuned variant with another shape, tile movement or back-off.
constexpr Recipe point(int threads, int items, TileIo io, BackOff wait) {
  return {threads, items, LookBack::warp, true, wait, io, Role::sweep};
}

constexpr BackOff kDoubling{0, 32, 256, 0};  // naps only, doubling from 32 to 256 ns

std::vector<Variant> variants() {
  std::vector<Variant> v = {
      gpu_variant<DecoupledLookBack<Recipe{kThreads, kItems, LookBack::serial, false, kNoBackOff, TileIo::block,
                                           Role::serial_lookback}>>(),
      gpu_variant<DecoupledLookBack<Recipe{kThreads, kItems, LookBack::warp, false, kNoBackOff, TileIo::block,
                                           Role::warp_lookback}>>(),
      gpu_variant<DecoupledLookBack<kTuned>>(),
  };
  // One change at a time, from variant 2 (with packed states, at the tuned
  // shape) to the tuned variant: back-off, warp-private transposes, settling.
  add_sweep<point(128, 32, TileIo::block, kNoBackOff), point(128, 32, TileIo::block, kDoubling),
            point(128, 32, TileIo::block, kPatient), point(128, 32, TileIo::warp, kNoBackOff),
            point(128, 32, TileIo::warp, kDoubling), point(128, 32, TileIo::warp, kPatient)>(v);
  // The tile shape, with the tuned movement and back-off.
  add_sweep<point(128, 16, TileIo::warp, kPatient), point(128, 24, TileIo::warp, kPatient),
            point(128, 40, TileIo::warp, kPatient), point(128, 48, TileIo::warp, kPatient),
            point(256, 8, TileIo::warp, kPatient), point(256, 12, TileIo::warp, kPatient),
            point(256, 16, TileIo::warp, kPatient), point(256, 20, TileIo::warp, kPatient),
            point(512, 8, TileIo::warp, kPatient)>(v);
  // The settle time and the nap, at the tuned shape.
  add_sweep<point(128, 32, TileIo::warp, BackOff{1000, 640, 640, 0}),
            point(128, 32, TileIo::warp, BackOff{2000, 640, 640, 0}),
            point(128, 32, TileIo::warp, BackOff{4000, 640, 640, 0}),
            point(128, 32, TileIo::warp, BackOff{6000, 640, 640, 0}),
            point(128, 32, TileIo::warp, BackOff{3000, 160, 160, 0}),
            point(128, 32, TileIo::warp, BackOff{3000, 2000, 2000, 0})>(v);
  return v;
}

}  // namespace

std::string sweep_suffix(TileIo io, BackOff wait) {
  std::string s = io == TileIo::warp ? "-warp-io" : "-block-io";
  if (wait.settle_ns != 0) s += "-settle" + std::to_string(wait.settle_ns);
  if (wait.first_nap_ns == 0) return s + "-spin";
  s += "-nap" + std::to_string(wait.first_nap_ns);
  if (wait.max_nap_ns != wait.first_nap_ns) s += "to" + std::to_string(wait.max_nap_ns);
  return s;
}

const Chapter& chapter() {
  static const Chapter c{"10", "decoupled_lookback", "Decoupled look-back", Where::device, variants()};
  return c;
}

}  // namespace scan::ch10
