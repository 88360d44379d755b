#include <scan/device_buffer.hpp>
#include <scan/device_info.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace scan {
namespace {

/// The kernel driver's release, e.g. "580.159.04", read from the Linux
/// driver's proc file ("NVRM version: NVIDIA UNIX ... Kernel Module [for
/// x86_64] 580.159.04 ..."): the first word after "Module" that starts with
/// a digit and holds a dot. Empty where that file does not exist.
std::string read_driver_release() {
  std::ifstream file("/proc/driver/nvidia/version");
  std::string word;
  bool after_module = false;
  while (file >> word) {
    if (word == "Module") after_module = true;
    if (after_module && std::isdigit(static_cast<unsigned char>(word[0])) && word.find('.') != std::string::npos) {
      return word;
    }
  }
  return {};
}

int attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  SCAN_CUDA(cudaDeviceGetAttribute(&value, attr, device));
  return value;
}

}  // namespace

void require_device() {
  int count = 0;
  SCAN_CUDA(cudaGetDeviceCount(&count));
  if (count == 0) throw CudaError(cudaErrorNoDevice, "no CUDA device found (cudaGetDeviceCount returned 0)");
}

DeviceInfo query_device() {
  require_device();
  DeviceInfo info;
  SCAN_CUDA(cudaGetDevice(&info.ordinal));
  cudaDeviceProp props{};
  SCAN_CUDA(cudaGetDeviceProperties(&props, info.ordinal));
  info.name = props.name;
  info.cc_major = props.major;
  info.cc_minor = props.minor;
  info.sm_count = attribute(cudaDevAttrMultiProcessorCount, info.ordinal);
  info.l2_bytes = static_cast<std::size_t>(attribute(cudaDevAttrL2CacheSize, info.ordinal));
  // Theoretical bandwidth: two transfers per clock (double data rate) times
  // the bus width in bytes. The clock attribute is in kHz.
  const double clock_hz = 1e3 * attribute(cudaDevAttrMemoryClockRate, info.ordinal);
  const double bus_bytes = attribute(cudaDevAttrGlobalMemoryBusWidth, info.ordinal) / 8.0;
  info.peak_gbps = 2.0 * clock_hz * bus_bytes / 1e9;
  SCAN_CUDA(cudaMemGetInfo(&info.free_bytes, &info.total_bytes));
  SCAN_CUDA(cudaRuntimeGetVersion(&info.runtime_version));
  SCAN_CUDA(cudaDriverGetVersion(&info.driver_api_version));
  info.driver_release = read_driver_release();
  return info;
}

int checked_sm(const DeviceInfo& info) {
  const int actual = info.cc_major * 10 + info.cc_minor;
  const char* pretend = std::getenv("SCAN_PRETEND_SM");
  if (pretend == nullptr || *pretend == '\0') return actual;
  char* end = nullptr;
  const long value = std::strtol(pretend, &end, 10);
  if (*end != '\0' || value < 10 || value > 1000) {
    throw UsageError(std::string("SCAN_PRETEND_SM must be an architecture such as 75, not '") + pretend + "'");
  }
  // Only ever older: the hook shows what an older GPU's reader sees, it
  // cannot make a GPU claim features it lacks.
  return std::min(actual, static_cast<int>(value));
}

void require_architecture(const std::string& program, const ArchitectureNeed& need, const DeviceInfo& info) {
  const int sm = checked_sm(info);
  if (need.sm == 0 || sm >= need.sm) return;
  const int actual = info.cc_major * 10 + info.cc_minor;
  std::ostringstream line;
  line << program << " needs " << need.gpu << " (sm_" << need.sm << " or newer: " << need.features << "); this is "
       << info.name << " (sm_" << sm << (sm == actual ? "" : ", as SCAN_PRETEND_SM says") << ").";
  if (!need.instead.empty()) line << " " << need.instead;
  throw UnsupportedGpu(line.str());
}

void require_shared_memory(std::size_t shared_bytes) {
  int device = 0, optin = 0;
  SCAN_CUDA(cudaGetDevice(&device));
  SCAN_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (shared_bytes <= static_cast<std::size_t>(optin)) return;
  cudaDeviceProp props{};
  SCAN_CUDA(cudaGetDeviceProperties(&props, device));
  std::ostringstream line;
  line << "a kernel here needs " << format_bytes(shared_bytes) << " of shared memory per block; this is "
       << props.name << " (sm_" << props.major << props.minor << "), which allows " << format_bytes(optin)
       << " per block. The tile shapes of chapters 11 to 14 were tuned for the H100 and H200 (227 KiB).";
  throw UnsupportedGpu(line.str());
}

std::string cuda_version_string(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string describe(const DeviceInfo& info) {
  std::ostringstream text;
  text << info.name << " (sm_" << info.cc_major << info.cc_minor << ", " << info.sm_count
       << " SMs, " << format_bytes(info.l2_bytes) << " L2, " << format_bytes(info.total_bytes)
       << ", peak " << static_cast<long>(info.peak_gbps + 0.5) << " GB/s); CUDA runtime "
       << cuda_version_string(info.runtime_version) << ", driver "
       << (info.driver_release.empty() ? "" : info.driver_release + " ") << "(CUDA "
       << cuda_version_string(info.driver_api_version) << ")";
  return text.str();
}

}  // namespace scan
