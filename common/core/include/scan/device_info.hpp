/// \file
/// \brief What the GPU is, and how fast it can copy.
#pragma once

#include <cstddef>
#include <string>

namespace scan {

/// The facts every published number is printed with.
struct DeviceInfo {
  int ordinal = 0;                  ///< CUDA device number
  std::string name;                 ///< "NVIDIA H100 80GB HBM3"
  int cc_major = 0;                 ///< compute capability, major
  int cc_minor = 0;                 ///< compute capability, minor
  int sm_count = 0;                 ///< streaming multiprocessors
  std::size_t l2_bytes = 0;         ///< L2 cache size
  std::size_t total_bytes = 0;      ///< device memory
  std::size_t free_bytes = 0;       ///< free device memory when queried
  double peak_gbps = 0;             ///< theoretical bandwidth from memory clock and bus width
  int runtime_version = 0;          ///< CUDA runtime, e.g. 13000
  int driver_api_version = 0;       ///< newest CUDA the driver supports, e.g. 13000
  std::string driver_release;       ///< kernel driver release ("580.159.04") when readable
};

/// The current device's facts. Throws CudaError if no usable device exists;
/// the message then carries the runtime's own words (for example
/// "cudaErrorNoDevice (no CUDA-capable device is detected)").
DeviceInfo query_device();

/// Throws CudaError unless a usable CUDA device is present.
void require_device();

/// The oldest GPU architecture a program's kernels need, and why.
///
/// Chapters 00 to 10 run on every GPU the build supports (sm_75 and newer
/// with CUDA 13); chapters 11 to 14 use Hopper's bulk copies and mbarriers,
/// which an older GPU does not have. A program checks its need before any
/// kernel runs, so an older GPU gets one clear line instead of a launch
/// failure deep inside a kernel.
struct ArchitectureNeed {
  int sm = 0;            ///< oldest architecture as major * 10 + minor (90 for sm_90); 0: any
  std::string gpu;       ///< the GPU family, for the message: "a Hopper GPU"
  std::string features;  ///< what the code uses that older GPUs lack: "bulk copies and mbarriers"
  std::string instead;   ///< what does run on an older GPU: "Chapters 00 to 10 and 15 run here."
};

/// The architecture the checks below see: the device's compute capability as
/// major * 10 + minor, unless the environment variable SCAN_PRETEND_SM holds
/// a smaller one (a test hook: `SCAN_PRETEND_SM=75` on an H100 makes every
/// check answer as on a T4; the kernels themselves still run as built).
int checked_sm(const DeviceInfo& info);

/// Throws UnsupportedGpu if the device is older than `need`, with one line
/// such as "ch11_copy_ceiling needs a Hopper GPU (sm_90 or newer: bulk
/// copies and mbarriers); this is Tesla T4 (sm_75). Chapters 00 to 10 run
/// here." Does nothing when `need.sm` is 0.
void require_architecture(const std::string& program, const ArchitectureNeed& need, const DeviceInfo& info);

/// Throws UnsupportedGpu if one block of a kernel cannot have
/// `shared_bytes` of shared memory on the current device (the opt-in limit,
/// cudaDevAttrMaxSharedMemoryPerBlockOptin: 227 KiB on an H100, 99 KiB on
/// an RTX 4090), naming the device and both sizes.
void require_shared_memory(std::size_t shared_bytes);

/// One line: name, SMs, L2, memory, peak bandwidth, CUDA runtime and driver.
std::string describe(const DeviceInfo& info);

/// "13.0" for 13000.
std::string cuda_version_string(int version);

}  // namespace scan
