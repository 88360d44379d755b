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
#include "warp_scan.cuh"

#include <scan/device_info.hpp>
#include <scan/error.hpp>
#include <scan/ops.hpp>

#include <catch2/catch_test_macros.hpp>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

using namespace scan;

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
  // SCAN_EXPECT_PTX=80: the build was asked for compute_80 PTX alone (the
  // JIT run on an H100 in docs/results/), so every kernel must come from it.
  const char* expected_ptx = std::getenv("SCAN_EXPECT_PTX");
  for (const auto& [name, kernel] : kernels) {
    cudaFuncAttributes attributes{};
    SCAN_CUDA(cudaFuncGetAttributes(&attributes, kernel));
    INFO(name << ": machine code for sm_" << attributes.binaryVersion << ", from PTX for compute_"
              << attributes.ptxVersion << ", on " << device.name << " (sm_" << sm << ")");
    // The machine code that runs is of this GPU's generation and no newer
    // (an sm_86 build runs on an sm_89 GPU as it is)...
    CHECK(attributes.binaryVersion / 10 == sm / 10);
    CHECK(attributes.binaryVersion <= sm);
    // ...compiled from PTX no newer than the GPU.
    CHECK(attributes.ptxVersion <= sm);
    if (expected_ptx != nullptr) {
      // Only PTX was shipped: the driver compiled it for exactly this GPU.
      CHECK(attributes.ptxVersion == std::atoi(expected_ptx));
      CHECK(attributes.binaryVersion == sm);
    }
  }
}
