#include "support.hpp"

#include <scan/device_info.hpp>
#include <scan/error.hpp>
#include <scan/generate.hpp>
#include <scan/harness.hpp>
#include <scan/suite_plan.hpp>
#include <scan/verify.hpp>

#include <catch2/catch_test_macros.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace scan::test {

const GpuStatus& gpu_status() {
  static const GpuStatus status = [] {
    GpuStatus s;
    try {
      require_device();
      s.available = true;
    } catch (const CudaError& e) {
      s.reason = e.what();
    }
    return s;
  }();
  return status;
}

void require_gpu() {
  const GpuStatus& status = gpu_status();
  if (status.available) return;
  const char* required = std::getenv("SCAN_REQUIRE_GPU");
  if (required != nullptr && std::string(required) == "1") {
    FAIL("SCAN_REQUIRE_GPU=1 but no usable CUDA device: " << status.reason);
  }
  SKIP("no usable CUDA device: " << status.reason);
}

namespace {

/// FAILs when SCAN_REQUIRE_HOPPER=1 (a Hopper run must not pass by skipping
/// chapters 11 to 14), and returns otherwise so that the caller skips.
void fail_if_hopper_required(const std::string& reason) {
  const char* required = std::getenv("SCAN_REQUIRE_HOPPER");
  if (required != nullptr && std::string(required) == "1") FAIL("SCAN_REQUIRE_HOPPER=1 but " << reason);
}

/// Why the device cannot run code that needs `need` (empty if it can), for `what`.
std::string unmet(const ArchitectureNeed& need, const std::string& what) {
  if (need.sm == 0) return {};
  static const DeviceInfo device = query_device();
  try {
    require_architecture(what, need, device);
    return {};
  } catch (const UnsupportedGpu& e) {
    fail_if_hopper_required(e.what());
    return e.what();
  }
}

}  // namespace

void require_gpu(const ArchitectureNeed& need) {
  require_gpu();
  const std::string reason = unmet(need, "this test");
  if (!reason.empty()) SKIP(reason);
}

bool gpu_meets(const ArchitectureNeed& need, const std::string& what) {
  const std::string reason = unmet(need, what);
  if (reason.empty()) return true;
  WARN("left out: " << reason);
  return false;
}

void require_gpus(int count) {
  require_gpu();
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess) devices = 0;
  if (devices >= count) return;
  const char* required = std::getenv("SCAN_REQUIRE_GPU");
  const char* required_count = std::getenv("SCAN_REQUIRE_GPUS");
  if (required != nullptr && std::string(required) == "1" && required_count != nullptr &&
      std::atoi(required_count) >= count) {
    FAIL("SCAN_REQUIRE_GPUS=" << required_count << " but only " << devices << " CUDA device(s) are visible");
  }
  SKIP("needs " << count << " GPUs, " << devices << " visible");
}

namespace {

std::filesystem::path bin_folder() {
  return std::filesystem::canonical("/proc/self/exe").parent_path();
}

}  // namespace

bool program_exists(const std::string& program) { return std::filesystem::exists(bin_folder() / program); }

