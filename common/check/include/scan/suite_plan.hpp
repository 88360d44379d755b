/// \file
/// \brief The generic suite's plan: which sizes, which (type, operator)
///        pairs at the large sizes, which seeds and which segment patterns
///        a variant is checked with.
///
/// One copy, used by the test suite (tests/support.cpp) and by the
/// classroom kit's grader (kit/grader/suite.cu), so that a student's
/// variant meets exactly the cases the tutorial's own variants meet.
#pragma once

#include <scan/generate.hpp>
#include <scan/registry.hpp>
#include <scan/segments.hpp>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace scan::suite_plan {

/// The sizes every (type, operator, kind) is checked at; larger ones use a
/// few representative pairs only (they cost most of the suite's time).
inline constexpr std::int64_t kEveryPairUpTo = 1 << 18;

/// The pairs checked above kEveryPairUpTo: one per type, the
/// non-commutative operator among them.
inline bool large_size_pair(DType dtype, OpId op) {
  return (dtype == DType::i32 && op == OpId::add) || (dtype == DType::f32 && op == OpId::add) ||
         (dtype == DType::u32 && op == OpId::affine) || (dtype == DType::i64 && op == OpId::max) ||
         (dtype == DType::f64 && op == OpId::min);
}

/// A seed per case, from the case's identity (FNV-1a), so that every case
/// has its own input and a failure can be rerun alone.
inline std::uint64_t seed_for(const std::string& name, DType dtype, OpId op, Kind kind, std::int64_t n) {
  std::uint64_t h = 1469598103934665603ull;
  for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  h = (h ^ static_cast<std::uint64_t>(dtype)) * 1099511628211ull;
  h = (h ^ static_cast<std::uint64_t>(op)) * 1099511628211ull;
  h = (h ^ static_cast<std::uint64_t>(kind)) * 1099511628211ull;
  return (h ^ static_cast<std::uint64_t>(n)) * 1099511628211ull;
}

/// The sizes the suite uses for a variant at block size `block`: around the
/// warp, the block and the tile, a second level of tile totals, odd large
/// sizes, and for host variants the blocked scan's chunk boundaries.
inline std::vector<std::int64_t> suite_sizes(const Variant& variant, int block, Where where) {
  std::set<std::int64_t> sizes = {1, 2, 3, 31, 32, 33, 1009, 100003, (1 << 20) + 7, (1 << 24) + 3};
  if (where == Where::host) {
    for (std::int64_t chunk : {std::int64_t{1} << 16, std::int64_t{1} << 17}) {
      sizes.insert({chunk - 1, chunk, chunk + 1, 2 * chunk + 1});
    }
    sizes.insert((1 << 22) + 1);
  }
  const std::int64_t threads = variant.block_for(block);
  if (threads > 0) sizes.insert({threads - 1, threads, threads + 1});
  const std::int64_t tile = variant.tile_for(block);
  if (tile > 0) {
    sizes.insert({tile - 1, tile, tile + 1, 2 * tile + 1, 3 * tile - 1});
    // A second level of tile totals: tile^2 +- 1 exercises the recursion.
    if (tile <= 8192) sizes.insert({tile * tile - 1, tile * tile + 1});
  }
  std::vector<std::int64_t> out;
  for (std::int64_t n : sizes) {
    if (n >= 1 && n <= variant.info.max_n) out.push_back(n);
  }
  return out;
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

/// The patterns every segmented case runs through (after the plain one).
inline constexpr Heads kSegmentPatterns[] = {Heads::every_element, Heads::short_random, Heads::long_random,
                                             Heads::tile_edges, Heads::one_split};

/// Whether a pattern is kept at the large sizes (the costly ones are not).
inline bool pattern_at_large_sizes(Heads pattern) {
  return pattern != Heads::every_element && pattern != Heads::long_random;
}

/// How a case's report names its pattern.
inline const char* heads_name(Heads h) {
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

/// The head flags of `pattern` for n elements with tiles of `tile`.
inline std::vector<std::uint8_t> make_heads(Heads pattern, std::int64_t n, std::int64_t tile, std::uint64_t seed) {
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

}  // namespace scan::suite_plan
