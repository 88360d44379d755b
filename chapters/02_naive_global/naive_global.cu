#include "naive_global.cuh"

namespace scan::ch02 {

std::vector<std::string> kogge_stone_labels(std::int64_t tile) {
  std::vector<std::string> labels;
  for (std::int64_t offset = 1; offset < tile; offset *= 2) {
    labels.push_back("offset " + std::to_string(offset));
  }
  return labels;
}

const Chapter& chapter() {
  static const Chapter c{"02", "naive_global", "Naive scans in global memory", Where::device,
                         {gpu_variant<Quadratic>(), gpu_variant<MultiLaunchKoggeStone>(),
                          gpu_variant<InBlockGlobal>()}};
  return c;
}

}  // namespace scan::ch02
