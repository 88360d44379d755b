// Chapter 11 beyond the generic suite: the grouped look-back on tile states
// laid out by hand (a real scan walks past more than 32 groups only when
// its timing happens to leave that many unpublished, so the walk's second
// path, the farther groups loaded again, gets a test of its own here), and
// deterministic at the sizes where its dispatch leaves overlapped for a
// thin last round, with every 4-byte operator (the generic suite's large
// sizes never reach those recipes).
#include "copy_ceiling.cuh"
#include "support.hpp"

#include <scan/device_buffer.hpp>
#include <scan/generate.hpp>
#include <scan/harness.hpp>
#include <scan/verify.hpp>

#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

using namespace scan;

namespace {

using Word = std::uint32_t;  // an affine map x -> a x + b mod 2^16: a non-commutative, exact operator

/// A random map with an odd factor a (bit 16 set). An even factor loses a
/// bit of x for good, so a chain of a few dozen random maps would forget
/// everything before it, and the far groups would not count.
Word random_map(std::uint64_t stream, std::uint64_t i) {
  return static_cast<Word>(random_bits(stream, i)) | 0x10000u;
}
using State = ch10::PackedTileState<Word>;

/// Tile `tile`'s look-back by one warp over the states laid out in `state`:
/// result[0] the exclusive prefix, [1] the inclusive one, [2] whether the
/// tile would publish it.
template <int Batch>
__global__ void resolve_one_tile(State state, unsigned tile, Word aggregate, Word seed, Word* result) {
  const ch11::Resolved<Word> r =
      ch11::GroupedWalk<Batch>::template resolve<Word>(state, tile, aggregate, AffineCompose{}, ch10::kSpin, seed);
  if (threadIdx.x == 0) {
    result[0] = r.exclusive;
    result[1] = r.inclusive;
    result[2] = r.publish ? 1 : 0;
  }
}

/// One 64-bit packed state word: the status above the value's bits.
unsigned long long word_of(ch10::Status status, Word value) {
  return (static_cast<unsigned long long>(status) << 32) | value;
}

/// What `tile`'s walk must find when the states before it hold `aggregates`
/// and, if `prefix_group` >= 0, that group's last tile has published its
/// group prefix (and every state before that group holds a wrong value,
/// which the walk must not read).
template <int Batch>
void check_walk(unsigned tile, int prefix_group) {
  const AffineCompose op;
  std::vector<Word> aggregates(tile + 1);
  for (unsigned t = 0; t <= tile; ++t) aggregates[t] = random_map(31, t);
  const Word seed = random_map(32, tile);
  // Prefixes by the definition: the seed, then every aggregate in order.
  std::vector<Word> inclusive(tile + 1);
  Word running = seed;
  for (unsigned t = 0; t <= tile; ++t) inclusive[t] = running = op(running, aggregates[t]);
  // The maps compose associatively (grouped from the right: the same
  // result), but do not commute on these inputs (in reverse order: another
  // result), so a walk that combined them out of order would show.
  Word from_right = aggregates[tile];
  for (unsigned t = tile; t-- > 0;) from_right = op(aggregates[t], from_right);
  REQUIRE(op(seed, from_right) == inclusive[tile]);
  Word backwards = seed;
  for (unsigned t = tile + 1; t-- > 0;) backwards = op(backwards, aggregates[t]);
  if (tile > 0) REQUIRE(backwards != inclusive[tile]);
  // Every aggregate counts, tile 0's too: with another map there the
  // prefix differs, so a walk that lost a far group would show.
  if (tile > 0) {
    Word other = op(seed, random_map(34, 0));
    for (unsigned t = 1; t <= tile; ++t) other = op(other, aggregates[t]);
    REQUIRE(other != inclusive[tile]);
  }

  std::vector<unsigned long long> words(tile + 1, word_of(ch10::Status::empty, 0));
  for (unsigned t = 0; t < tile; ++t) words[t] = word_of(ch10::Status::aggregate, aggregates[t]);
  if (prefix_group >= 0) {
    const unsigned last = static_cast<unsigned>(prefix_group) * kWarpSize + kWarpSize - 1;
    words[last] = word_of(ch10::Status::prefix, inclusive[last]);
    for (unsigned t = 0; t + kWarpSize <= last; ++t) {
      words[t] = word_of(ch10::Status::aggregate, random_map(33, t));
    }
  }
  DeviceBuffer<unsigned long long> d_words(words);
  DeviceBuffer<Word> d_result(3);
  resolve_one_tile<Batch><<<1, kWarpSize>>>(State{d_words.data()}, tile, aggregates[tile], seed, d_result.data());
  SCAN_CUDA(cudaGetLastError());
  const std::vector<Word> result = d_result.to_host();

  INFO("tile " << tile << ", " << Batch << " groups per trip, group prefix published by group " << prefix_group);
  CHECK(result[0] == (tile == 0 ? seed : inclusive[tile - 1]));
  CHECK(result[1] == inclusive[tile]);
  CHECK(result[2] == (tile % kWarpSize == kWarpSize - 1 ? 1u : 0u));
}

template <int Batch>
void check_walks() {
  // Within group 0; the first tiles of groups 1 and 2; past 33, 40 and 70
  // groups of aggregates alone (more than 32: the farther ones loaded again).
  for (unsigned tile : {0u, 5u, 31u, 32u, 64u, 33u * 32 + 5, 40u * 32 + 31, 70u * 32}) check_walk<Batch>(tile, -1);
  // A published group prefix one, three and 39 groups back.
  check_walk<Batch>(10 * 32 + 7, 8);
  check_walk<Batch>(10 * 32, 6);
  check_walk<Batch>(50 * 32 + 7, 10);
}

}  // namespace

