// Tests of scan_app: the command line every chapter's program shares
// (counts with K/M/G suffixes, options and their reasons for refusing a
// value, input items).
#include "support.hpp"

#include <scan/cli.hpp>
#include <scan/registry.hpp>

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

TEST_CASE("counts parse with K/M/G suffixes", "[cpu][cli]") {
  CHECK(parse_count("0", "--n") == 0);
  CHECK(parse_count("1000", "--n") == 1000);
  CHECK(parse_count("64K", "--n") == 65536);
  CHECK(parse_count("16M", "--n") == 16777216);
  CHECK(parse_count("1G", "--n") == 1073741824);
  CHECK_THROWS_AS(parse_count("-5", "--n"), UsageError);
  CHECK_THROWS_AS(parse_count("abc", "--n"), UsageError);
  CHECK_THROWS_AS(parse_count("12x", "--n"), UsageError);
  CHECK_THROWS_AS(parse_count("", "--n"), UsageError);
  CHECK_THROWS_AS(parse_count("2048G", "--n"), UsageError);
  CHECK_THROWS_AS(parse_count("99999999999999999999999", "--n"), UsageError);
}

TEST_CASE("options parse and reject bad values with a reason", "[cpu][cli]") {
  const Options o = parse_options({"--n", "1K", "--type", "float", "--op", "max", "--kind", "exclusive",
                                   "--reps=5", "--seed", "42", "--csv"});
  CHECK(o.n == 1024);
  CHECK(o.dtype == DType::f32);
  CHECK(o.op == OpId::max);
  CHECK(o.kind == Kind::exclusive);
  CHECK(o.reps == 5);
  CHECK(o.seed == 42);
  CHECK(o.format == OutputFormat::csv);

  CHECK(parse_options({"--op", "affine"}).dtype == DType::u32);
  CHECK(parse_options({"--input", "3,1,7"}).n == 3);
  CHECK_THROWS_WITH(parse_options({"--type", "bogus"}), ContainsSubstring("--type must be"));
  CHECK_THROWS_WITH(parse_options({"--kind", "sideways"}), ContainsSubstring("--kind must be"));
  CHECK_THROWS_WITH(parse_options({"--op", "affine", "--type", "float"}), ContainsSubstring("uint32"));
  CHECK_THROWS_WITH(parse_options({"--block", "3"}), ContainsSubstring("power of two"));
  CHECK(parse_options({"--reps", "0"}).reps == 0);  // verify only
  CHECK_THROWS_WITH(parse_options({"--reps", "-1"}), ContainsSubstring("--reps"));
  CHECK_THROWS_WITH(parse_options({"--n"}), ContainsSubstring("needs a value"));
  CHECK_THROWS_WITH(parse_options({"--frobnicate"}), ContainsSubstring("unknown option"));
  CHECK_THROWS_WITH(parse_options({"--trace", "--n", "1M"}), ContainsSubstring("--trace"));
}

TEST_CASE("options take --name=value, the last of a repeat, --quiet and --help", "[cpu][cli]") {
  const Options o = parse_options({"--n=16M", "--type=float", "--kind=exclusive", "--block=128", "--seed=7",
                                   "--variant=all", "--quiet"});
  CHECK(o.n == 16777216);
  CHECK(o.dtype == DType::f32);
  CHECK(o.kind == Kind::exclusive);
  CHECK(o.block == 128);
  CHECK(o.seed == 7);
  CHECK(o.quiet);
  CHECK_FALSE(parse_options({}).quiet);
  CHECK(parse_options({"--n", "1K", "--n=2K"}).n == 2048);
  CHECK(parse_options({"--help"}).help);
  CHECK(parse_options({"-h"}).help);
  CHECK(parse_options({"--input=3,1,7"}).input == std::vector<std::string>{"3", "1", "7"});

  CHECK_THROWS_WITH(parse_options({"--n=2048G"}), ContainsSubstring("more than 2^40"));
  CHECK_THROWS_WITH(parse_options({"--n="}), ContainsSubstring("--n needs a value"));
  CHECK_THROWS_WITH(parse_options({"--variant", "--csv"}), ContainsSubstring("--variant needs a value"));
  CHECK_THROWS_WITH(parse_options({"--n-min", "1K"}), ContainsSubstring("unknown option '--n-min'"));
  CHECK_THROWS_WITH(parse_options({"-x"}), ContainsSubstring("unknown option '-x'"));
  CHECK_THROWS_WITH(parse_options({"16M"}), ContainsSubstring("unexpected argument '16M'"));
  CHECK_THROWS_WITH(parse_options({"--csv", "--json"}), ContainsSubstring("choose one"));
}

TEST_CASE("input items parse as the chosen type", "[cpu][cli]") {
  CHECK(parse_value<std::int32_t>("-17", 1) == -17);
  CHECK(parse_value<float>("2.5", 1) == 2.5f);
  CHECK(split_list("1,x,3") == std::vector<std::string>{"1", "x", "3"});
  CHECK_THROWS_WITH(parse_value<std::int32_t>("x", 2), ContainsSubstring("item 2 'x'"));
  CHECK_THROWS_AS(parse_value<std::int32_t>("", 1), UsageError);
  CHECK_THROWS_AS(parse_value<std::int32_t>("99999999999", 1), UsageError);
  CHECK_THROWS_AS(parse_value<std::uint32_t>("-1", 1), UsageError);
  CHECK_THROWS_AS(parse_value<float>("nan", 1), UsageError);
}
