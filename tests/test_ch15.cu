// Chapter 15's radix sort against std::stable_sort: every key type, keys
// alone and key-value pairs (whose values show stability), sizes around the
// tile, skewed keys, digit widths 1, 4 and 8, floats with zeros, infinities
// and NaNs, and more than one portion of 2^28 keys. Outputs are poisoned
// before every sort.
#include "radix_sort.hpp"
#include "sort_program.hpp"
#include "support.hpp"

#include <scan/device_buffer.hpp>
#include <scan/device_info.hpp>
#include <scan/generate.hpp>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

using namespace scan;
using namespace scan::ch15;
using Catch::Matchers::ContainsSubstring;

namespace {

/// Sizes around the tiles of this key type's sorts (keys alone, and pairs),
/// a few tiles, odd sizes.
template <class Key>
std::vector<std::int64_t> sizes_around_tiles() {
  std::vector<std::int64_t> sizes = {0, 1, 2, 255, 100003, (1 << 20) + 7};
  for (const std::int64_t tile : {sort_tile_keys<Key, void>(), sort_tile_keys<Key, std::uint32_t>()}) {
    for (const std::int64_t n : {tile - 1, tile, tile + 1, 3 * tile + 5}) sizes.push_back(n);
  }
  return sizes;
}

/// A tile of 32-bit keys alone.
const std::int64_t kTile32 = sort_tile_keys<std::uint32_t, void>();

/// What std::stable_sort makes of keys (and of their indices as values),
/// comparing keys by KeyBits: an independent reference.
template <class Key>
void stable_reference(const std::vector<Key>& keys, std::vector<Key>& sorted, std::vector<std::uint32_t>& order) {
  order.resize(keys.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
    return KeyBits<Key>::to_bits(keys[x]) < KeyBits<Key>::to_bits(keys[y]);
  });
  sorted.resize(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) sorted[i] = keys[order[i]];
}

/// Sorts `keys` on the GPU (with their indices as values if `pairs`) and
/// returns the first difference from std::stable_sort ("" if none).
template <class Key>
std::string sort_and_compare(const std::vector<Key>& keys, bool pairs, int digit_bits = 8) {
  const auto n = static_cast<std::int64_t>(keys.size());
  std::vector<Key> expected;
  std::vector<std::uint32_t> order;
  stable_reference(keys, expected, order);
  std::vector<std::uint32_t> values(keys.size());
  std::iota(values.begin(), values.end(), 0u);
  DeviceBuffer<Key> d_keys(keys), d_out(keys.size());
  DeviceBuffer<std::uint32_t> d_values(values), d_values_out(values.size());
  poison(d_out);
  poison(d_values_out);
  const std::vector<Key> before = keys;
  if (pairs) {
    DeviceBuffer<std::byte> scratch(sort_scratch_bytes<Key, std::uint32_t>(n, digit_bits));
    onesweep_sort<Key, std::uint32_t>(d_keys.data(), d_out.data(), d_values.data(), d_values_out.data(), n, digit_bits,
                                      scratch.data(), scratch.bytes());
  } else {
    DeviceBuffer<std::byte> scratch(sort_scratch_bytes<Key, void>(n, digit_bits));
    onesweep_sort<Key, void>(d_keys.data(), d_out.data(), nullptr, nullptr, n, digit_bits, scratch.data(),
                             scratch.bytes());
  }
  SCAN_CUDA(cudaDeviceSynchronize());
  const std::vector<Key> got = d_out.to_host();
  const std::vector<std::uint32_t> got_values = pairs ? d_values_out.to_host() : std::vector<std::uint32_t>{};
  const std::string wrong = first_difference<Key, std::uint32_t>(got, expected, pairs ? &got_values : nullptr,
                                                                 pairs ? &order : nullptr);
  if (!wrong.empty()) return wrong;
  // The input is left as it was.
  if (std::memcmp(d_keys.to_host().data(), before.data(), before.size() * sizeof(Key)) != 0) return "the input changed";
  return "";
}

template <class Key>
void sorts_every_distribution() {
  for (const std::int64_t n : sizes_around_tiles<Key>()) {
    for (const KeyDistribution dist : {KeyDistribution::uniform, KeyDistribution::few, KeyDistribution::equal, KeyDistribution::sorted}) {
      const std::vector<Key> keys = make_keys<Key>(n, dist, 7 + static_cast<std::uint64_t>(n));
      for (const bool pairs : {false, true}) {
        INFO("n = " << n << ", distribution " << static_cast<int>(dist) << (pairs ? ", pairs" : ", keys"));
        CHECK(sort_and_compare(keys, pairs) == "");
      }
    }
  }
}

}  // namespace

