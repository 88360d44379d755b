// Chapter 12 beyond the generic suite: segments given as offsets, and the
// worked example of the reading.
#include "segmented.cuh"
#include "support.hpp"

#include <scan/device_buffer.hpp>
#include <scan/generate.hpp>
#include <scan/harness.hpp>
#include <scan/segments.hpp>
#include <scan/verify.hpp>

#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

using namespace scan;

TEST_CASE("segment offsets become head flags", "[gpu][ch12]") {
  test::require_gpu(ch11::kNeedsHopper);
  const std::int64_t n = 100003;
  // Sorted offsets with repeats (empty segments) and one past the end.
  std::vector<std::int64_t> offsets = {0, 0, 5, 5, 6, 4095, 4096, 4097, n - 1, n};
  for (std::uint64_t k = 0; k < 500; ++k) offsets.push_back(static_cast<std::int64_t>(random_bits(9, k) % n));
  std::sort(offsets.begin(), offsets.end());
  std::vector<std::uint8_t> expected(static_cast<std::size_t>(n), 0);
  expected[0] = 1;
  for (std::int64_t o : offsets) {
    if (o < n) expected[static_cast<std::size_t>(o)] = 1;
  }
  DeviceBuffer<std::int64_t> d_offsets(offsets);
  DeviceBuffer<std::uint8_t> d_heads(static_cast<std::size_t>(n));
  SCAN_CUDA(cudaMemset(d_heads.data(), 0xA5, d_heads.bytes()));
  ch12::offsets_to_heads(d_offsets.data(), static_cast<std::int64_t>(offsets.size()), n, d_heads.data(), nullptr);
  CHECK(d_heads.to_host() == expected);

  // And the scan over those segments is right.
  const Variant* direct = ch12::chapter().find("direct");
  REQUIRE(direct != nullptr);
  Harness<std::int32_t> harness(Where::device, generate_input<std::int32_t>(n, 4), expected);
  const auto& out = harness.run_once(*direct, OpId::add, Kind::exclusive, 0, nullptr);
  CHECK(verify_scan(harness.input(), out, Kind::exclusive, Add{}, harness.restarts(0)).describe() == "");
}

TEST_CASE("the reading's worked example of a segmented scan", "[gpu][ch12]") {
  test::require_gpu(ch11::kNeedsHopper);
  // Seed 004, section 1.3.2: [[3 1] [7 0 4] [1 6] [3]].
  const std::vector<std::int32_t> values = {3, 1, 7, 0, 4, 1, 6, 3};
  const std::vector<std::uint8_t> heads = {1, 0, 1, 0, 0, 1, 0, 1};
  for (const char* name : {"transformed", "direct", "by-key", "bulk", "bulk-by-key"}) {
    const Variant* v = ch12::chapter().find(name);
    REQUIRE(v != nullptr);
    Harness<std::int32_t> harness(Where::device, values, heads);
    CHECK(harness.run_once(*v, OpId::add, Kind::inclusive, 0, nullptr) ==
          std::vector<std::int32_t>{3, 4, 7, 7, 11, 1, 7, 3});
    CHECK(harness.run_once(*v, OpId::add, Kind::exclusive, 0, nullptr) ==
          std::vector<std::int32_t>{0, 3, 0, 7, 7, 0, 1, 0});
  }
}

// ---------------------------------------------------------------------------
// The bulk kernels (`bulk`, `bulk-by-key` and their tuning points): the
// places where their pieces meet. The generic suite runs them too; these
// cases aim at what it does not name: sizes around the ring's stages and
// the look-back's groups of 32 tiles, heads on group edges, and flags that
// cannot travel in bulk while the values can.

