// Tests of scan_check: the generators, the oracle and verification. The
// float cases show that verification rejects an output that drops, doubles
// or shifts one element, at every size the tests use, and accepts every
// correctly computed output, whatever its order of additions.
#include "support.hpp"

#include <scan/generate.hpp>
#include <scan/oracle.hpp>
#include <scan/verify.hpp>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <catch2/catch_template_test_macros.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <vector>

using namespace scan;
using Catch::Matchers::ContainsSubstring;

TEST_CASE("generators are reproducible, varied and in range", "[cpu][generate]") {
  CHECK(generate_input<float>(1000, 5) == generate_input<float>(1000, 5));
  CHECK(generate_input<float>(1000, 5) != generate_input<float>(1000, 6));
  // Large inputs are filled by several threads; they must equal a prefix of
  // the same stream filled by one.
  const auto big = generate_input<std::int32_t>((1 << 21) + 3, 9);
  const auto small = generate_input<std::int32_t>(1000, 9);
  CHECK(std::equal(small.begin(), small.end(), big.begin()));

  const auto ints = generate_input<std::int32_t>(100000, 3);
  CHECK(*std::min_element(ints.begin(), ints.end()) >= -1000);
  CHECK(*std::max_element(ints.begin(), ints.end()) <= 1000);
  CHECK(*std::min_element(ints.begin(), ints.end()) < 0);
  CHECK(std::set<std::int32_t>(ints.begin(), ints.end()).size() > 1900);

  const auto words = generate_input<std::uint32_t>(100000, 3);
  CHECK(*std::max_element(words.begin(), words.end()) > (1u << 31));

  const auto reals = generate_input<double>(100000, 3);
  for (double x : reals) CHECK((x >= -4.0 && x <= 4.0 && x * 256 == std::floor(x * 256)));

  // Real-valued floats use every significand bit, and still telescope.
  const auto real = generate_input<float>(5000, 4, Distribution::real_valued);
  int fine_bits = 0;
  for (float x : real) fine_bits += x * 256 != std::floor(x * 256);
  CHECK(fine_bits > 4900);
}

TEST_CASE("the oracle reproduces the worked example", "[cpu][oracle]") {
  const std::vector<std::int32_t> in = {3, 1, 7, 0, 4, 1, 6, 3};
  std::vector<std::int32_t> out(in.size());
  reference_scan(in.data(), out.data(), 8, Kind::inclusive, Add{});
  CHECK(out == std::vector<std::int32_t>{3, 4, 11, 11, 15, 16, 22, 25});
  reference_scan(in.data(), out.data(), 8, Kind::exclusive, Add{});
  CHECK(out == std::vector<std::int32_t>{0, 3, 4, 11, 11, 15, 16, 22});
  reference_scan(in.data(), out.data(), 8, Kind::inclusive, Max{});
  CHECK(out == std::vector<std::int32_t>{3, 3, 7, 7, 7, 7, 7, 7});
  // Tile-wise: segments of 3 restart.
  reference_scan(in.data(), out.data(), 8, Kind::inclusive, Add{}, 3);
  CHECK(out == std::vector<std::int32_t>{3, 4, 11, 0, 4, 5, 6, 9});
}

TEST_CASE("the oracle accumulates wide and wraps like the hardware", "[cpu][oracle]") {
  const std::vector<std::uint32_t> in = {0xFFFFFFFFu, 2u};
  std::vector<std::uint32_t> out(2);
  reference_scan(in.data(), out.data(), 2, Kind::inclusive, Add{});
  CHECK(out[1] == 1u);
  // A float sum where float accumulation would lose the small terms.
  std::vector<float> big(1001, 1.0f);
  big[0] = 16777216.0f;  // 2^24: adding 1.0f to it in float does nothing
  std::vector<float> scanned(big.size());
  reference_scan(big.data(), scanned.data(), 1001, Kind::inclusive, Add{});
  CHECK(scanned.back() == 16778216.0f);
}

