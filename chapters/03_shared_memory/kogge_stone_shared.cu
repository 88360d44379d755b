#include "kogge_stone_shared.cuh"

namespace scan::ch03 {

std::vector<std::string> step_labels(std::int64_t tile) {
  std::vector<std::string> labels;
  for (std::int64_t offset = 1; offset < tile; offset *= 2) labels.push_back("offset " + std::to_string(offset));
  return labels;
}

const Chapter& chapter() {
  static const Chapter c{"03", "shared_memory", "Kogge-Stone in shared memory", Where::device,
                         {gpu_variant<KoggeStoneShared>()}};
  return c;
}

}  // namespace scan::ch03
