#include <scan/device_buffer.hpp>
#include <scan/error.hpp>

#include <cstdio>
#include <sstream>
#include <string>

namespace scan {

void check_cuda(cudaError_t status, const char* call, const char* file, int line) {
  if (status == cudaSuccess) return;
  // Clear a non-sticky error so the next call does not report it again.
  (void)cudaGetLastError();
  std::string where = file;
  if (const auto slash = where.find_last_of('/'); slash != std::string::npos) {
    where = where.substr(slash + 1);
  }
  std::ostringstream message;
  message << cudaGetErrorName(status) << " (" << cudaGetErrorString(status) << ") in " << call
          << " at " << where << ":" << line;
  throw CudaError(status, message.str());
}

std::string format_bytes(std::size_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 4) {
    value /= 1024.0;
    ++unit;
  }
  char text[32];
  if (unit == 0) {
    std::snprintf(text, sizeof text, "%zu B", bytes);
  } else {
    std::snprintf(text, sizeof text, value < 10 ? "%.2f %s" : "%.1f %s", value, units[unit]);
  }
  return text;
}

}  // namespace scan