namespace {

/// Where the segments start, for the bulk kernels' edge cases.
enum class Edges {
  every_element,  ///< every element a head: no tile ever looks back
  first_only,     ///< one segment: the walk is a plain scan's
  tile_edges,     ///< a head on each tile's first element, and one before and one after it
  group_edges,    ///< a head only on the first element of every 32nd tile (a look-back group's first)
  before_group,   ///< a head only on the last element of every 32nd tile's predecessor
  last_tile,      ///< element 0, and the middle of the last tile
  short_random,   ///< geometric lengths, mean 8
  long_random,    ///< geometric lengths, mean 3 tiles
};

const char* edges_name(Edges e) {
  switch (e) {
    case Edges::every_element: return "every element a head";
    case Edges::first_only: return "one segment";
    case Edges::tile_edges: return "heads at tile edges, one before and after";
    case Edges::group_edges: return "heads at the first tile of every group of 32";
    case Edges::before_group: return "heads on the element before every group of 32";
    case Edges::last_tile: return "a head in the last tile only";
    case Edges::short_random: return "random lengths, mean 8";
    case Edges::long_random: return "random lengths, mean 3 tiles";
  }
  return "?";
}

std::vector<std::uint8_t> edge_heads(Edges e, std::int64_t n, std::int64_t tile, std::uint64_t seed) {
  if (e == Edges::short_random) return generate_heads(n, 8, Lengths::random, seed);
  if (e == Edges::long_random) return generate_heads(n, 3.0 * static_cast<double>(tile), Lengths::random, seed);
  std::vector<std::uint8_t> heads(static_cast<std::size_t>(n), e == Edges::every_element ? 1 : 0);
  const std::int64_t group = 32 * tile;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t r = i % tile;
    bool head = false;
    if (e == Edges::tile_edges) head = r == 0 || r == 1 || r == tile - 1;
    if (e == Edges::group_edges) head = i % group == 0;
    if (e == Edges::before_group) head = i % group == group - 1;
    if (head) heads[static_cast<std::size_t>(i)] = 1;
  }
  if (e == Edges::last_tile) heads[static_cast<std::size_t>((n - 1) / tile * tile + (n - 1) % tile / 2)] = 1;
  heads[0] = 1;
  return heads;
}

template <class T, class Op>
void check_bulk(const Variant& v, std::int64_t n, Edges e, Kind kind) {
  if (!v.supports(dtype_of<T>(), op_id_of<Op>())) return;
  const std::uint64_t seed = static_cast<std::uint64_t>(n) * 16 + static_cast<std::uint64_t>(e);
  Harness<T> harness(Where::device, generate_input<T>(n, seed), edge_heads(e, n, v.tile_for(0), seed));
  const std::vector<T>& out = harness.run_once(v, op_id_of<Op>(), kind, 0, nullptr);
  INFO(v.info.name << ": n = " << n << " (" << n / v.tile_for(0) << " whole tiles), " << dtype_name(dtype_of<T>())
                   << " " << op_name(op_id_of<Op>()) << " " << kind_name(kind) << ", " << edges_name(e));
  CHECK(verify_scan(harness.input(), out, kind, Op{}, harness.restarts(0)).describe() == "");
}

bool is_bulk(const Variant& v) { return v.info.name.rfind("bulk", 0) == 0; }

}  // namespace

TEST_CASE("the bulk segmented scans around tiles, stages and look-back groups", "[gpu][ch12]") {
  test::require_gpu(ch11::kNeedsHopper);
  int checked = 0;
  for (const Variant& v : ch12::chapter().variants) {
    if (!is_bulk(v)) continue;
    ++checked;
    const std::int64_t tile = v.tile_for(0);
    // Up to eight tiles: every ring depth sees a partial last stage, a
    // block with no second tile, and a block that runs out mid-ring. Then
    // the edges of the first groups of 32 tiles, and a walk longer than
    // one trip of groups.
    std::vector<std::int64_t> sizes = {1, 2, 31, 33, 1000};
    for (std::int64_t k = 1; k <= 8; ++k) sizes.insert(sizes.end(), {k * tile - 1, k * tile, k * tile + 1});
    for (std::int64_t k : {31, 32, 33, 64, 65}) sizes.insert(sizes.end(), {k * tile - 1, k * tile + 1});
    sizes.push_back(200 * tile + 7);
    for (std::int64_t n : sizes) {
      for (Edges e : {Edges::every_element, Edges::first_only, Edges::tile_edges, Edges::group_edges,
                      Edges::before_group, Edges::last_tile, Edges::short_random, Edges::long_random}) {
        for (Kind kind : {Kind::inclusive, Kind::exclusive}) {
          check_bulk<std::int32_t, Add>(v, n, e, kind);
          // The non-commutative operator and 8-byte values (16-byte tile
          // states) on the variants built for them, at fewer sizes.
          if (n % tile == 1 || n < tile) {
            check_bulk<std::uint32_t, AffineCompose>(v, n, e, kind);
            check_bulk<double, Add>(v, n, e, kind);
          }
        }
      }
    }
  }
  CHECK(checked >= 2);  // bulk and bulk-by-key at least
}