TEST_CASE("the CPU reference sorts as std::stable_sort does", "[cpu][ch15]") {
  for (const std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{1000}, std::int64_t{100003}}) {
    for (const KeyDistribution dist : {KeyDistribution::uniform, KeyDistribution::few, KeyDistribution::equal}) {
      INFO("n = " << n);
      auto keys = make_keys<std::int32_t>(n, dist, 3);
      std::vector<std::int32_t> expected;
      std::vector<std::uint32_t> order;
      stable_reference(keys, expected, order);
      std::vector<std::uint32_t> values(keys.size());
      std::iota(values.begin(), values.end(), 0u);
      reference_sort(keys, &values);
      CHECK(first_difference<std::int32_t, std::uint32_t>(keys, expected, &values, &order) == "");
      CHECK(std::is_sorted(keys.begin(), keys.end()));  // signed keys in numeric order
    }
  }
  // A wrong element is caught, and named.
  std::vector<std::uint32_t> keys = {3, 1, 2}, expected = {1, 2, 3};
  reference_sort<std::uint32_t, std::uint32_t>(keys, nullptr);
  CHECK(first_difference<std::uint32_t, std::uint32_t>(keys, expected, nullptr, nullptr) == "");
  keys[1] = 7;
  CHECK_THAT((first_difference<std::uint32_t, std::uint32_t>(keys, expected, nullptr, nullptr)),
             ContainsSubstring("index 1: expected 2, got 7"));
}

TEST_CASE("float keys sort in IEEE 754's totalOrder", "[cpu][ch15]") {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> ordered = {-nan, -inf, -1e30f, -1.0f, -1e-45f, -0.0f, 0.0f, 1e-45f, 1.0f, 1e30f, inf, nan};
  for (std::size_t i = 0; i + 1 < ordered.size(); ++i) {
    INFO("between " << i << " and " << i + 1);
    CHECK(KeyBits<float>::to_bits(ordered[i]) < KeyBits<float>::to_bits(ordered[i + 1]));
    const float back = KeyBits<float>::from_bits(KeyBits<float>::to_bits(ordered[i]));
    CHECK(std::memcmp(&back, &ordered[i], sizeof back) == 0);
  }
  CHECK(KeyBits<std::int32_t>::to_bits(-1) < KeyBits<std::int32_t>::to_bits(0));
  CHECK(KeyBits<std::int32_t>::from_bits(KeyBits<std::int32_t>::to_bits(-123456)) == -123456);
}

TEST_CASE("the onesweep sort sorts every key type, keys and pairs, stably", "[gpu][ch15]") {
  test::require_gpu();
  SECTION("uint32") { sorts_every_distribution<std::uint32_t>(); }
  SECTION("int32") { sorts_every_distribution<std::int32_t>(); }
  SECTION("float") { sorts_every_distribution<float>(); }
  SECTION("uint64") { sorts_every_distribution<std::uint64_t>(); }
}

TEST_CASE("warps whose keys almost share a digit rank right", "[gpu][ch15]") {
  test::require_gpu();
  // A warp takes 32 consecutive keys a round, and its slices start at
  // multiples of 32 keys, so key i is in lane i % 32 of round (i / 32) of
  // its slice. The sort skips the ranking of a warp (keys alone) or the
  // atomics of a round (pairs) whose keys all hold one digit. In the first
  // pass (the low byte) these inputs hold one digit almost where those
  // tests look, or exactly: by lane (each lane's keys share a digit, the
  // lanes' differ: no skip), by round (each round's keys share one, the
  // rounds' differ: the pair sort skips every round's atomics, the key
  // sort no warp), a few keys off a run of equal ones (most warps skip,
  // a few must not), and rounds that take turns (even rounds one digit,
  // skipped by the pair sort; odd rounds two digits, split between the
  // lanes one way, then another, so a skipped round must still clear the
  // mask the round before it set, or the next odd round reads stale bits).
  const std::int64_t n = 3 * kTile32 + 100;
  std::vector<std::uint32_t> by_lane(n), by_round(n), one_off(n, 0x42424242u), in_turns(n);
  for (std::int64_t i = 0; i < n; ++i) {
    const auto high = static_cast<std::uint32_t>(random_bits(3, static_cast<std::uint64_t>(i))) & 0xffffff00u;
    const std::int64_t lane = i % 32, round = i / 32;
    by_lane[i] = high | static_cast<std::uint32_t>(lane);
    by_round[i] = high | static_cast<std::uint32_t>(round % 7);
    const bool odd_digit = round % 2 == 1 && (round % 4 == 1 ? lane % 2 == 1 : lane % 4 != 0);
    in_turns[i] = high | (odd_digit ? 1u : 0u);
  }
  for (std::int64_t i = 700; i < n; i += 1031) one_off[i] ^= 1u << (i % 8);
  for (const bool pairs : {false, true}) {
    INFO((pairs ? "pairs" : "keys"));
    CHECK(sort_and_compare(by_lane, pairs) == "");
    CHECK(sort_and_compare(by_round, pairs) == "");
    CHECK(sort_and_compare(one_off, pairs) == "");
    CHECK(sort_and_compare(in_turns, pairs) == "");
  }
}

