/// \file
/// \brief Chapter 12: segmented scan, many independent scans in one array.
///
/// A one-byte head flag marks where each segment starts; the scan starts
/// over at every head. Two constructions, after Sengupta, Harris, Garland
/// and Owens (seed 004): *operator transformation*, a plain scan of
/// (value, flag) pairs with a segmented operator, and *direct*, conditional
/// indexing, where each lane knows where its segment starts and never adds
/// across it. Both run at warp and block level inside a tile; across tiles
/// a single-pass decoupled look-back (chapters 10 and 11) carries the flag
/// with each tile's value, and stops early at the first tile that holds a
/// head.
#pragma once

#include "bulk.cuh"  // and per_tile.cuh before it

namespace scan::ch12 {

/// The chapter's variants.
const Chapter& chapter();

}  // namespace scan::ch12
