// Chapter 14: the scan across GPUs, in both launch modes, against the
// oracle (the program checks its output itself and exits 1 when wrong),
// and how shards are cut.
#include "multi_gpu.cuh"
#include "support.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <string>
#include <vector>

using namespace scan;
using Catch::Matchers::ContainsSubstring;

TEST_CASE("shards cover the array in order, whole tiles where they can", "[cpu][ch14]") {
  for (int ranks : {1, 2, 3, 8}) {
    for (std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{5}, std::int64_t{4097},
                           std::int64_t{8191}, std::int64_t{1000003}, (std::int64_t{1} << 32) + 7}) {
      INFO("n = " << n << ", " << ranks << " ranks");
      CHECK(ch14::shard_begin(n, ranks, 0) == 0);
      CHECK(ch14::shard_begin(n, ranks, ranks) == n);
      std::int64_t smallest = n, largest = 0;
      for (int k = 0; k < ranks; ++k) {
        const std::int64_t begin = ch14::shard_begin(n, ranks, k), end = ch14::shard_begin(n, ranks, k + 1);
        CHECK(begin <= end);
        if (n >= 4096 * ranks && k > 0) CHECK(begin % 4096 == 0);
        smallest = std::min(smallest, end - begin);
        largest = std::max(largest, end - begin);
      }
      // Balanced to within one 4096-element unit (plus n's remainder in the last).
      CHECK(largest - smallest <= 4096 + 4095);
    }
  }
}

TEST_CASE("the scan across GPUs is right in both launch modes, with the carry applied or deferred", "[gpu][ch14]") {
  test::require_gpu(ch11::kNeedsHopper);
  test::require_gpus(2);
  int visible = 0;
  REQUIRE(cudaGetDeviceCount(&visible) == cudaSuccess);
  const std::string cases[] = {
      "--n 1",  // fewer elements than GPUs
      "--n 5",  // not divisible by the number of GPUs
      "--n 8191 --kind exclusive",  // shards smaller than a tile
      "--n 1000003",
      "--n 1000003 --op affine --kind exclusive",  // not commutative
      "--n 1000003 --type float",
      "--n 300007 --type int64 --op max",
  };
  // Two GPUs, and up to four where the machine has them (an odd count too).
  std::vector<int> counts{2};
  if (visible >= 3) counts.push_back(3);
  if (visible >= 4) counts.push_back(4);
  for (const int gpus : counts) {
    for (const char* mode : {"process", "ranks"}) {
      for (const char* carry : {"applied", "deferred"}) {
        for (const std::string& c : cases) {
          const std::string arguments = c + " --gpus " + std::to_string(gpus) + " --reps 0 --quiet --mode " + mode +
                                        " --carry " + carry;
          const test::ProgramResult r = test::run_program("ch14_multi_gpu", arguments, "NCCL_NVLS_ENABLE=0");
          INFO(arguments << "\n" << r.output);
          CHECK(r.exit_code == 0);
          CHECK_THAT(r.output, ContainsSubstring("PASS"));
        }
      }
    }
  }
}

TEST_CASE("a --carry that is neither applied nor deferred is a usage error", "[cpu][ch14]") {
  if (!test::program_exists("ch14_multi_gpu")) SKIP("ch14_multi_gpu is built only where NCCL is found");
  const test::ProgramResult r = test::run_program("ch14_multi_gpu", "--carry sideways --n 1000");
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, ContainsSubstring("--carry must be applied or deferred, not 'sideways'"));
}

TEST_CASE("asking for more GPUs than there are is a clear error", "[gpu][ch14]") {
  test::require_gpu(ch11::kNeedsHopper);
  const test::ProgramResult r = test::run_program("ch14_multi_gpu", "--gpus 64 --n 1000 --reps 0");
  INFO(r.output);
  CHECK(r.exit_code == 3);
  CHECK_THAT(r.output, ContainsSubstring("CUDA device(s) are visible"));
}
