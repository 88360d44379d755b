// Which code the GPU really runs. Chapters 00 to 10 are built for the
// architectures the user asked for; a GPU with no machine code (SASS) of its
// own in the program runs them from PTX, compiled by the driver when the
// program starts (JIT). This test file is built with the same list as those
// chapters, so the kernels it instantiates from their headers carry the same
// code as the chapters' own.
#include "decoupled_lookback.cuh"
#include "hierarchical.cuh"
#include "naive_global.cuh"
#include "support.hpp"
#include "warp_shuffle.cuh"

#include <scan/device_info.hpp>
#include <scan/error.hpp>
#include <scan/ops.hpp>

#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using namespace scan;

#ifndef SCAN_BUILT_ARCHITECTURES
#error "tests/CMakeLists.txt passes the resolved architecture list as SCAN_BUILT_ARCHITECTURES"
#endif

namespace {

/// The code a kernel of this build should run from on a GPU of
/// architecture `sm`, given the build's list ("75-real,80-real,90"): machine
/// code built for this GPU's major version at or below its minor one, where
/// the list has it (the driver prefers machine code), else the driver's
/// compilation of the newest PTX at or below the GPU.
struct ExpectedCode {
  int binary = 0;  ///< cudaFuncAttributes::binaryVersion
  int ptx = 0;     ///< cudaFuncAttributes::ptxVersion
};

ExpectedCode expected_code(const std::string& list, int sm) {
  int machine = 0, ptx = 0;
  std::istringstream entries(list);
  for (std::string entry; std::getline(entries, entry, ',');) {
    const int number = std::stoi(entry);  // "86-real" -> 86, "90a" -> 90
    const bool has_machine_code = entry.find("-virtual") == std::string::npos;
    const bool has_ptx = entry.find("-real") == std::string::npos;
    if (has_machine_code && number / 10 == sm / 10 && number <= sm) machine = std::max(machine, number);
    if (has_ptx && number <= sm) ptx = std::max(ptx, number);
  }
  if (machine > 0) return {machine, machine};
  return {sm, ptx};
}

}  // namespace

TEST_CASE("chapters 00 to 10 run from the code built for this GPU, or from its PTX", "[gpu][arch]") {
  test::require_gpu();
  const DeviceInfo device = query_device();
  const int sm = device.cc_major * 10 + device.cc_minor;
  const std::vector<std::pair<std::string, const void*>> kernels = {
      {"ch02::quadratic_scan_kernel", reinterpret_cast<const void*>(&ch02::quadratic_scan_kernel<int, Add>)},
      {"ch06::warp_shuffle_tiles", reinterpret_cast<const void*>(&ch06::warp_shuffle_tiles<int, Add>)},
      {"ch08::reduce_tiles", reinterpret_cast<const void*>(&ch08::reduce_tiles<int, Add>)},
      {"ch09::chained_scan", reinterpret_cast<const void*>(&ch09::chained_scan<128, 8, int, Add>)},
  };
  const ExpectedCode expected = expected_code(SCAN_BUILT_ARCHITECTURES, sm);
  // SCAN_EXPECT_PTX=80 says it once more from outside, for a run that must
  // go through the driver's compiler (the compute_80 build in docs/results/).
  const char* expected_ptx = std::getenv("SCAN_EXPECT_PTX");
  for (const auto& [name, kernel] : kernels) {
    cudaFuncAttributes attributes{};
    SCAN_CUDA(cudaFuncGetAttributes(&attributes, kernel));
    INFO(name << ": machine code for sm_" << attributes.binaryVersion << ", from PTX for compute_"
              << attributes.ptxVersion << ", on " << device.name << " (sm_" << sm << "); built for "
              << SCAN_BUILT_ARCHITECTURES);
    CHECK(attributes.binaryVersion == expected.binary);
    CHECK(attributes.ptxVersion == expected.ptx);
    if (expected_ptx != nullptr) {
      CHECK(attributes.ptxVersion == std::atoi(expected_ptx));
      CHECK(attributes.binaryVersion == sm);  // compiled by the driver for exactly this GPU
    }
  }
}
