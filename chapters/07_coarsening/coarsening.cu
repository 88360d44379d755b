#include "coarsening.cuh"

namespace scan::ch07 {

std::vector<std::string> phase_labels() {
  return {"loaded (blocked)", "1: thread scans", "3: + earlier threads"};
}

std::string shape_name(int threads, int items) {
  return std::to_string(threads) + "x" + std::to_string(items);
}

namespace {

/// The sweep of tile shapes (in the arrangement later chapters use): full
/// scans for threads x items in {128, 256, 512} x {4, 8, 12, 16, 24, 32},
/// and the tile kernel alone for a subset, where the tile fits the 48 KiB of
/// static shared memory. Built for int32 and float sums only.
template <bool TileOnly, int Threads, int... Items>
void add_sweep_row(std::vector<Variant>& variants) {
  (variants.push_back(gpu_variant<Coarsened<kBestArrangement, Threads, Items, TileOnly, true>,
                                  SweepCombos>()),
   ...);
}

std::vector<Variant> variants() {
  std::vector<Variant> v = {
      gpu_variant<Coarsened<Arrangement::direct, kThreads, kItems>>(),
      gpu_variant<Coarsened<Arrangement::transposed, kThreads, kItems>>(),
      gpu_variant<Coarsened<Arrangement::vectorized, kThreads, kItems>>(),
      gpu_variant<Coarsened<Arrangement::vector_transposed, kThreads, kItems>>(),
      gpu_variant<Coarsened<kBestArrangement, kThreads, kItems, true>>(),
  };
  add_sweep_row<false, 128, 4, 8, 12, 16, 24, 32>(v);
  add_sweep_row<false, 256, 4, 8, 12, 16, 24, 32>(v);
  add_sweep_row<false, 512, 4, 8, 12, 16>(v);  // 512 x 24 would exceed 48 KiB of shared memory
  add_sweep_row<true, 128, 8, 16, 24>(v);
  add_sweep_row<true, 256, 8, 16, 24>(v);
  add_sweep_row<true, 512, 8, 16>(v);
  return v;
}

}  // namespace

const Chapter& chapter() {
  static const Chapter c{"07", "coarsening", "Thread coarsening", Where::device, variants()};
  return c;
}

}  // namespace scan::ch07
