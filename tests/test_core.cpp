// Tests of scan_core: the operators, the workspace, CUDA errors, every
// chapter's registry entries (well formed on the CPU; each variant run once
// through the registry on the GPU, unaligned arrays, seeds), and the message
// a GPU too old for a chapter gets.
#include "support.hpp"

#include <scan/baselines.hpp>
#include <scan/device_buffer.hpp>
#include <scan/error.hpp>
#include <scan/generate.hpp>
#include <scan/oracle.hpp>
#include <scan/registry.hpp>
#include <scan/segments.hpp>
#include <scan/verify.hpp>

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

TEST_CASE("operators have identities on both sides", "[cpu][ops]") {
  for_each_combo<ScanCombos>([]<class T, class Op>() {
    const Op op;
    for (T x : generate_input<T>(100, 7)) {
      CHECK(op(Op::template identity<T>(), x) == x);
      CHECK(op(x, Op::template identity<T>()) == x);
    }
  });
  CHECK(Max::identity<float>() == -std::numeric_limits<float>::infinity());
  CHECK(Min::identity<std::int32_t>() == std::numeric_limits<std::int32_t>::max());
}

TEST_CASE("affine composition is associative but not commutative", "[cpu][ops]") {
  const AffineCompose op;
  const auto words = generate_input<std::uint32_t>(300, 11);
  for (std::size_t i = 0; i + 2 < words.size(); i += 3) {
    const auto f = words[i], g = words[i + 1], h = words[i + 2];
    CHECK(op(op(f, g), h) == op(f, op(g, h)));
  }
  int differ = 0;
  for (std::size_t i = 0; i + 1 < words.size(); i += 2) differ += op(words[i], words[i + 1]) != op(words[i + 1], words[i]);
  CHECK(differ > 140);  // almost every random pair fails to commute
  // op(f, g) means "first f, then g": f(x) = 3x + 1, g(x) = 2x + 5, g(f(x)) = 6x + 7.
  CHECK(op((3u << 16) | 1u, (2u << 16) | 5u) == ((6u << 16) | 7u));
}

TEST_CASE("a workspace measures and then hands out the same layout", "[cpu][registry]") {
  Workspace measuring;
  CHECK(measuring.take<float>(10) == nullptr);
  CHECK(measuring.take<double>(3) == nullptr);
  const std::size_t needed = measuring.used();
  CHECK(needed == Workspace::kAlignment + 3 * sizeof(double));

  std::vector<std::byte> memory(needed);
  Workspace real(memory.data(), memory.size());
  auto* a = real.take<float>(10);
  auto* b = real.take<double>(3);
  CHECK(reinterpret_cast<std::byte*>(a) == memory.data());
  CHECK(reinterpret_cast<std::byte*>(b) == memory.data() + Workspace::kAlignment);
  CHECK_THROWS_AS(real.take<char>(1), std::logic_error);
}

TEST_CASE("CUDA failures become readable errors", "[cpu][error]") {
  try {
    check_cuda(cudaErrorInvalidValue, "cudaMemcpy(a, b, n, kind)", "/x/y/file.cu", 42);
    FAIL("no exception");
  } catch (const CudaError& e) {
    CHECK(e.code() == cudaErrorInvalidValue);
    CHECK_THAT(std::string(e.what()), ContainsSubstring("cudaErrorInvalidValue"));
    CHECK_THAT(std::string(e.what()), ContainsSubstring("cudaMemcpy(a, b, n, kind) at file.cu:42"));
  }
  CHECK_NOTHROW(check_cuda(cudaSuccess, "fine", "f", 1));
}

TEST_CASE("every chapter's registry is well formed", "[cpu][registry]") {
  std::set<std::string> programs;
  for (const Chapter* chapter : all_chapters()) {
    INFO(chapter->program());
    CHECK(programs.insert(chapter->program()).second);
    CHECK_FALSE(chapter->variants.empty());
    std::set<std::string> names;
    for (const Variant& v : chapter->variants) {
      INFO(v.info.name);
      CHECK(names.insert(v.info.name).second);
      CHECK_FALSE(v.info.summary.empty());
      CHECK(v.info.name.find_first_of(" ,") == std::string::npos);  // CSV- and CLI-safe
      CHECK((v.info.max_n == kNoLimit || !v.info.max_n_reason.empty()));
      if (!v.info.tuning) {
        // A variant claims a generic operator: it is built for every pair.
        for (DType d : kAllDTypes) {
          for (OpId op : kAllOps) CHECK(v.supports(d, op) == combo_index(d, op).has_value());
        }
      }
    }
  }
}