TEST_CASE("verification accepts the right answer and explains a wrong one", "[cpu][verify]") {
  const auto in = generate_input<std::int32_t>(1000, 2);
  std::vector<std::int32_t> out(in.size());
  reference_scan(in.data(), out.data(), 1000, Kind::inclusive, Add{});
  CHECK(verify_scan(in, out, Kind::inclusive, Add{}).ok);

  auto wrong = out;
  wrong[512] += 1;
  wrong[700] = poison_value<std::int32_t>();
  const VerifyReport report = verify_scan(in, wrong, Kind::inclusive, Add{});
  CHECK_FALSE(report.ok);
  CHECK(report.first_bad == 512);
  CHECK(report.wrong == 2);
  CHECK(report.expected == std::to_string(out[512]));
  CHECK(report.got == std::to_string(out[512] + 1));
  CHECK(report.neighbourhood.size() == 7);
  CHECK_THAT(report.describe(), ContainsSubstring("2 of 1000 elements wrong; first at index 512"));

  const VerifyReport unwritten = verify_scan(in, std::vector<std::int32_t>(1000, poison_value<std::int32_t>()),
                                             Kind::inclusive, Add{});
  CHECK(unwritten.wrong == 1000);
  CHECK_THAT(unwritten.describe(), ContainsSubstring("poison: never written"));
}

TEST_CASE("exclusive and non-commutative results are checked in order", "[cpu][verify]") {
  const auto in = generate_input<std::uint32_t>(300, 8);
  std::vector<std::uint32_t> out(in.size());
  reference_scan(in.data(), out.data(), 300, Kind::exclusive, AffineCompose{});
  CHECK(out[0] == AffineCompose::identity<std::uint32_t>());
  CHECK(verify_scan(in, out, Kind::exclusive, AffineCompose{}).ok);
  // The same prefixes combined in the other order are wrong.
  std::vector<std::uint32_t> swapped(in.size());
  std::uint32_t running = AffineCompose::identity<std::uint32_t>();
  for (std::size_t i = 0; i < in.size(); ++i) {
    swapped[i] = running;
    running = AffineCompose{}(in[i], running);
  }
  CHECK_FALSE(verify_scan(in, swapped, Kind::exclusive, AffineCompose{}).ok);
}

