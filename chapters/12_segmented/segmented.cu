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
  constexpr BackOff kSpin = ch10::kSpin;
  return {
      gpu_variant<SegmentedScan<Construction::transformed, Marks::heads>>(),
      gpu_variant<SegmentedScan<Construction::direct, Marks::heads>>(),
      gpu_variant<SegmentedScan<Construction::direct, Marks::keys>>(),
      // Chapter 11's bulk kernel with (value, flag) pairs and the grouped walk.
      gpu_variant<BulkSegmentedScan<Construction::direct, Marks::heads>>(),
      gpu_variant<BulkSegmentedScan<Construction::direct, Marks::keys>>(),
      // Sweep points: spinning instead of settling, another tile shape.
      gpu_variant<SegmentedScan<Construction::transformed, Marks::heads, kSpin>, SweepCombos>(),
      gpu_variant<SegmentedScan<Construction::direct, Marks::heads, kSpin>, SweepCombos>(),
      gpu_variant<SegmentedScan<Construction::direct, Marks::heads, ch10::kSettle, 256, 16>, SweepCombos>(),
      // The bulk kernel's knobs: the other construction; a shallower ring
      // with three blocks per SM instead of two; tiles of 3072 elements, so
      // that four stages with their flags (60 KiB) still let three blocks
      // share an SM; the same 80 KiB with twice the threads; smaller tiles
      // in a deeper ring; one group per trip; the flags through L2.
      gpu_variant<BulkSegmentedScan<Construction::transformed, Marks::heads>, SweepCombos>(),
      gpu_variant<BulkSegmentedScan<Construction::direct, Marks::heads, FlagPath::stage, 256, 16, 3>, SweepCombos>(),
      gpu_variant<BulkSegmentedScan<Construction::direct, Marks::heads, FlagPath::stage, 192, 16, 4>, SweepCombos>(),
      gpu_variant<BulkSegmentedScan<Construction::direct, Marks::heads, FlagPath::stage, 512, 8, 4>, SweepCombos>(),
      gpu_variant<BulkSegmentedScan<Construction::direct, Marks::heads, FlagPath::stage, 256, 8, 6>, SweepCombos>(),
      gpu_variant<BulkSegmentedScan<Construction::direct, Marks::heads, FlagPath::stage, kBulkThreads, kBulkItems,
                                    kBulkStages, 1>,
                  SweepCombos>(),
      // The flags through L2 instead of shared memory: chapter 11's 64 KiB
      // per block, so three blocks of the default shape fit an SM.
      gpu_variant<BulkSegmentedScan<Construction::direct, Marks::heads, FlagPath::l2>, SweepCombos>(),
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
  static const Chapter c{"12", "segmented", "Segmented scan", Where::device, variants()};
  return c;
}

}  // namespace scan::ch12
