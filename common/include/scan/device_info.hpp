/// \file
/// \brief What the GPU is, and how fast it can copy.
#pragma once

#include <scan/timing.hpp>

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

/// One line: name, SMs, L2, memory, peak bandwidth, CUDA runtime and driver.
std::string describe(const DeviceInfo& info);

/// "13.0" for 13000.
std::string cuda_version_string(int version);

/// Times a copy of `bytes` bytes by a plain grid-stride kernel with 16-byte
/// loads: what a hand-written kernel that only moves the data can reach.
/// (The cudaMemcpy ceiling is Harness::time_copy(), on the scan's own buffers.)
/// Effective bandwidth counts the bytes twice (read and write), as a scan's
/// does, so the two are directly comparable.
TimingStats measure_copy_kernel(std::size_t bytes, int warmup, int reps,
                                cudaStream_t stream = nullptr);

}  // namespace scan
