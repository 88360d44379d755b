/// \file
/// \brief Chapter 11: engineering the look-back scan to the copy's speed.
///
/// Chapter 10 built the algorithm. This chapter changes how it meets the
/// hardware, one measured step at a time: warp-private transposes, the
/// tile shape, waiting before looking back, then a persistent kernel that
/// loads tiles with the Hopper bulk-copy engine (TMA) through a ring of
/// shared-memory stages and publishes the next tile's aggregate before it
/// looks back for the current one. Two more problems get their own answer:
/// 8-byte types, whose status and value do not fit one 64-bit word, and
/// float sums that must be bitwise the same on every run.
#pragma once

#include "recipes.cuh"  // the steps, in the order of the text

namespace scan::ch11 {

/// The chapter's variants.
const Chapter& chapter();

/// What this chapter's kernels, and those of chapters 12 to 14 built on
/// them, need of the GPU: the bulk copies and mbarriers of bulk_copy.cuh
/// exist from Hopper (sm_90) on. The build compiles these chapters for sm_90
/// and newer only; their programs check this before any kernel runs.
inline const ArchitectureNeed kNeedsHopper{90, "a Hopper GPU", "bulk copies and mbarriers",
                                           "Chapters 00 to 10 and 15 run here."};

/// The GPUs whose measurements chose the recipes of Deterministic and Fastest.
enum class TunedOn { h100, h200 };

/// Which GPU's choices the current device takes: an H200 its own, any other
/// GPU the H100's (the lab book's recipe for a new GPU says how to add one).
/// Asked once per device, so that a program scanning on an H100 and an H200
/// gives each its own.
TunedOn tuned_on_current_device();

// [plain look-back]
/// Runs `f.template operator()<Recipe>()` with chapter 10's look-back where
/// it was measured faster than every grouped recipe, and returns true; else
/// returns false and runs nothing. The walk's order of additions depends
/// on timing, so for float sums this is fastest's choice only.
template <class T, class F>
bool plain_look_back_if_faster(std::int64_t n, F&& f) {
  if constexpr (sizeof(T) == 8) {
    if (n < (std::int64_t{1} << 23)) {
      f.template operator()<kTuned>();  // per tile, 16-byte states
      return true;
    }
  } else if (n < (std::int64_t{1} << 21)) {
    f.template operator()<kTuned>();  // a few waves of tiles: per tile, chapter 10's look-back
    return true;
  } else if (n < (std::int64_t{1} << 22)) {
    f.template operator()<kOneWave>();  // about one wave of large tiles, chapter 10's look-back
    return true;
  }
  return false;  // from 2^22 on, the grouped walk launched early is faster
}
// [plain look-back]

// [last round]
/// True when recipe R (the grouped walk per tile) runs n elements' tiles in
/// one wave: no more tiles than blocks the device holds at once.
template <Recipe R, class T, class Op>
bool fits_one_wave(std::int64_t n) {
  return ceil_div(n, std::int64_t{CopyCeiling<R>::kTile}) <= CopyCeiling<R>::template resident<T, Op>();
}

/// How many waves n elements' tiles make for recipe R (the walk per tile):
/// its tiles over the blocks the device holds at once.
template <Recipe R, class T, class Op>
double waves(std::int64_t n) {
  const std::int64_t tiles = ceil_div(n, std::int64_t{CopyCeiling<R>::kTile});
  return static_cast<double>(tiles) / CopyCeiling<R>::template resident<T, Op>();
}

/// How full the last round of tiles is when the persistent blocks of
/// recipe R (a ring) share n elements' tiles, in (0, 1]: the tiles left
/// after whole rounds of one tile per block, over the blocks. A block
/// takes its next ticket when it finishes a tile, so in a thin last round
/// most blocks are done and idle while the few that hold its tiles finish
/// theirs, each after a look-back to the tile before.
template <Recipe R, class T, class Op>
double last_round_fill(std::int64_t n) {
  const std::int64_t tiles = ceil_div(n, std::int64_t{CopyCeiling<R>::kTile});
  const std::int64_t blocks = CopyCeiling<R>::template resident<T, Op>();
  const std::int64_t last = tiles % blocks;
  return last == 0 ? 1.0 : static_cast<double>(last) / static_cast<double>(blocks);
}
// [last round]

/// The chapter's deterministic scan: the grouped look-back in the recipe
/// measured fastest for the input's size, element type and operator on
/// this GPU. Float sums are bitwise the same from run to run for a given n
/// and GPU; on two different GPUs they may differ.
struct Deterministic {
  // [deterministic]
  /// Runs `f.template operator()<Recipe>()` with this GPU's recipe for n
  /// elements of T combined by Op, `seeded` if a seed comes before the
  /// array. Every branch runs the grouped look-back but the first, for
  /// integers alone.
  template <class T, class Op, class F>
  static void dispatch(std::int64_t n, bool seeded, F&& f) {
    // Integers add exactly, in any order: every recipe is reproducible
    // for them, so they take the fastest one (chapter 10's look-back
    // takes no seed: a seeded scan keeps the grouped walk).
    if constexpr (std::is_integral_v<T>) {
      if (!seeded && plain_look_back_if_faster<T>(n, f)) return;
    }
    const bool h200 = tuned_on_current_device() == TunedOn::h200;
    const std::int64_t bytes = n * static_cast<std::int64_t>(sizeof(T));
    const bool early = bytes >= kEarlyLaunchFromBytes;
    // Too few tiles per block to fill a ring: the walk per tile (for 4-byte
    // types, as long as its tiles fit one wave).
    bool per_tile = bytes < kGroupedPerTileWideBelowBytes;
    if constexpr (sizeof(T) == 4) {
      per_tile = h200 ? fits_one_wave<kGroupedPerTileH200, T, Op>(n) : fits_one_wave<kGroupedPerTile, T, Op>(n);
    }
    if (per_tile) {
      if constexpr (sizeof(T) == 8) {
        f.template operator()<kGroupedPerTileWide>();
      } else if (h200 && early) {
        f.template operator()<early_launch(kGroupedPerTileH200)>();  // four groups per trip
      } else if (h200) {
        f.template operator()<kGroupedPerTileH200>();
      } else if (early) {
        f.template operator()<early_launch(kGroupedPerTile)>();  // two groups per trip
      } else {
        f.template operator()<kGroupedPerTile>();
      }
    } else if constexpr (sizeof(T) == 8) {
      // From here on every recipe is launched early: the sums were measured
      // faster this way (the lab books' "Launching early"; max, min and the
      // affine maps were not timed both ways).
      if (h200) {
        f.template operator()<early_launch(kWideDeterministicH200)>();  // the same, two groups per trip
      } else {
        f.template operator()<early_launch(kWideDeterministic)>();  // overlapped's stage bytes, 2 MiB ahead in L2
      }
    } else if (bytes < kLastRoundBelowBytes && last_round_fill<kOverlapped, T, Op>(n) < kThinLastRound) {
      if (h200 && waves<kGroupedPerTileSmallH200, T, Op>(n) <= kSmallWalkWavesUpTo) {
        f.template operator()<early_launch(kGroupedPerTileSmallH200)>();  // both rings thin: one tile a block
      } else {
        f.template operator()<early_launch(kOverlappedSmall)>();  // smaller tiles: a thin last round ends sooner
      }
    } else if (h200) {
      f.template operator()<early_launch(kOverlapped)>();  // the ring refilled during the look-back
    } else if constexpr (std::is_same_v<Op, AffineCompose>) {
      f.template operator()<early_launch(kOverlapped)>();  // more arithmetic per element: the early refill hides it
    } else if (bytes < kOverlappedBelowBytes) {
      f.template operator()<early_launch(kOverlapped)>();  // faster up to 2^24 4-byte elements (why: not profiled)
    } else {
      f.template operator()<early_launch(kDeterministic)>();  // the H100's sums, max and min
    }
  }
  // [deterministic]
  /// Name, summary and limits, for the registry (the tile is the H100's).
  static VariantInfo info() {
    VariantInfo v = CopyCeiling<kDeterministic>::info();
    v.summary = "reproducible float sums: the grouped look-back in the recipe measured fastest on this GPU "
                "for the size, type and operator (the chapter's table); integers, exact in any order, take "
                "fastest's recipe unless seeded";
    return v;  // takes a seed: every recipe dispatch() runs does
  }
  /// The scratch memory run() takes: room for the recipe chosen for n,
  /// seeded or not (they may differ for integers).
  template <class T, class Op>
  static void reserve(Workspace& workspace, std::int64_t n, int block) {
    std::size_t bytes = 0;
    for (const bool seeded : {false, true}) {
      Workspace measuring;
      dispatch<T, Op>(n, seeded,
                      [&]<Recipe R>() { CopyCeiling<R>::template reserve<T, Op>(measuring, n, block); });
      bytes = std::max(bytes, measuring.used());
    }
    (void)workspace.take<std::byte>(bytes);
  }
  /// Scans r.in into r.out on r.stream with the recipe chosen for r.n.
  template <class T, class Op>
  static void run(const ScanRequest<T>& r, Op op) {
    dispatch<T, Op>(r.n, r.seed != nullptr, [&]<Recipe R>() { CopyCeiling<R>::template run<T, Op>(r, op); });
  }
};

/// The chapter's answer: for each input, the recipe measured fastest for
/// its size and element type on this GPU (the lab book's size tables show the
/// crossovers; the two GPUs measured differ from 2^22 elements on).
struct Fastest {
  // [fastest]
  /// Runs `f.template operator()<Recipe>()` with the recipe for n elements
  /// of T combined by Op: chapter 10's look-back where it wins (its float
  /// sums vary), deterministic's recipe elsewhere.
  template <class T, class Op, class F>
  static void dispatch(std::int64_t n, F&& f) {
    if (!plain_look_back_if_faster<T>(n, f)) Deterministic::dispatch<T, Op>(n, /*seeded=*/false, f);
  }
  // [fastest]
  /// Name, summary and limits, for the registry.
  static VariantInfo info() {
    VariantInfo v;
    v.name = "fastest";
    v.summary = "the fastest recipe measured for the size and type: tuned below 2^21 elements (8-byte types: "
                "below 2^23), one wave of 256x32 tiles below 2^22, deterministic above";
    v.block = kDeterministic.threads;
    v.items_per_thread = kDeterministic.items;
    v.float_order_varies = true;  // below 2^22 elements (8-byte types: 2^23)
    return v;
  }
  /// The scratch memory run() takes: that of the recipe chosen for n.
  template <class T, class Op>
  static void reserve(Workspace& workspace, std::int64_t n, int block) {
    dispatch<T, Op>(n, [&]<Recipe R>() { CopyCeiling<R>::template reserve<T, Op>(workspace, n, block); });
  }
  /// Scans r.in into r.out on r.stream with the recipe chosen for r.n.
  template <class T, class Op>
  static void run(const ScanRequest<T>& r, Op op) {
    dispatch<T, Op>(r.n, [&]<Recipe R>() { CopyCeiling<R>::template run<T, Op>(r, op); });
  }
};

/// The (T, Op) pairs of the sweep points: the sums of every type a recipe
/// may be tuned for.
using SumCombos = std::tuple<Combo<std::int32_t, Add>, Combo<float, Add>, Combo<std::int64_t, Add>,
                             Combo<double, Add>>;

}  // namespace scan::ch11
