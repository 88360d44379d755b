#include "warp_shuffle.cuh"

#include <cub/block/block_scan.cuh>

namespace scan::ch06 {
namespace {

// [cub block scan]
/// The same tile kernel with cub::BlockScan in place of our block scan.
template <int Threads, class T, class Op>
__global__ void cub_block_scan_tiles(const T* in, T* out, std::int64_t n, Kind kind, T* tile_totals, Op op) {
  using BlockScan = cub::BlockScan<T, Threads>;
  __shared__ typename BlockScan::TempStorage storage;
  const std::int64_t i = global_thread_index();
  const T x = i < n ? in[i] : Op::template identity<T>();
  T y, tile_total;
  if (kind == Kind::inclusive) {
    BlockScan(storage).InclusiveScan(x, y, op, tile_total);
  } else {
    BlockScan(storage).ExclusiveScan(x, y, Op::template identity<T>(), op, tile_total);
  }
  if (i < n) out[i] = y;
  if (tile_totals != nullptr && threadIdx.x == 0) tile_totals[blockIdx.x] = tile_total;
}
// [cub block scan]

}  // namespace

template <class T, class Op>
void CubBlockScan::run(const ScanRequest<T>& r, Op op) {
  scan_by_tiles(r, op, kThreads, [&](const TileLaunch<T>& t) {
    cub_block_scan_tiles<kThreads><<<tile_count(t.n, kThreads), kThreads, 0, r.stream>>>(
        t.in, t.out, t.n, t.kind, t.tile_totals, op);
    SCAN_CUDA_LAUNCH();
  });
}

std::vector<std::string> step_labels() {
  return {"warp offset 1", "warp offset 2", "warp offset 4", "warp offset 8", "warp offset 16",
          "+ earlier warps"};
}

const Chapter& chapter() {
  static const Chapter c{"06", "warp_shuffle", "Warp shuffles", Where::device,
                         {gpu_variant<ScanByTiles<WarpShuffle>>(), gpu_variant<CubBlockScan>()}};
  return c;
}

}  // namespace scan::ch06
