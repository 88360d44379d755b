#include "segmented.cuh"

#include <algorithm>

namespace scan::ch12 {
namespace {

__global__ void mark_offsets(const std::int64_t* offsets, std::int64_t count, std::int64_t n, std::uint8_t* heads) {
  const std::int64_t k = global_thread_index();
  if (k == 0) heads[0] = 1;
  if (k < count && offsets[k] >= 0 && offsets[k] < n) heads[offsets[k]] = 1;
}

std::vector<Variant> variants() {
  using Bulk = BulkRecipe;
  using PerTile = PerTileRecipe;
  constexpr Construction kTransformed = Construction::transformed;
  return {
      gpu_variant<SegmentedScan<PerTile{.construction = kTransformed}>>(),
      gpu_variant<SegmentedScan<PerTile{}>>(),
      gpu_variant<SegmentedScan<PerTile{.marks = Marks::keys}>>(),
      // Chapter 11's bulk kernel with (value, flag) pairs and the grouped walk.
      gpu_variant<BulkSegmentedScan<Bulk{}>>(),
      gpu_variant<BulkSegmentedScan<Bulk{.marks = Marks::keys, .threads = kByKeyThreads, .items = kByKeyItems,
                                         .stages = kByKeyStages, .refill_in_look_back = kByKeyRefill}>>(),
      // Sweep points: spinning instead of settling, another tile shape.
      gpu_variant<SegmentedScan<PerTile{.construction = kTransformed, .wait = ch10::kSpin}>, SweepCombos>(),
      gpu_variant<SegmentedScan<PerTile{.wait = ch10::kSpin}>, SweepCombos>(),
      gpu_variant<SegmentedScan<PerTile{.threads = 256, .items = 16}>, SweepCombos>(),
      // The bulk kernel's knobs, one at a time: the other construction;
      // the head flags in shared-memory stages beside the values, also
      // with chapter 11's four groups per trip and with one; one and four
      // groups per trip with the flags through L2; four stages; the ring
      // refilled after each store (chapter 11's bulk loop); other tile
      // shapes: five vectors per thread; chapter 11's deterministic shape
      // (the default until the H200 run) with four stages and with three,
      // and half-height tiles of twice the threads, each refilled after the
      // store as they were tuned.
      gpu_variant<BulkSegmentedScan<Bulk{.construction = kTransformed}>, SweepCombos>(),
      gpu_variant<BulkSegmentedScan<Bulk{.flags = FlagPath::stage}>, SweepCombos>(),
      gpu_variant<BulkSegmentedScan<Bulk{.flags = FlagPath::stage, .groups = 4}>, SweepCombos>(),
      gpu_variant<BulkSegmentedScan<Bulk{.flags = FlagPath::stage, .groups = 1}>, SweepCombos>(),
      gpu_variant<BulkSegmentedScan<Bulk{.groups = 1}>, SweepCombos>(),
      gpu_variant<BulkSegmentedScan<Bulk{.groups = 4}>, SweepCombos>(),
      gpu_variant<BulkSegmentedScan<Bulk{.stages = 4}>, SweepCombos>(),
      gpu_variant<BulkSegmentedScan<Bulk{.refill_in_look_back = false}>, SweepCombos>(),
      gpu_variant<BulkSegmentedScan<Bulk{.items = 20}>, SweepCombos>(),
      gpu_variant<BulkSegmentedScan<Bulk{.threads = 256, .items = 16, .stages = 4, .refill_in_look_back = false}>,
                  SweepCombos>(),
      gpu_variant<BulkSegmentedScan<Bulk{.threads = 256, .items = 16, .stages = 3, .refill_in_look_back = false}>,
                  SweepCombos>(),
      gpu_variant<BulkSegmentedScan<Bulk{.threads = 512, .items = 8, .stages = 4, .refill_in_look_back = false}>,
                  SweepCombos>(),
  };
}

}  // namespace

void offsets_to_heads(const std::int64_t* offsets, std::int64_t count, std::int64_t n, std::uint8_t* heads,
                      cudaStream_t stream) {
  if (n <= 0) return;
  SCAN_CUDA(cudaMemsetAsync(heads, 0, static_cast<std::size_t>(n), stream));
  mark_offsets<<<grid_size(std::max<std::int64_t>(count, 1), 256), 256, 0, stream>>>(offsets, count, n, heads);
  SCAN_CUDA_LAUNCH();
}

const Chapter& chapter() {
  static const Chapter c{"12", "segmented", "Segmented scan", Where::device, variants(), ch11::kNeedsHopper};
  return c;
}

}  // namespace scan::ch12
