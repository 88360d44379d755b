// One case of a grader's correctness child, run so that the student's code
// can fail it but not take the rest of the suite down with it.
#pragma once

#include "grader.hpp"

#include <scan/error.hpp>

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <fstream>
#include <string>
#include <vector>

namespace kit {

/// Runs `body` (which returns "" or what was wrong) as one case of `log`.
/// An exception fails the case. A CUDA error after which the device no
/// longer synchronizes (a sticky error: the context is gone) aborts the
/// suite: returns false, and no later case may run.
template <class Body>
bool run_case(CaseLog& log, const std::string& description, bool on_device, Body&& body) {
  log.begin(description);
  try {
    const std::string problem = body();
    if (problem.empty()) {
      log.pass();
    } else {
      log.fail(problem);
    }
  } catch (const scan::CudaError& e) {
    if (on_device && cudaDeviceSynchronize() != cudaSuccess) {
      log.abort(e.what());
      return false;
    }
    (void)cudaGetLastError();
    log.fail(e.what());
  } catch (const std::exception& e) {
    log.fail(e.what());
  }
  return true;
}

/// The cases compute-sanitizer watches in a subject's sanitize(): `run(n)`
/// at a small `first` size, one element past a tile, three tiles and five
/// past, and `large_n` when it is above 0, each logged as the case "ITEM,
/// n = N". A case passes when `run` returns and the device synchronizes;
/// what it throws fails it (and is printed, for the sanitizer's log).
template <class Run>
void sanitize_cases(CaseLog& log, const std::string& item, std::int64_t first, std::int64_t tile,
                    std::int64_t large_n, Run&& run) {
  std::vector<std::int64_t> sizes = {first, tile + 1, 3 * tile + 5};
  if (large_n > 0) sizes.push_back(large_n);
  for (const std::int64_t n : sizes) {
    log.begin(item + ", n = " + std::to_string(n));
    try {
      run(n);
      SCAN_CUDA(cudaDeviceSynchronize());
      log.pass();
    } catch (const std::exception& e) {
      log.fail(e.what());
      std::fprintf(stderr, "grade: %s\n", e.what());
    }
  }
  log.done();
}

/// Why a case of `host_bytes` of host memory and `device_bytes` of GPU
/// memory cannot run on this machine now ("" if it can).
inline std::string memory_shortfall(std::int64_t host_bytes, std::int64_t device_bytes) {
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  std::int64_t available_kib = -1;
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::int64_t value = 0;
  std::string unit;
  while (meminfo >> key >> value >> unit) {
    if (key == "MemAvailable:") available_kib = value;
  }
  if (available_kib >= 0 && available_kib * 1024 < host_bytes) {
    return "it needs " + std::to_string(static_cast<int>(host_bytes / kGiB + 0.5)) + " GiB of host memory, and " +
           std::to_string(static_cast<int>(available_kib * 1024 / kGiB)) + " GiB are available";
  }
  if (device_bytes > 0) {
    std::size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) return "cudaMemGetInfo failed";
    if (static_cast<std::int64_t>(free_bytes) < device_bytes) {
      return "it needs " + std::to_string(static_cast<int>(device_bytes / kGiB + 0.5)) + " GiB of GPU memory, and " +
             std::to_string(static_cast<int>(free_bytes / kGiB)) + " GiB are free";
    }
  }
  return "";
}

}  // namespace kit
