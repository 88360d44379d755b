#include "shared_memory.cuh"

namespace scan::ch03 {

const Chapter& chapter() {
  static const Chapter c{"03", "shared_memory", "Kogge-Stone in shared memory", Where::device,
                         {gpu_variant<ScanByTiles<KoggeStoneShared>>()}};
  return c;
}

}  // namespace scan::ch03
