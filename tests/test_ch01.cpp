// Chapter 01 beyond the generic suite: the blocked scan at every thread count.
#include "sequential.hpp"

#include <scan/generate.hpp>
#include <scan/verify.hpp>

#include <catch2/catch_test_macros.hpp>

using namespace scan;

TEST_CASE("blocked two-pass scan at any thread count and size", "[cpu][ch01]") {
  for (unsigned threads : {1u, 2u, 3u, 7u, 16u}) {
    for (std::int64_t n : {1, 2, 5, 16, 17, 1000, 65537}) {
      if (static_cast<std::int64_t>(threads) > n) continue;
      for (Kind kind : {Kind::inclusive, Kind::exclusive}) {
        const auto in = generate_input<std::uint32_t>(n, threads * 1000 + n);
        std::vector<std::uint32_t> out(in.size(), poison_value<std::uint32_t>());
        std::vector<std::uint32_t> carry(threads);
        ch01::blocked_scan(in.data(), out.data(), n, kind, AffineCompose{}, threads, carry.data());
        INFO("threads " << threads << ", n " << n << ", " << kind_name(kind));
        CHECK(verify_scan(in, out, kind, AffineCompose{}).describe() == "");
      }
    }
  }
}

TEST_CASE("the plain loop works in place", "[cpu][ch01]") {
  auto data = generate_input<std::int64_t>(1000, 3);
  const auto original = data;
  ch01::sequential_scan(data.data(), data.data(), 1000, Kind::exclusive, Add{});
  CHECK(verify_scan(original, data, Kind::exclusive, Add{}).ok);
}