namespace {

/// workspace_bytes(..., 0) == workspace_bytes(..., the default block) for every
/// pair the variant was built for. False when the size depends on a device
/// and there is none (a grid sized by the SMs).
bool default_block_workspace_matches(const Variant& v) {
  try {
    for (DType d : kAllDTypes) {
      for (OpId op : kAllOps) {
        if (!v.supports(d, op)) continue;
        for (std::int64_t n : {std::int64_t{1}, std::int64_t{1000}, (std::int64_t{1} << 20) + 7}) {
          if (n > v.info.max_n) continue;
          const std::size_t by_default = v.workspace_bytes(d, op, n, 0);  // outside CHECK, which would catch
          CHECK(by_default == v.workspace_bytes(d, op, n, v.info.block));
        }
      }
    }
  } catch (const CudaError&) {
    if (test::gpu_status().available) throw;
    return false;
  }
  return true;
}

}  // namespace

TEST_CASE("a block of 0 asks for each variant's default workspace", "[cpu][registry]") {
  for (const Chapter* chapter : all_chapters()) {
    for (const Variant& v : chapter->variants) {
      INFO(chapter->program() << " " << v.info.name);
      // A size that needs the device is checked by the GPU test below.
      (void)default_block_workspace_matches(v);
      // A block the variant cannot run is an exception, not a crash in a kernel launch.
      if (v.info.takes_block) {
        CHECK_THROWS_AS(v.workspace_bytes(DType::i32, OpId::add, 1000, 3), std::invalid_argument);
        ErasedRequest bad;
        bad.n = 1000;
        bad.block_threads = 2048;
        CHECK_THROWS_AS(v.run(DType::i32, OpId::add, bad), std::invalid_argument);
      }
    }
  }
}

TEST_CASE("every variant runs from a default-constructed request", "[gpu][registry]") {
  test::require_gpu();
  std::vector<std::pair<std::string, const Variant*>> all = {
      {"baseline", &cub_variant()}, {"baseline", &thrust_variant()}, {"baseline", &cub_by_key_variant()}};
  for (const Chapter* chapter : all_chapters()) {
    if (!test::gpu_meets(chapter->needs, chapter->program())) continue;
    for (const Variant& v : chapter->variants) all.emplace_back(chapter->program(), &v);
  }
  for (const auto& [program, v] : all) {
    if (!v->supports(DType::i32, OpId::add)) continue;
    const std::int64_t n = std::min<std::int64_t>(v->info.max_n, 100003);
    INFO(program << " " << v->info.name << ", n = " << n);
    const std::vector<std::int32_t> input = generate_input<std::int32_t>(n, 12);
    const std::size_t size = static_cast<std::size_t>(n);
    CHECK(default_block_workspace_matches(*v));
    const std::size_t workspace_bytes = v->workspace_bytes(DType::i32, OpId::add, n, 0);
    // Only what a call cannot do without: block_threads, kind, stream and trace keep their defaults.
    ErasedRequest request;
    request.n = n;
    std::vector<std::int32_t> output(size);
    // A segmented variant gets the one thing it cannot do without: its
    // segments (here random ones).
    const std::vector<std::uint8_t> heads = v->info.segmented ? generate_heads(n, 100, Lengths::random, 5)
                                                              : std::vector<std::uint8_t>{};
    if (v->where == Where::device) {
      DeviceBuffer<std::int32_t> in(input), out(size);
      DeviceBuffer<std::byte> workspace(workspace_bytes);
      DeviceBuffer<std::uint8_t> d_heads(heads);
      DeviceBuffer<std::int32_t> d_keys(keys_from_heads(heads));
      SCAN_CUDA(cudaMemset(out.data(), poison_byte<std::int32_t>(), out.bytes()));
      request.in = in.data();
      request.out = out.data();
      request.workspace = Workspace(workspace.data(), workspace_bytes);
      if (v->info.segmented) {
        request.heads = d_heads.data();
        request.keys = d_keys.data();
      }
      v->run(DType::i32, OpId::add, request);
      output = out.to_host();
    } else {
      std::vector<std::byte> workspace(workspace_bytes);
      std::memset(output.data(), poison_byte<std::int32_t>(), size * sizeof(std::int32_t));
      request.in = input.data();
      request.out = output.data();
      request.workspace = Workspace(workspace.data(), workspace_bytes);
      v->run(DType::i32, OpId::add, request);
    }
    const Restarts restarts = v->info.segmented ? Restarts(heads.data()) : Restarts(v->info.segment);
    const VerifyReport report = verify_scan(input, output, Kind::inclusive, Add{}, restarts);
    INFO(report.describe());
    CHECK(report.ok);
  }
}