TEST_CASE("keys alone and 8-byte pairs sort right around the wide tile of large sorts", "[gpu][ch15]") {
  test::require_gpu();
  // From a few million keys up, keys alone and 8-byte keys with values take
  // a wider tile where the GPU holds it (sort_tile_keys(n) says which tile
  // n keys take here). Sizes around a whole number of those tiles, past
  // 2^23 keys.
  const std::int64_t large = std::int64_t{1} << 23;
  auto around = [&](std::int64_t tile) {
    const std::int64_t whole = (large / tile + 1) * tile;
    return std::vector<std::int64_t>{whole - 1, whole, whole + 1};
  };
  CHECK(sort_tile_keys<std::uint32_t, void>(100003) == sort_tile_keys<std::uint32_t, void>());
  for (const std::int64_t n : around(sort_tile_keys<std::uint32_t, void>(large))) {
    const std::int64_t tile = sort_tile_keys<std::uint32_t, void>(n);
    for (const KeyDistribution dist : {KeyDistribution::uniform, KeyDistribution::few}) {
      INFO("uint32, n = " << n << ", tile " << tile << ", distribution " << static_cast<int>(dist));
      CHECK(sort_and_compare(make_keys<std::uint32_t>(n, dist, 13 + static_cast<std::uint64_t>(n)), false) == "");
    }
  }
  for (const std::int64_t n : around(sort_tile_keys<std::uint64_t, void>(large))) {
    const std::int64_t tile = sort_tile_keys<std::uint64_t, void>(n);
    INFO("uint64, n = " << n << ", tile " << tile);
    CHECK(sort_and_compare(make_keys<std::uint64_t>(n, KeyDistribution::uniform, 17), false) == "");
  }
  for (const std::int64_t n : around(sort_tile_keys<std::uint64_t, std::uint32_t>(large))) {
    const std::int64_t tile = sort_tile_keys<std::uint64_t, std::uint32_t>(n);
    INFO("uint64 pairs, n = " << n << ", tile " << tile);
    CHECK(sort_and_compare(make_keys<std::uint64_t>(n, KeyDistribution::uniform, 29), true) == "");
    CHECK(sort_and_compare(make_keys<std::uint64_t>(n, KeyDistribution::few, 31), true) == "");
  }
  for (const std::int64_t n : around(sort_tile_keys<float, void>(large))) {
    const std::int64_t tile = sort_tile_keys<float, void>(n);
    INFO("float, n = " << n << ", tile " << tile);
    CHECK(sort_and_compare(make_keys<float>(n, KeyDistribution::uniform, 19), false) == "");
  }
  for (const int bits : {1, 4}) {
    const std::int64_t n = around(sort_tile_keys<std::uint32_t, void>(large))[0];
    INFO(bits << "-bit digits, n = " << n);
    CHECK(sort_and_compare(make_keys<std::uint32_t>(n, KeyDistribution::uniform, 23), false, bits) == "");
  }
}

TEST_CASE("digits of 1 and 4 bits sort as 8 do", "[gpu][ch15]") {
  test::require_gpu();
  for (const std::int64_t n : {std::int64_t{1}, kTile32 - 1, kTile32 + 1, std::int64_t{100003}}) {
    for (const int bits : {1, 4, 8}) {
      INFO("n = " << n << ", " << bits << "-bit digits");
      CHECK(sort_and_compare(make_keys<std::uint32_t>(n, KeyDistribution::uniform, 11), false, bits) == "");
      CHECK(sort_and_compare(make_keys<std::uint32_t>(n, KeyDistribution::few, 12), false, bits) == "");
    }
  }
}

