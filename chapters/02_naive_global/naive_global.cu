#include "naive_global.cuh"

namespace scan::ch02 {

const Chapter& chapter() {
  static const Chapter c{"02", "naive_global", "Naive scans in global memory", Where::device,
                         {gpu_variant<Quadratic>(), gpu_variant<MultiLaunchKoggeStone>(),
                          gpu_variant<ScanByTiles<InBlockGlobal>>()}};
  return c;
}

}  // namespace scan::ch02