TEST_CASE("the grouped walk past more than 32 groups and from a group prefix, in order", "[gpu][ch11]") {
  test::require_gpu(ch11::kNeedsHopper);
  check_walks<1>();
  check_walks<2>();  // kGroupedPerTile's
  check_walks<4>();  // kGroupedPerTileH200's and the rings'
}

namespace {

/// The name of the recipe deterministic runs for n elements of T combined by Op, unseeded.
template <class T, class Op>
std::string deterministic_recipe(std::int64_t n) {
  std::string name;
  ch11::Deterministic::dispatch<T, Op>(n, /*seeded=*/false,
                                       [&]<ch11::Recipe R>() { name = ch11::CopyCeiling<R>::info().name; });
  return name;
}

}  // namespace

TEST_CASE("deterministic where overlapped's last round is thin, every 4-byte operator", "[gpu][ch11]") {
  test::require_gpu(ch11::kNeedsHopper);
  const Variant* deterministic = ch11::chapter().find("deterministic");
  REQUIRE(deterministic != nullptr);
  const bool h200 = ch11::tuned_on_current_device() == ch11::TunedOn::h200;
  const std::string ring = ch11::CopyCeiling<ch11::early_launch(ch11::kOverlappedSmall)>::info().name;
  const std::string walk = ch11::CopyCeiling<ch11::early_launch(ch11::kGroupedPerTileSmallH200)>::info().name;
  // Odd sizes just past two rounds of overlapped's tiles (4.75 and 5 * 2^20
  // elements: last rounds 5% and 16% full on 132 SMs), and just past
  // three (7 * 2^20: 2%), where the H200 too takes the ring. At 5 * 2^20
  // the H200's choice depends on how many blocks of the walk an SM holds
  // (the affine maps need more registers than the sums), so either will do.
  struct Case {
    std::int64_t n;
    std::vector<std::string> recipes;  // what the dispatch may choose, so the case tests what it says
  };
  const Case cases[] = {{(std::int64_t{19} << 18) + 3, {h200 ? walk : ring}},
                        {(std::int64_t{5} << 20) + 3, h200 ? std::vector<std::string>{walk, ring} : std::vector{ring}},
                        {(std::int64_t{7} << 20) + 3, {ring}}};
  for_each_combo<ScanCombos>([&]<class T, class Op>() {
    if constexpr (sizeof(T) == 4) {
      for (const Case& c : cases) {
        INFO("n = " << c.n << ", " << dtype_name(dtype_of<T>()) << " " << op_name(op_id_of<Op>()));
        const std::string recipe = deterministic_recipe<T, Op>(c.n);
        INFO("deterministic runs " << recipe);
        REQUIRE(std::find(c.recipes.begin(), c.recipes.end(), recipe) != c.recipes.end());
        // Real-valued float sums round, so the two runs below can only
        // agree bit for bit if the order of additions is fixed.
        const Distribution dist = std::is_floating_point_v<T> ? Distribution::real_valued : Distribution::typical;
        Harness<T> harness(Where::device, generate_input<T>(c.n, 4242 + static_cast<std::uint64_t>(c.n), dist));
        for (Kind kind : {Kind::inclusive, Kind::exclusive}) {
          INFO(kind_name(kind));
          const std::vector<T> first = harness.run_once(*deterministic, op_id_of<Op>(), kind, 0, nullptr);
          CHECK(verify_scan(harness.input(), first, kind, Op{}, harness.restarts(0)).describe() == "");
          const std::vector<T>& second = harness.run_once(*deterministic, op_id_of<Op>(), kind, 0, nullptr);
          CHECK(std::memcmp(first.data(), second.data(), first.size() * sizeof(T)) == 0);
        }
      }
    }
  });
}