TEST_CASE("the bulk segmented scan reads head flags off a 16-byte boundary", "[gpu][ch12]") {
  test::require_gpu(ch11::kNeedsHopper);
  // Values and output aligned, flags not (and the other way round is the
  // registry's unaligned test): the flags cannot travel by bulk copy, and
  // the kernel must notice and read every tile directly.
  for (const Variant& v : ch12::chapter().variants) {
    if (!is_bulk(v) || !v.supports(DType::i32, OpId::add)) continue;
    for (std::int64_t n : {std::int64_t{4097}, std::int64_t{100003}}) {
      for (std::int64_t offset : {1, 16}) {
        INFO(v.info.name << ": n = " << n << ", flags " << offset << " bytes past an aligned address");
        const std::vector<std::int32_t> input = generate_input<std::int32_t>(n, 41 + n);
        const std::vector<std::uint8_t> heads = generate_heads(n, 100, Lengths::random, 7);
        std::vector<std::uint8_t> padded(static_cast<std::size_t>(n + offset), 0);
        std::copy(heads.begin(), heads.end(), padded.begin() + offset);
        std::vector<std::int32_t> keys = keys_from_heads(heads);
        keys.insert(keys.begin(), static_cast<std::size_t>(offset), 0);
        DeviceBuffer<std::int32_t> in(input), out(static_cast<std::size_t>(n));
        DeviceBuffer<std::uint8_t> d_heads(padded);
        DeviceBuffer<std::int32_t> d_keys(keys);
        const std::size_t bytes = v.workspace_bytes(DType::i32, OpId::add, n, 0);
        DeviceBuffer<std::byte> workspace(bytes);
        SCAN_CUDA(cudaMemset(out.data(), poison_byte<std::int32_t>(), out.bytes()));
        ErasedRequest request;
        request.in = in.data();
        request.out = out.data();
        request.n = n;
        request.kind = Kind::exclusive;
        request.workspace = Workspace(workspace.data(), bytes);
        request.heads = d_heads.data() + offset;
        request.keys = d_keys.data() + offset;
        v.run(DType::i32, OpId::add, request);
        CHECK(verify_scan(input, out.to_host(), Kind::exclusive, Add{}, Restarts(heads.data())).describe() == "");
      }
    }
  }
}

TEST_CASE("the bulk segmented scan gives the per-tile kernel's output", "[gpu][ch12]") {
  test::require_gpu(ch11::kNeedsHopper);
  // Integer sums are exact whatever the order: the two kernels must agree
  // bit for bit, at a size of many groups and with segments of every length.
  const Variant* direct = ch12::chapter().find("direct");
  const Variant* bulk = ch12::chapter().find("bulk");
  REQUIRE(direct != nullptr);
  REQUIRE(bulk != nullptr);
  const std::int64_t n = (std::int64_t{1} << 22) + 3;
  for (double mean : {1.0, 8.0, 256.0, 65536.0, 1e9}) {
    INFO("mean segment length " << mean);
    Harness<std::int32_t> harness(Where::device, generate_input<std::int32_t>(n, 9),
                                  generate_heads(n, mean, Lengths::random, 10));
    const std::vector<std::int32_t> expected = harness.run_once(*direct, OpId::add, Kind::inclusive, 0, nullptr);
    CHECK(harness.run_once(*bulk, OpId::add, Kind::inclusive, 0, nullptr) == expected);
  }
}
