#include "hierarchical.cuh"

#include <mutex>

namespace scan::ch08 {

int fixed_grid_blocks() {
  static int blocks = 0;
  static std::once_flag once;
  std::call_once(once, [] {
    int device = 0, sms = 0, per_sm = 0;
    SCAN_CUDA(cudaGetDevice(&device));
    SCAN_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    // Occupancy of the float instantiation. 8-byte types use more registers
    // and may fit fewer blocks; the extra blocks then run in a second wave,
    // which costs some balance but never correctness: blocks of the fixed
    // grid never wait for one another.
    SCAN_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, scan_chunks<float, Add>, kThreads, 0));
    blocks = sms * (per_sm > 0 ? per_sm : 1);
  });
  return blocks;
}

const Chapter& chapter() {
  static const Chapter c{"08", "hierarchical", "Hierarchical scans of any length", Where::device,
                         {gpu_variant<ScanThenPropagate>(), gpu_variant<ReduceThenScan>(),
                          gpu_variant<FixedGrid>()}};
  return c;
}

}  // namespace scan::ch08