namespace {

/// Runs `v` on arrays that start one element past a 16-byte boundary and
/// checks the result: vector loads and bulk copies must notice and fall back.
template <class T, class Op>
void check_unaligned(const std::string& program, const Variant& v, std::int64_t n, Kind kind) {
  if (!v.supports(dtype_of<T>(), op_id_of<Op>()) || n > v.info.max_n) return;
  INFO(program << " " << v.info.name << ", n = " << n << ", " << dtype_name(dtype_of<T>()) << " "
               << op_name(op_id_of<Op>()) << " " << kind_name(kind) << ", arrays one element off alignment");
  const std::vector<T> input = generate_input<T>(n, 31 + n);
  const std::vector<std::uint8_t> heads = v.info.segmented ? generate_heads(n, 100, Lengths::random, 6)
                                                           : std::vector<std::uint8_t>{};
  const std::size_t size = static_cast<std::size_t>(n);
  std::vector<T> padded(size + 1);
  std::copy(input.begin(), input.end(), padded.begin() + 1);
  DeviceBuffer<T> in(padded), out(size + 1);
  DeviceBuffer<std::uint8_t> d_heads(heads);
  DeviceBuffer<std::int32_t> d_keys(keys_from_heads(heads));
  const std::size_t workspace_bytes = v.workspace_bytes(dtype_of<T>(), op_id_of<Op>(), n, 0);
  DeviceBuffer<std::byte> workspace(workspace_bytes);
  SCAN_CUDA(cudaMemset(out.data(), poison_byte<T>(), out.bytes()));
  ErasedRequest request;
  request.in = in.data() + 1;
  request.out = out.data() + 1;
  request.n = n;
  request.kind = kind;
  request.workspace = Workspace(workspace.data(), workspace_bytes);
  if (v.info.segmented) {
    request.heads = d_heads.data();
    request.keys = d_keys.data();
  }
  v.run(dtype_of<T>(), op_id_of<Op>(), request);
  const std::vector<T> all = out.to_host();
  const std::vector<T> output(all.begin() + 1, all.end());
  const Restarts restarts = v.info.segmented ? Restarts(heads.data()) : Restarts(v.info.segment);
  CHECK(verify_scan(input, output, kind, Op{}, restarts).describe() == "");
}

}  // namespace

TEST_CASE("every GPU variant scans arrays that are not 16-byte aligned", "[gpu][registry]") {
  test::require_gpu();
  for (const Chapter* chapter : all_chapters()) {
    if (chapter->where != Where::device || !test::gpu_meets(chapter->needs, chapter->program())) continue;
    for (const Variant& v : chapter->variants) {
      for (std::int64_t n : {std::int64_t{4097}, std::int64_t{100003}}) {
        check_unaligned<std::int32_t, Add>(chapter->program(), v, n, Kind::inclusive);
        check_unaligned<std::uint32_t, AffineCompose>(chapter->program(), v, n, Kind::exclusive);
        check_unaligned<double, Add>(chapter->program(), v, n, Kind::inclusive);
      }
    }
  }
}

