/// \file
/// \brief Segments: where a scan starts over, and how the tests draw them.
///
/// A segmented scan (chapter 12) restarts at every element whose head flag
/// is set; a by-key scan (CUB's) finds the same segments from keys that
/// change between neighbours; a block-level building block (the tile scans
/// of chapters 02 to 07 run on their own) restarts every tile. The oracle,
/// the generators and the verification all speak of segments through this
/// header.
#pragma once

#include <cstdint>
#include <vector>

namespace scan {

/// Where a scan starts over: every `every` elements (a tile-wise scan, the
/// output of a block-level building block), at each element whose head
/// flag is set (a segmented scan, chapter 12), or nowhere (0 and null: the
/// whole array is one scan).
struct Restarts {
  std::int64_t every = 0;                ///< restart every this many elements (0: never)
  const std::uint8_t* heads = nullptr;   ///< restart where heads[i] != 0 (null: never)

  Restarts() = default;
  /// Every `segment` elements (0: never): what VariantInfo::segment says.
  Restarts(std::int64_t segment) : every(segment) {}  // NOLINT: a count converts on purpose
  /// At the heads of `flags` (n bytes).
  explicit Restarts(const std::uint8_t* flags) : heads(flags) {}
  /// True if the scan starts over at element i.
  bool at(std::int64_t i) const { return (every > 0 && i % every == 0) || (heads != nullptr && heads[i] != 0); }
};

/// How segment lengths are drawn for a segmented scan (chapter 12).
enum class Lengths {
  random,  ///< each element after the first starts a segment with probability 1/mean (geometric lengths)
  fixed,   ///< a segment starts every `mean` elements
};

/// Head flags for `n` elements: 1 where a segment starts, 0 elsewhere;
/// element 0 always starts one. `mean` is the mean segment length (at
/// least 1; 1 makes every element a head).
std::vector<std::uint8_t> generate_heads(std::int64_t n, double mean, Lengths lengths, std::uint64_t seed);

/// Keys for the same segments, as a scan-by-key reads them: the segment's
/// number, modulo 2^31 (neighbouring segments still differ).
std::vector<std::int32_t> keys_from_heads(const std::vector<std::uint8_t>& heads);

}  // namespace scan
