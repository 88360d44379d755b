#include "hierarchical.cuh"

namespace scan::ch08 {

int fixed_grid_blocks() {
  // Occupancy of the float instantiation, counted once per process. 8-byte
  // types use more registers and may fit fewer blocks; the extra blocks then
  // run in a second wave, which costs some balance but never correctness:
  // blocks of the fixed grid never wait for one another.
  static const int blocks = resident_blocks(scan_chunks<float, Add>, kThreads);
  return blocks;
}

const Chapter& chapter() {
  static const Chapter c{"08", "hierarchical", "Hierarchical scans of any length", Where::device,
                         {gpu_variant<ScanThenPropagate>(), gpu_variant<ReduceThenScan>(),
                          gpu_variant<FixedGrid>()}};
  return c;
}

}  // namespace scan::ch08
