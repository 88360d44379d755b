#include "support.hpp"

#include <scan/device_info.hpp>
#include <scan/error.hpp>
#include <scan/generate.hpp>
#include <scan/harness.hpp>
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
#include <set>

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

std::vector<std::int64_t> suite_sizes(const Variant& variant, int block, Where where) {
  std::set<std::int64_t> sizes = {1, 2, 3, 31, 32, 33, 1009, 100003, (1 << 20) + 7, (1 << 24) + 3};
  if (where == Where::host) {
    // Around the blocked scan's chunk boundaries, and a few million.
    for (std::int64_t chunk : {std::int64_t{1} << 16, std::int64_t{1} << 17}) {
      sizes.insert({chunk - 1, chunk, chunk + 1, 2 * chunk + 1});
    }
    sizes.insert((1 << 22) + 1);
  }
  const std::int64_t threads = variant.block_for(block);
  if (threads > 0) sizes.insert({threads - 1, threads, threads + 1});
  const std::int64_t tile = variant.tile_for(block);
  if (tile > 0) {
    sizes.insert({tile - 1, tile, tile + 1, 2 * tile + 1});
    // A second level of tile totals: tile^2 +- 1 exercises the recursion.
    if (tile <= 8192) sizes.insert({tile * tile - 1, tile * tile + 1});
  }
  std::vector<std::int64_t> out;
  for (std::int64_t n : sizes) {
    if (n >= 1 && n <= variant.info.max_n) out.push_back(n);
  }
  return out;
}

namespace {

/// The sizes every (type, operator, kind) is checked at; larger ones use a
/// few representative pairs only (they cost most of the suite's time).
constexpr std::int64_t kEveryPairUpTo = 1 << 18;

bool large_size_pair(DType dtype, OpId op) {
  return (dtype == DType::i32 && op == OpId::add) || (dtype == DType::f32 && op == OpId::add) ||
         (dtype == DType::u32 && op == OpId::affine) || (dtype == DType::i64 && op == OpId::max) ||
         (dtype == DType::f64 && op == OpId::min);
}

std::uint64_t seed_for(const std::string& name, DType dtype, OpId op, Kind kind, std::int64_t n) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a over the case's identity
  for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  h = (h ^ static_cast<std::uint64_t>(dtype)) * 1099511628211ull;
  h = (h ^ static_cast<std::uint64_t>(op)) * 1099511628211ull;
  h = (h ^ static_cast<std::uint64_t>(kind)) * 1099511628211ull;
  return (h ^ static_cast<std::uint64_t>(n)) * 1099511628211ull;
}

/// Where a segmented variant's segments start, in the suite's cases.
enum class Heads {
  first_only,     ///< one segment: a plain scan
  every_element,  ///< every element its own segment
  short_random,   ///< geometric lengths, mean 8
  long_random,    ///< geometric lengths, mean 300
  tile_edges,     ///< heads on tile boundaries and one before and after
  one_split,      ///< two long segments, each across many tiles
};

const char* heads_name(Heads h) {
  switch (h) {
    case Heads::first_only: return "one segment";
    case Heads::every_element: return "every element a head";
    case Heads::short_random: return "random segments, mean 8";
    case Heads::long_random: return "random segments, mean 300";
    case Heads::tile_edges: return "heads at tile edges";
    case Heads::one_split: return "two long segments";
  }
  return "?";
}

std::vector<std::uint8_t> make_heads(Heads pattern, std::int64_t n, std::int64_t tile, std::uint64_t seed) {
  switch (pattern) {
    case Heads::short_random: return generate_heads(n, 8, Lengths::random, seed);
    case Heads::long_random: return generate_heads(n, 300, Lengths::random, seed);
    default: break;
  }
  std::vector<std::uint8_t> heads(static_cast<std::size_t>(n), pattern == Heads::every_element ? 1 : 0);
  heads[0] = 1;
  if (pattern == Heads::one_split) heads[static_cast<std::size_t>(n / 2)] = 1;
  if (pattern == Heads::tile_edges && tile > 2) {
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t r = i % tile;
      heads[static_cast<std::size_t>(i)] |= static_cast<std::uint8_t>(r == 0 || r == 1 || r == tile - 1);
    }
  }
  return heads;
}

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
        const bool large = n > kEveryPairUpTo;
        for (Heads pattern : {Heads::every_element, Heads::short_random, Heads::long_random, Heads::tile_edges,
                              Heads::one_split}) {
          if (large && (pattern == Heads::every_element || pattern == Heads::long_random)) continue;
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

}  // namespace

void run_generic_suite(const Chapter& chapter) {
  if (chapter.where == Where::device) require_gpu();
  for (const Variant& v : chapter.variants) {
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

}  // namespace scan::test