TEST_CASE("zeros, infinities and NaNs sort in totalOrder on the GPU", "[gpu][ch15]") {
  test::require_gpu();
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const float specials[] = {-nan, -inf, -0.0f, 0.0f, inf, nan, 1e-45f, -1e-45f};
  for (const std::int64_t n : {std::int64_t{9}, sort_tile_keys<float, std::uint32_t>() + 1, std::int64_t{100003}}) {
    std::vector<float> keys = make_keys<float>(n, KeyDistribution::uniform, 5);
    for (std::int64_t i = 0; i < n; i += 3) keys[i] = specials[random_bits(9, i) % 8];
    INFO("n = " << n);
    CHECK(sort_and_compare(keys, true) == "");
  }
}

TEST_CASE("keys that do not start on 16 bytes sort too", "[gpu][ch15]") {
  test::require_gpu();
  // The histogram pass reads 16 bytes at a time only from an aligned start.
  for (const std::int64_t n : {std::int64_t{5}, kTile32 + 3, std::int64_t{100003}}) {
    const auto keys = make_keys<std::uint32_t>(n + 1, KeyDistribution::uniform, 31);
    std::vector<std::uint32_t> expected(keys.begin() + 1, keys.end());
    reference_sort<std::uint32_t, std::uint32_t>(expected, nullptr);
    DeviceBuffer<std::uint32_t> d_keys(keys), d_out(keys.size());
    DeviceBuffer<std::byte> scratch(sort_scratch_bytes<std::uint32_t, void>(n));
    poison(d_out);
    onesweep_sort<std::uint32_t, void>(d_keys.data() + 1, d_out.data() + 1, nullptr, nullptr, n, 8, scratch.data(),
                                       scratch.bytes());
    SCAN_CUDA(cudaDeviceSynchronize());
    const std::vector<std::uint32_t> all = d_out.to_host();
    INFO("n = " << n);
    CHECK(first_difference<std::uint32_t, std::uint32_t>(std::vector<std::uint32_t>(all.begin() + 1, all.end()),
                                                         expected, nullptr, nullptr) == "");
    CHECK(all[0] == 0xA5A5A5A5u);  // nothing written before the output
  }
}

TEST_CASE("the sort stays right over repeated and concurrent runs", "[gpu][ch15][stress]") {
  test::require_gpu();
  const std::int64_t n = (1 << 20) + 3;
  const auto keys = make_keys<std::uint32_t>(n, KeyDistribution::uniform, 99);
  std::vector<std::uint32_t> expected;
  std::vector<std::uint32_t> order;
  stable_reference(keys, expected, order);
  constexpr int kStreams = 2;
  DeviceBuffer<std::uint32_t> d_keys(keys);
  std::vector<DeviceBuffer<std::uint32_t>> outs;
  std::vector<DeviceBuffer<std::byte>> scratch;
  cudaStream_t streams[kStreams];
  for (int s = 0; s < kStreams; ++s) {
    outs.emplace_back(keys.size());
    scratch.emplace_back(sort_scratch_bytes<std::uint32_t, void>(n));
    SCAN_CUDA(cudaStreamCreate(&streams[s]));
  }
  int wrong = 0;
  for (int run = 0; run < 25; ++run) {
    for (int s = 0; s < kStreams; ++s) {
      poison(outs[s]);
      onesweep_sort<std::uint32_t, void>(d_keys.data(), outs[s].data(), nullptr, nullptr, n, 8, scratch[s].data(),
                                         scratch[s].bytes(), streams[s]);
    }
    SCAN_CUDA(cudaDeviceSynchronize());
    for (int s = 0; s < kStreams; ++s) wrong += outs[s].to_host() != expected;
  }
  for (cudaStream_t s : streams) SCAN_CUDA(cudaStreamDestroy(s));
  CHECK(wrong == 0);
}

