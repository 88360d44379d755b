#include "double_buffer.cuh"

namespace scan::ch04 {

const Chapter& chapter() {
  static const Chapter c{"04", "double_buffer", "Double-buffered Kogge-Stone", Where::device,
                         {gpu_variant<ScanByTiles<KoggeStoneDoubleBuffered>>()}};
  return c;
}

}  // namespace scan::ch04
