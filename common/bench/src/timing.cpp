#include <scan/timing.hpp>

namespace scan {

TimingStats summarize(std::vector<double> samples_ms) {
  TimingStats stats;
  if (samples_ms.empty()) return stats;
  std::sort(samples_ms.begin(), samples_ms.end());
  const std::size_t count = samples_ms.size();
  stats.min_ms = samples_ms.front();
  stats.max_ms = samples_ms.back();
  stats.median_ms = count % 2 == 1 ? samples_ms[count / 2]
                                   : 0.5 * (samples_ms[count / 2 - 1] + samples_ms[count / 2]);
  return stats;
}

}  // namespace scan
