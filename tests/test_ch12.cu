// Chapter 12 beyond the generic suite: segments given as offsets, and the
// worked example of the reading.
#include "segmented.cuh"
#include "support.hpp"

#include <scan/device_buffer.hpp>
#include <scan/generate.hpp>
#include <scan/harness.hpp>
#include <scan/verify.hpp>

#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

using namespace scan;

TEST_CASE("segment offsets become head flags", "[gpu][ch12]") {
  test::require_gpu();
  const std::int64_t n = 100003;
  // Sorted offsets with repeats (empty segments) and one past the end.
  std::vector<std::int64_t> offsets = {0, 0, 5, 5, 6, 4095, 4096, 4097, n - 1, n};
  for (std::uint64_t k = 0; k < 500; ++k) offsets.push_back(static_cast<std::int64_t>(random_bits(9, k) % n));
  std::sort(offsets.begin(), offsets.end());
  std::vector<std::uint8_t> expected(static_cast<std::size_t>(n), 0);
  expected[0] = 1;
  for (std::int64_t o : offsets) {
    if (o < n) expected[static_cast<std::size_t>(o)] = 1;
  }
  DeviceBuffer<std::int64_t> d_offsets(offsets);
  DeviceBuffer<std::uint8_t> d_heads(static_cast<std::size_t>(n));
  SCAN_CUDA(cudaMemset(d_heads.data(), 0xA5, d_heads.bytes()));
  ch12::offsets_to_heads(d_offsets.data(), static_cast<std::int64_t>(offsets.size()), n, d_heads.data(), nullptr);
  CHECK(d_heads.to_host() == expected);

  // And the scan over those segments is right.
  const Variant* direct = ch12::chapter().find("direct");
  REQUIRE(direct != nullptr);
  Harness<std::int32_t> harness(Where::device, generate_input<std::int32_t>(n, 4), expected);
  const auto& out = harness.run_once(*direct, OpId::add, Kind::exclusive, 0, nullptr);
  CHECK(verify_scan(harness.input(), out, Kind::exclusive, Add{}, harness.restarts(0)).describe() == "");
}

TEST_CASE("the reading's worked example of a segmented scan", "[gpu][ch12]") {
  test::require_gpu();
  // Seed 004, section 1.3.2: [[3 1] [7 0 4] [1 6] [3]].
  const std::vector<std::int32_t> values = {3, 1, 7, 0, 4, 1, 6, 3};
  const std::vector<std::uint8_t> heads = {1, 0, 1, 0, 0, 1, 0, 1};
  for (const char* name : {"transformed", "direct", "by-key"}) {
    const Variant* v = ch12::chapter().find(name);
    REQUIRE(v != nullptr);
    Harness<std::int32_t> harness(Where::device, values, heads);
    CHECK(harness.run_once(*v, OpId::add, Kind::inclusive, 0, nullptr) ==
          std::vector<std::int32_t>{3, 4, 7, 7, 11, 1, 7, 3});
    CHECK(harness.run_once(*v, OpId::add, Kind::exclusive, 0, nullptr) ==
          std::vector<std::int32_t>{0, 3, 0, 7, 7, 0, 1, 0});
  }
}
