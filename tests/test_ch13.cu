// Chapter 13's applications against their CPU references: predicates that
// keep nothing, everything, every other element or a random fraction; keys
// with every bit equal and random keys; recurrences with |a| < 1, a = 1 and
// a mix, in one sequence and in rows; sizes around the tile.
#include "applications.cuh"
#include "apps.hpp"
#include "oracles.hpp"
#include "support.hpp"

#include <scan/device_buffer.hpp>
#include <scan/generate.hpp>

#include <catch2/catch_test_macros.hpp>

#include <cstdint>
#include <vector>

using namespace scan;
using namespace scan::ch13;

namespace {

const std::vector<std::int64_t> kSizes = {1,         31,        kTile - 1, kTile, kTile + 1, 2 * kTile + 1,
                                          100003,    (1 << 20) + 7};

std::vector<std::uint32_t> random_words(std::int64_t n, std::uint64_t seed) {
  std::vector<std::uint32_t> words(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) words[i] = static_cast<std::uint32_t>(random_bits(seed, i) >> 32);
  return words;
}

}  // namespace

TEST_CASE("stream compaction keeps what the predicate keeps, in order", "[gpu][ch13]") {
  test::require_gpu();
  for (std::int64_t n : kSizes) {
    std::vector<std::uint32_t> random = random_words(n, 3 + n);
    std::vector<std::uint32_t> alternating(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) alternating[i] = i % 2 == 0 ? 7u : 0xF0000000u + static_cast<std::uint32_t>(i);
    std::vector<std::uint32_t> below_max = random;
    for (auto& w : below_max) w = std::min(w, 0xFFFFFFFEu);
    const struct {
      const char* name;
      const std::vector<std::uint32_t>& in;
      std::uint32_t threshold;
    } cases[] = {{"none", random, 0u},
                 {"all", below_max, 0xFFFFFFFFu},
                 {"every other", alternating, 0x80000000u},
                 {"30%", random, static_cast<std::uint32_t>(0.3 * 4294967296.0)}};
    for (const auto& c : cases) {
      INFO("n = " << n << ", keep " << c.name);
      const KeepBelow keep{c.threshold};
      const std::vector<std::uint32_t> expected = compact_reference(c.in, keep);
      DeviceBuffer<std::uint32_t> in(c.in), out(c.in.size());
      DeviceBuffer<unsigned long long> kept(1);
      DeviceBuffer<std::byte> scratch(scatter_scratch_bytes(n));
      SCAN_CUDA(cudaMemset(out.data(), 0xA5, out.bytes()));
      select_if(in.data(), out.data(), n, keep, kept.data(), scratch.data(), nullptr);
      unsigned long long count = 0;
      SCAN_CUDA(cudaMemcpy(&count, kept.data(), sizeof count, cudaMemcpyDeviceToHost));
      REQUIRE(count == expected.size());
      std::vector<std::uint32_t> got = out.to_host();
      got.resize(expected.size());
      CHECK(first_difference(got, expected) == "");
    }
  }
}

TEST_CASE("the split is stable and the partition keeps CUB's order", "[gpu][ch13]") {
  test::require_gpu();
  for (std::int64_t n : kSizes) {
    for (int keys : {0, 1, 2}) {  // all zeros, all ones, random
      std::vector<std::uint32_t> in =
          keys == 2 ? random_words(n, 11 + n) : std::vector<std::uint32_t>(static_cast<std::size_t>(n), keys ? ~0u : 0u);
      for (int bit : {0, 17, 31}) {
        INFO("n = " << n << ", keys " << (keys == 2 ? "random" : keys ? "all ones" : "all zeros") << ", bit " << bit);
        DeviceBuffer<std::uint32_t> d_in(in), d_out(in.size());
        DeviceBuffer<unsigned long long> zeros(1);
        DeviceBuffer<std::byte> scratch(scatter_scratch_bytes(n));
        split_by_bit(d_in.data(), d_out.data(), n, bit, zeros.data(), false, scratch.data(), nullptr);
        CHECK(first_difference(d_out.to_host(), split_reference(in, BitIsZero{bit}, false)) == "");
        SCAN_CUDA(cudaMemset(d_out.data(), 0xA5, d_out.bytes()));
        partition_by_bit(d_in.data(), d_out.data(), n, bit, zeros.data(), scratch.data(), nullptr);
        CHECK(first_difference(d_out.to_host(), split_reference(in, BitIsZero{bit}, true)) == "");
      }
    }
  }
}