TEST_CASE("variants that take a seed put it on the left of every output", "[gpu][registry][hopper]") {
  test::require_gpu(test::chapter_by_number("11").needs);  // the seeded variants are chapter 11's bulk recipes
  for (const Chapter* chapter : all_chapters()) {
    for (const Variant& v : chapter->variants) {
      if (!v.info.takes_seed || !v.supports(DType::u32, OpId::affine)) continue;
      for (std::int64_t n : {std::int64_t{1}, std::int64_t{4097}, std::int64_t{1000003}}) {
        for (Kind kind : {Kind::inclusive, Kind::exclusive}) {
          INFO(chapter->program() << " " << v.info.name << ", n = " << n << ", " << kind_name(kind));
          const std::vector<std::uint32_t> input = generate_input<std::uint32_t>(n, 71 + n);
          const std::uint32_t seed = (3u << 16) | 11u;  // x -> 3x + 11, composed first
          std::vector<std::uint32_t> expected(static_cast<std::size_t>(n));
          reference_scan(input.data(), expected.data(), n, kind, AffineCompose{});
          for (auto& e : expected) e = AffineCompose{}(seed, e);
          DeviceBuffer<std::uint32_t> in(input), out(expected.size());
          DeviceBuffer<std::uint32_t> d_seed(std::vector<std::uint32_t>{seed});
          const std::size_t bytes = v.workspace_bytes(DType::u32, OpId::affine, n, 0);
          DeviceBuffer<std::byte> workspace(bytes);
          ErasedRequest request;
          request.in = in.data();
          request.out = out.data();
          request.n = n;
          request.kind = kind;
          request.workspace = Workspace(workspace.data(), bytes);
          request.seed = d_seed.data();
          v.run(DType::u32, OpId::affine, request);
          CHECK(out.to_host() == expected);
        }
      }
    }
  }
}

TEST_CASE("a GPU older than a chapter needs gets one line naming both", "[cpu][arch]") {
  const ArchitectureNeed hopper = test::chapter_by_number("11").needs;
  REQUIRE(hopper.sm == 90);
  CHECK(test::chapter_by_number("12").needs.sm == 90);
  for (const char* number : {"02", "06", "10"}) CHECK(test::chapter_by_number(number).needs.sm == 0);

  DeviceInfo t4;
  t4.name = "Tesla T4";
  t4.cc_major = 7;
  t4.cc_minor = 5;
  CHECK_THROWS_WITH(require_architecture("ch11_copy_ceiling", hopper, t4),
                    "ch11_copy_ceiling needs a Hopper GPU (sm_90 or newer: bulk copies and mbarriers); "
                    "this is Tesla T4 (sm_75). Chapters 00 to 10 and 15 run here.");
  CHECK_THROWS_AS(require_architecture("ch11_copy_ceiling", hopper, t4), UnsupportedGpu);
  CHECK_NOTHROW(require_architecture("ch02_naive_global", ArchitectureNeed{}, t4));

  DeviceInfo h100;
  h100.name = "NVIDIA H100 80GB HBM3";
  h100.cc_major = 9;
  h100.cc_minor = 0;
  CHECK_NOTHROW(require_architecture("ch11_copy_ceiling", hopper, h100));
  DeviceInfo rtx5090 = h100;  // newer than the need: runs (through PTX JIT or its own code)
  rtx5090.cc_major = 12;
  CHECK_NOTHROW(require_architecture("ch11_copy_ceiling", hopper, rtx5090));

  // The test hook answers as an older GPU would, and only ever older.
  ::setenv("SCAN_PRETEND_SM", "80", 1);
  CHECK(checked_sm(h100) == 80);
  CHECK_THROWS_WITH(require_architecture("ch12_segmented", hopper, h100),
                    ContainsSubstring("this is NVIDIA H100 80GB HBM3 (sm_80, as SCAN_PRETEND_SM says)."));
  ::setenv("SCAN_PRETEND_SM", "100", 1);
  CHECK(checked_sm(h100) == 90);
  ::setenv("SCAN_PRETEND_SM", "sm75", 1);
  CHECK_THROWS_AS(checked_sm(h100), UsageError);
  ::unsetenv("SCAN_PRETEND_SM");
  CHECK(checked_sm(t4) == 75);
}
