#include <scan/device.cuh>

#include <limits>
#include <string>

namespace scan {

unsigned grid_size(std::int64_t count, int threads) {
  const std::int64_t blocks = ceil_div<std::int64_t>(count, threads);
  // gridDim.x may reach 2^31 - 1 on every GPU CUDA 13 supports.
  if (blocks > std::numeric_limits<int>::max()) {
    throw UsageError("n = " + std::to_string(count) + " needs more than 2^31 - 1 blocks of " +
                     std::to_string(threads) + " threads");
  }
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks);
}

}  // namespace scan