TEST_CASE("more than one portion: past 2^28 and 2^31 keys, and pairs past 2^28", "[gpu][ch15][large]") {
  test::require_gpu();
  // 2^28 + 7681: two portions, the second of less than one tile. 2^31 + 1:
  // eight portions and one key, where the device holds them.
  for (const std::int64_t n : {(std::int64_t{1} << 28) + 7681, (std::int64_t{1} << 31) + 1}) {
    const std::size_t needed = static_cast<std::size_t>(n) * 4 * 4;  // keys, output, the second buffer, margin
    if (n > (std::int64_t{1} << 29) && query_device().free_bytes < needed) {
      WARN("n = " << n << " left out: needs " << format_bytes(needed) << " of device memory");
      continue;
    }
    INFO("n = " << n);
    const auto keys = make_keys<std::uint32_t>(n, KeyDistribution::uniform, 1234);
    std::vector<std::uint32_t> expected = keys;
    reference_sort<std::uint32_t, std::uint32_t>(expected, nullptr);
    DeviceBuffer<std::uint32_t> d_keys(keys), d_out(keys.size());
    DeviceBuffer<std::byte> scratch(sort_scratch_bytes<std::uint32_t, void>(n));
    poison(d_out);
    onesweep_sort<std::uint32_t, void>(d_keys.data(), d_out.data(), nullptr, nullptr, n, 8, scratch.data(),
                                       scratch.bytes());
    SCAN_CUDA(cudaDeviceSynchronize());
    CHECK(first_difference<std::uint32_t, std::uint32_t>(d_out.to_host(), expected, nullptr, nullptr) == "");
  }
  // Pairs over two portions, the second one tile and one key: the values
  // (input positions) follow their keys across the portions' boundary.
  const std::int64_t n = (std::int64_t{1} << 28) + sort_tile_keys<std::uint32_t, std::uint32_t>() + 1;
  INFO("pairs, n = " << n);
  const auto keys = make_keys<std::uint32_t>(n, KeyDistribution::uniform, 4321);
  std::vector<std::uint32_t> values(keys.size());
  std::iota(values.begin(), values.end(), 0u);
  std::vector<std::uint32_t> expected = keys, expected_values = values;
  reference_sort<std::uint32_t, std::uint32_t>(expected, &expected_values);
  DeviceBuffer<std::uint32_t> d_keys(keys), d_out(keys.size()), d_values(values), d_values_out(values.size());
  DeviceBuffer<std::byte> scratch(sort_scratch_bytes<std::uint32_t, std::uint32_t>(n));
  poison(d_out);
  poison(d_values_out);
  onesweep_sort<std::uint32_t, std::uint32_t>(d_keys.data(), d_out.data(), d_values.data(), d_values_out.data(), n, 8,
                                              scratch.data(), scratch.bytes());
  SCAN_CUDA(cudaDeviceSynchronize());
  const std::vector<std::uint32_t> got_values = d_values_out.to_host();
  CHECK(first_difference<std::uint32_t, std::uint32_t>(d_out.to_host(), expected, &got_values, &expected_values) == "");
}

TEST_CASE("ch15_radix_sort checks its arguments", "[cpu][cli][ch15]") {
  const auto usage = [](const std::string& arguments, const std::string& reason) {
    const test::ProgramResult r = test::run_program("ch15_radix_sort", arguments);
    INFO(arguments << ": " << r.output);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, ContainsSubstring(reason));
  };
  usage("--type int64", "--type must be uint32, int32, float or uint64");
  usage("--dist zipf", "--dist must be");
  usage("--bits 2", "--bits takes 1, 4 and 8");
  usage("--bits 4 --type float", "built for uint32 keys alone");
  usage("--bits 1 --pairs", "built for uint32 keys alone");
  usage("--n 4G", "below 2^32");
  usage("--n -1", "must not be negative");
  const test::ProgramResult help = test::run_program("ch15_radix_sort", "--help");
  CHECK(help.exit_code == 0);
  CHECK_THAT(help.output, ContainsSubstring("usage: ch15_radix_sort"));
}

TEST_CASE("ch15_radix_sort sorts, checks and times", "[gpu][cli][ch15]") {
  test::require_gpu();
  for (const std::string arguments : {"--n 100K --reps 3 --warmup 1 --bits 1,4,8", "--n 100003 --type float --pairs --reps 2",
                                      "--n 0", "--n 1 --type uint64 --dist equal"}) {
    const test::ProgramResult r = test::run_program("ch15_radix_sort", arguments);
    INFO(arguments << ": " << r.output);
    CHECK(r.exit_code == 0);
    CHECK(r.output.find("FAIL") == std::string::npos);
    CHECK_THAT(r.output, ContainsSubstring("cub::DeviceRadixSort"));
  }
}