ProgramResult run_program(const std::string& program, const std::string& arguments,
                          const std::string& environment) {
  const auto path = bin_folder() / program;
  REQUIRE(std::filesystem::exists(path));
  const std::string command = environment + (environment.empty() ? "" : " ") + "'" +
                              path.string() + "' " + arguments + " 2>&1";
  ProgramResult result;
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::array<char, 4096> buffer{};
  std::size_t got = 0;
  while ((got = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) result.output.append(buffer.data(), got);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

const Chapter& chapter_by_number(const std::string& number) {
  for (const Chapter* c : all_chapters()) {
    if (c->number == number) return *c;
  }
  FAIL("chapter " << number << " was not built");
  throw std::logic_error("unreachable");
}

namespace {

using namespace suite_plan;

template <class T, class Op>
void check_case(const Variant& v, Where where, Kind kind, std::int64_t n, int block, Distribution dist,
                Heads pattern = Heads::first_only) {
  const std::uint64_t seed = seed_for(v.info.name, dtype_of<T>(), op_id_of<Op>(), kind, n) + block;
  std::vector<std::uint8_t> heads;
  if (v.info.segmented) heads = make_heads(pattern, n, v.tile_for(block), seed);
  Harness<T> harness(where, generate_input<T>(n, seed, dist), std::move(heads));
  const std::vector<T>& out = harness.run_once(v, op_id_of<Op>(), kind, block, nullptr);
  const VerifyReport report = verify_scan(harness.input(), out, kind, Op{}, harness.restarts(v.info.segment));
  INFO(v.info.name << ": n = " << n << ", " << dtype_name(dtype_of<T>()) << " "
                   << op_name(op_id_of<Op>()) << " " << kind_name(kind) << ", block " << block
                   << ", seed " << seed << (dist == Distribution::real_valued ? ", real-valued" : "")
                   << (v.info.segmented ? std::string(", ") + heads_name(pattern) : std::string()));
  CHECK(report.describe() == "");
}

/// n = 0: nothing to do, nothing written, no error.
template <class T, class Op>
void check_empty(const Variant& v, Where where, Kind kind, int block) {
  Harness<T> harness(where, std::vector<T>{});
  INFO(v.info.name << ": n = 0");
  CHECK_NOTHROW(harness.run_once(v, op_id_of<Op>(), kind, block, nullptr));
  CHECK(harness.output().empty());
}

/// Two runs on one input: integers (and max/min) must agree bit for bit;
/// float sums too, unless the variant says its order of summation varies.
template <class T, class Op>
void check_repeatable(const Variant& v, Where where, std::int64_t n, int block) {
  // Real-valued floats, so that a different order of additions can show.
  std::vector<std::uint8_t> heads;
  if (v.info.segmented) heads = make_heads(Heads::long_random, n, v.tile_for(block), 777 + n);
  Harness<T> harness(where, generate_input<T>(n, 12345 + n, Distribution::real_valued), std::move(heads));
  const std::vector<T> first = harness.run_once(v, op_id_of<Op>(), Kind::inclusive, block, nullptr);
  const std::vector<T>& second = harness.run_once(v, op_id_of<Op>(), Kind::inclusive, block, nullptr);
  INFO(v.info.name << ": two runs at n = " << n << ", " << dtype_name(dtype_of<T>()) << " "
                   << op_name(op_id_of<Op>()));
  CHECK(verify_scan(harness.input(), first, Kind::inclusive, Op{}, harness.restarts(v.info.segment)).describe() == "");
  CHECK(verify_scan(harness.input(), second, Kind::inclusive, Op{}, harness.restarts(v.info.segment)).describe() == "");
  const bool exact = !(std::is_floating_point_v<T> && std::is_same_v<Op, Add>) ||
                     !v.info.float_order_varies;
  if (exact) CHECK(std::memcmp(first.data(), second.data(), first.size() * sizeof(T)) == 0);
}

void run_variant(const Variant& v, Where where, int block) {
  const auto sizes = suite_sizes(v, block, where);
  for_each_combo<ScanCombos>([&]<class T, class Op>() {
    if (!v.supports(dtype_of<T>(), op_id_of<Op>())) return;
    for (Kind kind : {Kind::inclusive, Kind::exclusive}) {
      check_empty<T, Op>(v, where, kind, block);
      for (std::int64_t n : sizes) {
        if (n > kEveryPairUpTo && !large_size_pair(dtype_of<T>(), op_id_of<Op>()) && !v.info.tuning) continue;
        // A tuning point (a sweep's knob setting) is checked at every size up
        // to 2^20 + 7 and at the largest one inclusive only: there are many
        // of them, and each shares its code with the chapter's variants.
        if (v.info.tuning && n > (1 << 21) && kind == Kind::exclusive) continue;
        check_case<T, Op>(v, where, kind, n, block, Distribution::typical);
        if (!v.info.segmented) continue;
        // Segments of every kind, the large sizes with a few of them.
        for (Heads pattern : kSegmentPatterns) {
          if (n > kEveryPairUpTo && !pattern_at_large_sizes(pattern)) continue;
          check_case<T, Op>(v, where, kind, n, block, Distribution::typical, pattern);
        }
      }
    }
    if constexpr (std::is_floating_point_v<T> && std::is_same_v<Op, Add>) {
      // The typical inputs above keep every float sum exact, so those checks
      // demanded exact outputs. Real-valued inputs make additions round: the
      // outputs must lie within what the summation can lose (verify.hpp).
      for (Kind kind : {Kind::inclusive, Kind::exclusive}) {
        for (std::int64_t n : {std::int64_t{1000}, std::int64_t{(1 << 20) + 7}}) {
          if (n <= v.info.max_n) check_case<T, Op>(v, where, kind, n, block, Distribution::real_valued);
        }
      }
    }
    if (sizes.size() > 6) check_repeatable<T, Op>(v, where, sizes[sizes.size() / 2], block);
    // Many tiles, where a look-back's order of additions can change between runs.
    constexpr std::int64_t kManyTiles = (std::int64_t{1} << 24) + 3;
    if (std::is_floating_point_v<T> && std::is_same_v<Op, Add> && kManyTiles <= v.info.max_n && !v.info.tuning) {
      check_repeatable<T, Op>(v, where, kManyTiles, block);
    }
  });
}

/// The part of a chapter's variants this process checks: SCAN_SUITE_SHARD
/// "i/k" (0 <= i < k) takes the variants whose position in the chapter's
/// list leaves remainder i when divided by k, so that k processes can share
/// one long suite; unset, all of them.
struct SuiteShard {
  std::size_t index = 0;  ///< i
  std::size_t count = 1;  ///< k
};

SuiteShard suite_shard() {
  const char* text = std::getenv("SCAN_SUITE_SHARD");
  if (text == nullptr || *text == '\0') return {};
  unsigned long index = 0, count = 0;
  char end = '\0';
  if (std::sscanf(text, "%lu/%lu%c", &index, &count, &end) != 2 || count == 0 || index >= count) {
    FAIL("SCAN_SUITE_SHARD is '" << text << "': expected i/k with 0 <= i < k, e.g. 0/4");
  }
  return {index, count};
}

void run_all_variants(const Chapter& chapter) {
  const SuiteShard shard = suite_shard();
  if (shard.count > 1) WARN("SCAN_SUITE_SHARD: variants " << shard.index << " mod " << shard.count << " only");
  for (std::size_t position = 0; position < chapter.variants.size(); ++position) {
    if (position % shard.count != shard.index) continue;
    const Variant& v = chapter.variants[position];
    run_variant(v, chapter.where, v.info.block);
    if (v.info.takes_block) {
      // Other block sizes: the smallest (deep recursion of tile totals) and the largest.
      for (int block : {std::max(v.info.block_min, 2), 1024}) {
        if (block == v.info.block) continue;
        for (std::int64_t n : {std::int64_t{1}, std::int64_t{block} + 1, std::int64_t{5000}, std::int64_t{100003}}) {
          // Large n at tiny blocks only where tiles make the recursion deep.
          if (n > v.info.max_n || (n > 5000 && v.info.items_per_thread == 0)) continue;
          check_case<std::int32_t, Add>(v, chapter.where, Kind::inclusive, n, block, Distribution::typical);
          check_case<std::uint32_t, AffineCompose>(v, chapter.where, Kind::exclusive, n, block,
                                                   Distribution::typical);
        }
      }
    }
  }
}

}  // namespace

void run_generic_suite(const Chapter& chapter) {
  if (chapter.where == Where::device) require_gpu(chapter.needs);
  try {
    run_all_variants(chapter);
  } catch (const UnsupportedGpu& e) {
    // A GPU of the right architecture with too little shared memory for a
    // kernel's tiles (require_shared_memory): the program would stop with
    // this line, so the suite skips with it.
    fail_if_hopper_required(e.what());
    SKIP(e.what());
  }
}

}  // namespace scan::test