TEST_CASE("the radix sort from splits sorts", "[gpu][ch13]") {
  test::require_gpu();
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{33}, std::int64_t{kTile + 1}, std::int64_t{100003}}) {
    std::vector<std::uint32_t> few(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) few[i] = static_cast<std::uint32_t>(random_bits(5, i) % 7);
    for (const auto& keys : {random_words(n, 21), few, std::vector<std::uint32_t>(static_cast<std::size_t>(n), 42u)}) {
      INFO("n = " << n);
      DeviceBuffer<std::uint32_t> d_keys(keys);
      DeviceBuffer<std::byte> scratch(sort_scratch_bytes(n));
      radix_sort(d_keys.data(), n, scratch.data(), nullptr);
      CHECK(first_difference(d_keys.to_host(), sort_reference(keys)) == "");
    }
  }
}

TEST_CASE("linear recurrences within the bound the text derives", "[gpu][ch13]") {
  test::require_gpu();
  for (Slopes slopes : {Slopes::decaying, Slopes::one, Slopes::mixed}) {
    for (std::int64_t n : {std::int64_t{1}, std::int64_t{kTile - 1}, std::int64_t{kTile + 1},
                           std::int64_t{65536 + 3}, std::int64_t{1} << 20}) {
      for (std::int64_t row : {std::int64_t{0}, std::int64_t{kTile}, std::int64_t{2 * kTile}}) {
        if (row > 0 && n % row != 0 && n > row) continue;
        INFO("slopes " << static_cast<int>(slopes) << ", n = " << n << ", row " << row);
        const auto a = recurrence_slopes(n, slopes, 8);
        const auto b = recurrence_offsets(n, slopes, 8);
        const auto reference = recurrence_reference(a, b, row, [row](std::int64_t i) { return recurrence_depth(i, row); });
        DeviceBuffer<float> d_a(a), d_b(b), d_x(a.size());
        DeviceBuffer<std::byte> scratch(recurrence_scratch_bytes(n));
        SCAN_CUDA(cudaMemset(d_x.data(), 0xFF, d_x.bytes()));
        linear_recurrence(d_a.data(), d_b.data(), d_x.data(), n, row, scratch.data(), nullptr);
        CHECK(judge_recurrence(d_x.to_host(), reference) == "");
      }
    }
  }
}

TEST_CASE("the recurrence bound accepts float loops and catches a wrong element", "[cpu][ch13]") {
  const std::int64_t n = std::int64_t{1} << 18;
  for (Slopes slopes : {Slopes::decaying, Slopes::one, Slopes::mixed}) {
    INFO("slopes " << static_cast<int>(slopes));
    const auto a = recurrence_slopes(n, slopes, 4);
    const auto b = recurrence_offsets(n, slopes, 4);
    const auto reference = recurrence_reference(a, b, 0, [](std::int64_t i) { return recurrence_depth(i, 0); });
    std::vector<float> x(a.size());
    float running = 0;
    for (std::int64_t i = 0; i < n; ++i) x[i] = running = a[i] * running + b[i];
    CHECK(judge_recurrence(x, reference) == "");  // a correct float loop passes
    // b_k left out of x from k on (and decaying through the later slopes).
    std::int64_t k = n / 2;
    while (std::fabs(b[k]) < 0.25f) ++k;  // an element worth seeing
    std::vector<float> dropped = x;
    double carried = b[k];
    for (std::int64_t i = k; i < n && std::fabs(carried) > 1e-30; ++i) {
      dropped[i] = static_cast<float>(dropped[i] - carried);
      if (i + 1 < n) carried *= a[i + 1];
    }
    CHECK(judge_recurrence(dropped, reference) != "");
  }
}
