// Chapter 13's applications against their CPU references: predicates that
// keep nothing, everything, every other element or a random fraction; keys
// with every bit equal and random keys; recurrences with |a| < 1, a = 1 and
// a mix, in one sequence and in rows; sizes around the tile.
#include "applications.cuh"
#include "program.hpp"
#include "support.hpp"

#include <scan/device_buffer.hpp>
#include <scan/generate.hpp>

#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

using namespace scan;
using namespace scan::ch13;

namespace {

/// Sizes around the tile (the bulk kernels' tiles hold kTile elements too),
/// 3 to 5 tiles (the bulk kernels' ring holds 4), odd sizes, and 2^16 + 3.
/// (Up to 2^20 + 7 every persistent block takes one or two tiles; the
/// compaction and split tests add 2^24 + 3, where each goes round its ring
/// a few times.)
const std::vector<std::int64_t> kSizes = {1,         31,        kTile - 1, kTile,     kTile + 1, 2 * kTile + 1,
                                          3 * kTile, 4 * kTile - 1, 4 * kTile + 1, 5 * kTile + 3, (1 << 16) + 3,
                                          100003,    (1 << 20) + 7};

/// Element offsets of the input and output pointers: both aligned (the
/// bulk kernels load whole tiles by bulk copy), the input one element off
/// (no bulk copies: the threads read every tile), the output one element
/// off (bulk copies in, every run written at odd addresses).
struct Offsets {
  int in;
  int out;
};
const Offsets kOffsets[] = {{0, 0}, {1, 0}, {0, 1}};

std::vector<std::uint32_t> random_words(std::int64_t n, std::uint64_t seed) {
  std::vector<std::uint32_t> words(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) words[i] = static_cast<std::uint32_t>(random_bits(seed, i) >> 32);
  return words;
}

/// n words on the device, `offset` elements into a buffer of n + 1, the
/// rest poisoned.
struct Shifted {
  DeviceBuffer<std::uint32_t> buffer;
  int offset;
  Shifted(std::int64_t n, int offset_) : buffer(static_cast<std::size_t>(n) + 1), offset(offset_) {
    SCAN_CUDA(cudaMemset(buffer.data(), 0xA5, buffer.bytes()));
  }
  Shifted(const std::vector<std::uint32_t>& words, int offset_) : Shifted(static_cast<std::int64_t>(words.size()), offset_) {
    if (!words.empty()) {
      SCAN_CUDA(cudaMemcpy(data(), words.data(), words.size() * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
    }
  }
  std::uint32_t* data() { return buffer.data() + offset; }
  /// The n words (without the spare one).
  std::vector<std::uint32_t> to_host() {
    std::vector<std::uint32_t> all = buffer.to_host();
    return {all.begin() + offset, all.end() - (1 - offset)};
  }
};

}  // namespace

TEST_CASE("stream compaction keeps what the predicate keeps, in order", "[gpu][ch13]") {
  test::require_gpu(ch11::kNeedsHopper);
  std::vector<std::int64_t> sizes = kSizes;
  sizes.push_back((std::int64_t{1} << 24) + 3);  // thousands of tiles: every block goes round its ring
  for (std::int64_t n : sizes) {
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
      const KeepBelow keep{c.threshold};
      const std::vector<std::uint32_t> expected = compact_reference(c.in, keep);
      for (const ScatterKernel kernel : kScatterKernels) {
        for (const Offsets offsets : kOffsets) {
          INFO("n = " << n << ", keep " << c.name << ", " << scatter_kernel_name(kernel) << ", pointers off by "
                      << offsets.in << " (in) and " << offsets.out << " (out)");
          Shifted in(c.in, offsets.in), out(n, offsets.out);
          DeviceBuffer<unsigned long long> kept(1);
          DeviceBuffer<std::byte> scratch(scatter_scratch_bytes(n));
          SCAN_CUDA(cudaMemset(kept.data(), 0xA5, kept.bytes()));
          select_if(in.data(), out.data(), n, keep, kept.data(), scratch.data(), nullptr, kernel);
          unsigned long long count = 0;
          SCAN_CUDA(cudaMemcpy(&count, kept.data(), sizeof count, cudaMemcpyDeviceToHost));
          REQUIRE(count == expected.size());
          std::vector<std::uint32_t> got = out.to_host();
          // Past the kept ones the output holds the poison still: nothing written out of place.
          CHECK(std::all_of(got.begin() + static_cast<std::ptrdiff_t>(expected.size()), got.end(),
                            [](std::uint32_t w) { return w == 0xA5A5A5A5u; }));
          got.resize(expected.size());
          CHECK(first_difference(got, expected) == "");
        }
      }
    }
  }
}

TEST_CASE("the split is stable and the partition keeps CUB's order", "[gpu][ch13]") {
  test::require_gpu(ch11::kNeedsHopper);
  std::vector<std::int64_t> sizes = kSizes;
  const std::int64_t large = (std::int64_t{1} << 24) + 3;  // every block goes round its ring (random keys, bit 17)
  sizes.push_back(large);
  for (std::int64_t n : sizes) {
    for (int keys : {0, 1, 2}) {  // all zeros, all ones, random
      if (n == large && keys != 2) continue;
      std::vector<std::uint32_t> in =
          keys == 2 ? random_words(n, 11 + n) : std::vector<std::uint32_t>(static_cast<std::size_t>(n), keys ? ~0u : 0u);
      for (int bit : {0, 17, 31}) {
        if (n == large && bit != 17) continue;
        const std::vector<std::uint32_t> stable = split_reference(in, BitIsZero{bit}, false);
        const std::vector<std::uint32_t> reversed = split_reference(in, BitIsZero{bit}, true);
        for (const ScatterKernel kernel : kScatterKernels) {
          for (const Offsets offsets : kOffsets) {
            if (keys != 2 && offsets.in + offsets.out != 0) continue;  // the pointers are tried on random keys
            INFO("n = " << n << ", keys " << (keys == 2 ? "random" : keys ? "all ones" : "all zeros") << ", bit "
                        << bit << ", " << scatter_kernel_name(kernel) << ", pointers off by " << offsets.in
                        << " (in) and " << offsets.out << " (out)");
            Shifted d_in(in, offsets.in), d_out(n, offsets.out);
            DeviceBuffer<unsigned long long> zeros(1);
            DeviceBuffer<std::byte> scratch(scatter_scratch_bytes(n));
            split_by_bit(d_in.data(), d_out.data(), n, bit, zeros.data(), false, scratch.data(), nullptr, kernel);
            CHECK(first_difference(d_out.to_host(), stable) == "");
            SCAN_CUDA(cudaMemset(d_out.buffer.data(), 0xA5, d_out.buffer.bytes()));
            SCAN_CUDA(cudaMemset(zeros.data(), 0xA5, zeros.bytes()));
            partition_by_bit(d_in.data(), d_out.data(), n, bit, zeros.data(), scratch.data(), nullptr, kernel);
            CHECK(first_difference(d_out.to_host(), reversed) == "");
            unsigned long long count = 0;
            SCAN_CUDA(cudaMemcpy(&count, zeros.data(), sizeof count, cudaMemcpyDeviceToHost));
            CHECK(count == static_cast<unsigned long long>(std::count_if(
                               in.begin(), in.end(), [bit](std::uint32_t k) { return BitIsZero{bit}(k); })));
          }
        }
      }
    }
  }
}

/// Word i of the large test's input: a bijection of i (an odd multiplier
/// modulo 2^32), so every word is different and about half are below 2^31.
__host__ __device__ std::uint32_t large_word(std::int64_t i) {
  return static_cast<std::uint32_t>(i) * 2654435761u + 12345u;
}

__global__ void fill_large(std::uint32_t* words, std::int64_t n) {
  for (std::int64_t i = global_thread_index(); i < n; i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    words[i] = large_word(i);
  }
}

TEST_CASE("compaction and partition past 2^31 elements", "[gpu][ch13][large]") {
  test::require_gpu(ch11::kNeedsHopper);
  const std::int64_t n = (std::int64_t{1} << 31) + 1;
  std::size_t free_bytes = 0, total_bytes = 0;
  SCAN_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t needed = 2 * static_cast<std::size_t>(n) * sizeof(std::uint32_t) + scatter_scratch_bytes(n);
  if (free_bytes < needed + (std::size_t{1} << 30)) {
    SKIP("needs about " << (needed >> 30) << " GiB of device memory, " << (free_bytes >> 30) << " GiB free");
  }
  DeviceBuffer<std::uint32_t> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
  DeviceBuffer<unsigned long long> count(1);
  DeviceBuffer<std::byte> scratch(scatter_scratch_bytes(n));
  fill_large<<<1024, 256>>>(in.data(), n);
  SCAN_CUDA(cudaDeviceSynchronize());
  const KeepBelow keep{0x80000000u};
  for (const ScatterKernel kernel : kScatterKernels) {
    INFO(scatter_kernel_name(kernel));
    // Compaction: the kept words, in order, then the poison untouched.
    SCAN_CUDA(cudaMemset(out.data(), 0xA5, out.bytes()));
    select_if(in.data(), out.data(), n, keep, count.data(), scratch.data(), nullptr, kernel);
    std::vector<std::uint32_t> got = out.to_host();
    unsigned long long kept = 0;
    SCAN_CUDA(cudaMemcpy(&kept, count.data(), sizeof kept, cudaMemcpyDeviceToHost));
    std::int64_t next = 0, wrong = 0, first_wrong = -1;
    for (std::int64_t i = 0; i < n; ++i) {
      const std::uint32_t w = large_word(i);
      if (keep(w) && got[static_cast<std::size_t>(next++)] != w && wrong++ == 0) first_wrong = next - 1;
    }
    CHECK(kept == static_cast<unsigned long long>(next));
    for (std::int64_t j = next; j < n; ++j) wrong += got[static_cast<std::size_t>(j)] != 0xA5A5A5A5u;
    INFO("first wrong output index " << first_wrong);
    CHECK(wrong == 0);
    // Partition: the bit-31 zeros in order, the ones from the end backwards.
    SCAN_CUDA(cudaMemset(out.data(), 0xA5, out.bytes()));
    partition_by_bit(in.data(), out.data(), n, 31, count.data(), scratch.data(), nullptr, kernel);
    got = out.to_host();
    std::int64_t front = 0, back = n - 1;
    wrong = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const std::uint32_t w = large_word(i);
      wrong += got[static_cast<std::size_t>(BitIsZero{31}(w) ? front++ : back--)] != w;
    }
    CHECK(front == back + 1);
    CHECK(wrong == 0);
    unsigned long long zeros = 0;
    SCAN_CUDA(cudaMemcpy(&zeros, count.data(), sizeof zeros, cudaMemcpyDeviceToHost));
    CHECK(zeros == static_cast<unsigned long long>(front));
  }
}

TEST_CASE("the radix sort from splits sorts", "[gpu][ch13]") {
  test::require_gpu(ch11::kNeedsHopper);
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{33}, std::int64_t{kTile + 1}, std::int64_t{100003}}) {
    std::vector<std::uint32_t> few(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) few[i] = static_cast<std::uint32_t>(random_bits(5, i) % 7);
    for (const auto& keys : {random_words(n, 21), few, std::vector<std::uint32_t>(static_cast<std::size_t>(n), 42u)}) {
      const std::vector<std::uint32_t> sorted = sort_reference(keys);
      for (const ScatterKernel kernel : kScatterKernels) {
        INFO("n = " << n << ", " << scatter_kernel_name(kernel));
        DeviceBuffer<std::uint32_t> d_keys(keys);
        DeviceBuffer<std::byte> scratch(sort_scratch_bytes(n));
        radix_sort(d_keys.data(), n, scratch.data(), nullptr, kernel);
        CHECK(first_difference(d_keys.to_host(), sorted) == "");
      }
    }
  }
}

TEST_CASE("linear recurrences within the bound the text derives", "[gpu][ch13]") {
  test::require_gpu(ch11::kNeedsHopper);
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