namespace {

/// The exact prefix sums of `in` (long double holds them exactly here).
template <class T>
std::vector<long double> exact_prefixes(const std::vector<T>& in) {
  std::vector<long double> p(in.size());
  long double running = 0;
  for (std::size_t i = 0; i < in.size(); ++i) p[i] = running += in[i];
  return p;
}

/// Each prefix rounded once to T: the best output any scan can produce.
template <class T>
std::vector<T> correctly_rounded(const std::vector<long double>& prefixes) {
  std::vector<T> out(prefixes.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<T>(prefixes[i]);
  return out;
}

/// A scan computed in T the way a GPU chain of tiles adds: each tile of
/// 4096 scanned sequentially, tile totals chained from tile to tile, and the
/// carry added to each local prefix. Another order of additions, with its
/// own rounding: verification must accept it.
template <class T>
std::vector<T> tiled_in_t(const std::vector<T>& in) {
  constexpr std::size_t kTile = 4096;
  std::vector<T> out(in.size());
  T carry = 0;
  for (std::size_t start = 0; start < in.size(); start += kTile) {
    const std::size_t end = std::min(in.size(), start + kTile);
    T local = 0;
    for (std::size_t i = start; i < end; ++i) {
      local += in[i];
      out[i] = carry + local;
    }
    carry += local;
  }
  return out;
}

/// The element of `in` at or after `from` whose magnitude is at least half
/// the largest input's.
template <class T>
std::size_t large_element(const std::vector<T>& in, std::size_t from) {
  T largest = 0;
  for (T x : in) largest = std::max(largest, std::fabs(x));
  for (std::size_t i = from; i < in.size(); ++i) {
    if (std::fabs(in[i]) >= largest / 2) return i;
  }
  FAIL("no large element after " << from);
  return 0;
}

/// Correctly rounded outputs, except that every output from `first` on has
/// `value` added: an element left out (value = -x_k) or counted twice (+x_k).
template <class T>
std::vector<T> with_shift(const std::vector<long double>& prefixes, std::size_t first, long double value) {
  std::vector<T> out = correctly_rounded<T>(prefixes);
  for (std::size_t i = first; i < out.size(); ++i) out[i] = static_cast<T>(prefixes[i] + value);
  return out;
}

template <class T>
void expect_planted_errors_caught(const std::vector<T>& in, Kind kind) {
  // Exclusive outputs are the inclusive ones shifted by one: build them from
  // shifted prefixes (with 0 in front).
  std::vector<long double> prefixes = exact_prefixes(in);
  if (kind == Kind::exclusive) {
    prefixes.insert(prefixes.begin(), 0.0L);
    prefixes.pop_back();
  }
  const auto offset = static_cast<std::size_t>(kind == Kind::exclusive);
  for (std::size_t from : {std::size_t{0}, in.size() / 2, in.size() - 100}) {
    const std::size_t k = large_element(in, from);
    if (k + offset >= in.size()) continue;  // an exclusive scan never shows the last element
    INFO("element " << k << " = " << in[k]);
    // Element k first shows in out[k] (inclusive) or out[k + 1] (exclusive).
    const VerifyReport dropped = verify_scan(in, with_shift<T>(prefixes, k + offset, -in[k]), kind, Add{});
    CHECK_FALSE(dropped.ok);
    CHECK(dropped.first_bad == static_cast<std::int64_t>(k + offset));
    const VerifyReport doubled = verify_scan(in, with_shift<T>(prefixes, k + offset, +in[k]), kind, Add{});
    CHECK_FALSE(doubled.ok);
    CHECK(doubled.first_bad == static_cast<std::int64_t>(k + offset));
  }
}

}  // namespace

TEST_CASE("fraction bits of a float", "[cpu][verify]") {
  CHECK(detail::fraction_bits(0.0f) == 0);
  CHECK(detail::fraction_bits(3.0f) == 0);
  CHECK(detail::fraction_bits(1024.0) == 0);
  CHECK(detail::fraction_bits(0.5f) == 1);
  CHECK(detail::fraction_bits(-2.75) == 2);
  CHECK(detail::fraction_bits(1.0f / 256) == 8);
  CHECK(detail::fraction_bits(std::ldexp(3.0, -40)) == 40);
  CHECK(detail::fraction_bits(std::numeric_limits<float>::denorm_min()) == 149);
}

TEMPLATE_TEST_CASE("the typical float inputs keep every sum exact, so one wrong element shows at any size",
                   "[cpu][verify]", float, double) {
  using T = TestType;
  for (int log_n : {16, 20, 24}) {
    const std::int64_t n = std::int64_t{1} << log_n;
    const std::vector<T> in = generate_input<T>(n, 40 + log_n);
    INFO("n = 2^" << log_n);
    for (Kind kind : {Kind::inclusive, Kind::exclusive}) {
      INFO(kind_name(kind));
      std::vector<long double> prefixes = exact_prefixes(in);
      // Every prefix is a multiple of 1/256 in [-2, 2]: exact in T.
      for (long double p : {prefixes.front(), prefixes[n / 2], prefixes.back()}) {
        CHECK(std::fabs(p) <= 2);
        CHECK(static_cast<long double>(static_cast<T>(p)) == p);
      }
      std::vector<T> right(static_cast<std::size_t>(n));
      reference_scan(in.data(), right.data(), n, kind, Add{});
      CHECK(verify_scan(in, right, kind, Add{}).ok);
      if (kind == Kind::inclusive) CHECK(verify_scan(in, tiled_in_t(in), kind, Add{}).ok);
      expect_planted_errors_caught(in, kind);
      // One element one ulp off, anywhere: no rounding could explain it.
      for (std::int64_t i : {std::int64_t{5}, n / 3, n - 1}) {
        auto off = right;
        off[i] = std::nextafter(off[i], T(100));
        const VerifyReport report = verify_scan(in, off, kind, Add{});
        CHECK_FALSE(report.ok);
        CHECK(report.first_bad == i);
        CHECK(report.wrong == 1);
      }
    }
  }
}

TEMPLATE_TEST_CASE("real-valued float inputs: any correct order passes, a wrong element fails while a sound bound can see it",
                   "[cpu][verify]", float, double) {
  using T = TestType;
  for (int log_n : {16, 20}) {
    const std::int64_t n = std::int64_t{1} << log_n;
    const std::vector<T> in = generate_input<T>(n, 60 + log_n, Distribution::real_valued);
    INFO("n = 2^" << log_n);
    const auto prefixes = exact_prefixes(in);
    // Additions really round here: the order matters.
    const std::vector<T> tiled = tiled_in_t(in);
    const std::vector<T> rounded = correctly_rounded<T>(prefixes);
    std::int64_t differ = 0;
    for (std::size_t i = 0; i < tiled.size(); ++i) differ += tiled[i] != rounded[i];
    CHECK(differ > 0);
    CHECK(verify_scan(in, rounded, Kind::inclusive, Add{}).ok);
    CHECK(verify_scan(in, tiled, Kind::inclusive, Add{}).ok);
    for (Kind kind : {Kind::inclusive, Kind::exclusive}) {
      INFO(kind_name(kind));
      expect_planted_errors_caught(in, kind);
    }
    // An element a little off, far beyond rounding but far below one element.
    auto off = rounded;
    off[n / 2] += T(0.25);
    CHECK_FALSE(verify_scan(in, off, Kind::inclusive, Add{}).ok);
  }
}

TEST_CASE("where a sound bound stops seeing one float element", "[cpu][verify]") {
  // The bound for m additions is ((1 + u)^m - 1) R. With float, R about 4
  // and elements up to 4, an element of 2 is visible while the bound is
  // below 2: at 2^22 additions but no longer at 2^23 (chapter 01 says so).
  using Judge = detail::Judge<float, Add>;
  CHECK(Judge::rounding_bound(std::int64_t{1} << 20, 4.0) < 0.3L);
  CHECK(Judge::rounding_bound(std::int64_t{1} << 22, 4.0) < 2.0L);
  CHECK(Judge::rounding_bound(std::int64_t{1} << 23, 4.0) > 2.0L);
  // Double: far below one element even at 2^30 additions.
  CHECK(detail::Judge<double, Add>::rounding_bound(std::int64_t{1} << 30, 4.0) < 1e-6L);
}

TEST_CASE("poison, NaN and max/min are judged exactly", "[cpu][verify]") {
  const std::vector<float> in = generate_input<float>(1 << 16, 21, Distribution::real_valued);
  std::vector<float> out(in.size());
  reference_scan(in.data(), out.data(), 1 << 16, Kind::inclusive, Add{});
  auto nan = out;
  nan.back() = std::numeric_limits<float>::quiet_NaN();
  CHECK_FALSE(verify_scan(in, nan, Kind::inclusive, Add{}).ok);
  auto unwritten = out;
  unwritten[100] = poison_value<float>();
  const VerifyReport report = verify_scan(in, unwritten, Kind::inclusive, Add{});
  CHECK(report.first_bad == 100);
  CHECK(report.describe().find("poison") != std::string::npos);
  std::vector<float> maxima(in.size());
  reference_scan(in.data(), maxima.data(), 1 << 16, Kind::inclusive, Max{});
  CHECK(verify_scan(in, maxima, Kind::inclusive, Max{}).ok);
  maxima.back() = std::nextafter(maxima.back(), 1e9f);
  CHECK_FALSE(verify_scan(in, maxima, Kind::inclusive, Max{}).ok);
}

TEST_CASE("verification splits over threads and still finds the first bad element", "[cpu][verify]") {
  // Large enough to be checked in several chunks; errors in two of them.
  const std::int64_t n = (std::int64_t{1} << 22) + 5;
  const std::vector<std::uint32_t> in = generate_input<std::uint32_t>(n, 77);
  std::vector<std::uint32_t> out(static_cast<std::size_t>(n));
  reference_scan(in.data(), out.data(), n, Kind::exclusive, AffineCompose{});
  CHECK(verify_scan(in, out, Kind::exclusive, AffineCompose{}).ok);
  out[n - 2] ^= 1u;
  out[n / 2 + 1] ^= 1u;
  const VerifyReport report = verify_scan(in, out, Kind::exclusive, AffineCompose{});
  CHECK(report.wrong == 2);
  CHECK(report.first_bad == n / 2 + 1);
  CHECK(report.neighbourhood.size() == 7);
  // Tile-wise (segmented) checking restarts at every segment.
  std::vector<std::uint32_t> tiles(static_cast<std::size_t>(n));
  reference_scan(in.data(), tiles.data(), n, Kind::inclusive, AffineCompose{}, 4096);
  CHECK(verify_scan(in, tiles, Kind::inclusive, AffineCompose{}, 4096).ok);
  CHECK_FALSE(verify_scan(in, tiles, Kind::inclusive, AffineCompose{}).ok);
}
