#include "stream_scan.cuh"

namespace scan::ch09 {

const Chapter& chapter() {
  static const Chapter c{"09", "stream_scan", "StreamScan: one pass, a chain of tiles", Where::device,
                         {gpu_variant<Chained<256, 16>>(), gpu_variant<Chained<256, 4>>(),
                          gpu_variant<Chained<512, 32>>()}};
  return c;
}

}  // namespace scan::ch09
