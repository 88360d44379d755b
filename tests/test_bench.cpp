// Tests of scan_bench: the timing statistics every table reports.
#include "support.hpp"

#include <scan/timing.hpp>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

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

TEST_CASE("timing statistics", "[cpu][timing]") {
  const TimingStats odd = summarize({5, 1, 3});
  CHECK(odd.median_ms == 3);
  CHECK(odd.min_ms == 1);
  CHECK(odd.max_ms == 5);
  CHECK(summarize({4, 1, 3, 2}).median_ms == 2.5);
  CHECK(gigabytes_per_second(2e9, 1000) == 2.0);
}
