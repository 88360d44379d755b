// Chapter 05's operation-count models against the formulas in its text.
#include "op_count.hpp"

#include <scan/generate.hpp>
#include <scan/oracle.hpp>

#include <catch2/catch_test_macros.hpp>

using namespace scan;

TEST_CASE("the models count what the formulas say, and scan correctly", "[cpu][ch05]") {
  for (int k = 1; k <= 14; ++k) {
    const std::int64_t n = std::int64_t{1} << k;
    INFO("n = 2^" << k);
    const auto input = generate_input<std::uint32_t>(n, 50 + k);
    std::vector<std::uint32_t> inclusive(input.size()), exclusive(input.size());
    reference_scan(input.data(), inclusive.data(), n, Kind::inclusive, AffineCompose{});
    reference_scan(input.data(), exclusive.data(), n, Kind::exclusive, AffineCompose{});

    auto a = input;
    const ch05::OpCount ks = ch05::kogge_stone_model(a, AffineCompose{});
    CHECK(ks.operations == n * k - (n - 1));
    CHECK(ks.steps == k);
    CHECK(a == inclusive);

    auto b = input;
    const ch05::OpCount bk = ch05::brent_kung_model(b, AffineCompose{});
    CHECK(bk.operations == 2 * (n - 1) - k);
    CHECK(bk.steps == 2 * k - 1);
    CHECK(b == inclusive);

    auto c = input;
    const ch05::OpCount bl = ch05::blelloch_model(c, AffineCompose{}, AffineCompose::identity<std::uint32_t>());
    CHECK(bl.operations == 2 * (n - 1));
    CHECK(bl.steps == 2 * k);
    CHECK(c == exclusive);
  }
}
