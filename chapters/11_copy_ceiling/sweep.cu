// Chapter 11's sweep points (`ch11_copy_ceiling --variant sweep`): every knob
// of the recipes, one variant each, for the int32 and float sums (the 8-byte
// sums have their own). The lab books (docs/lab/ch11-h100.md and
// ch11-h200.md) read these rows.
#include "copy_ceiling.cuh"

#include <cstdint>
#include <tuple>
#include <vector>

namespace scan::ch11 {
namespace {

using ch10::kSettle;
using ch10::kSpin;

/// The sums of 8-byte types: their own sweep points.
using WideSumCombos = std::tuple<Combo<std::int64_t, Add>, Combo<double, Add>>;

}  // namespace

void add_sweep_points(std::vector<Variant>& v) {
  // The ablation of the per-tile kernel: movement, shape, waiting, and
  // whether warp-private transposes win by their barriers or by their
  // registers (occupancy).
  add_sweep<SweepCombos, per_tile(256, 16, Io::block, kSettle), per_tile(128, 32, Io::block, kSpin),
            per_tile(128, 32, Io::block, kSettle), per_tile(128, 32, Io::warp, kSpin),
            per_tile(128, 32, Io::warp, kSettle, 1, 5), per_tile(128, 32, Io::warp, kSettle1000),
            per_tile(128, 32, Io::warp, BackOff{5000, 640, 640, 0})>(v);
  // Wide look-backs (they lose: the lab book says why).
  add_sweep<SumCombos, wide(4, per_tile(128, 32, Io::warp, kSettle)), per_tile(128, 16, Io::warp, kSettle)>(v);
  add_sweep<SweepCombos, wide(2, per_tile(128, 32, Io::warp, kSettle)), wide(4, bulk(128, 32, 4, kSpin))>(v);
  // The bulk kernels: ring depth, waiting, and their ceiling without any look-back.
  add_sweep<SweepCombos, bulk(128, 32, 3, kSettle1000), bulk(128, 32, 4, kSpin), bulk(128, 32, 4, kSettle500),
            bulk(256, 16, 4, kSettle1000), lookback_warp(128, 32, 4, kSpin), bulk(128, 32, 4, kSpin, Walk::none),
            lookback_warp(128, 32, 4, kSpin, Walk::none)>(v);
  // The grouped walk: groups per trip, tile shape, ring depth, waiting.
  add_sweep<SweepCombos, bulk(128, 32, 4, kSpin, Walk::grouped), wide(2, bulk(128, 32, 4, kSpin, Walk::grouped)),
            wide(8, bulk(128, 32, 4, kSpin, Walk::grouped)), wide(4, bulk(128, 32, 3, kSpin, Walk::grouped)),
            wide(4, bulk(128, 32, 5, kSpin, Walk::grouped)), wide(4, bulk(256, 16, 4, kSpin, Walk::grouped)),
            wide(4, bulk(128, 16, 6, kSpin, Walk::grouped)), wide(4, bulk(256, 16, 3, kSpin, Walk::grouped)),
            wide(4, bulk(128, 32, 4, kSettle500, Walk::grouped)),
            wide(4, lookback_warp(128, 32, 4, kSettle1000, Walk::grouped))>(v);
  // Prefetching into L2 ahead of the tiles: none, and other distances than
  // the variants' (tuned: 4 MiB, deterministic: 2 MiB).
  // (Without: 128x32-warp-io-settle3000, for every type, and the grouped
  // bulk-256x16-s4-grouped-wide4-spin above.)
  add_sweep<SumCombos, per_tile(128, 32, Io::warp, kSettle)>(v);
  add_sweep<SweepCombos, ahead(2 << 20, per_tile(128, 32, Io::warp, kSettle)),
            ahead(8 << 20, per_tile(128, 32, Io::warp, kSettle)),
            ahead(1 << 20, wide(4, bulk(256, 16, 4, kSpin, Walk::grouped))),
            ahead(4 << 20, wide(4, bulk(256, 16, 4, kSpin, Walk::grouped))),
            ahead(2 << 20, bulk(128, 32, 4, kSpin, Walk::none))>(v);
  // Tiles of an odd number of 16-byte vectors per thread (9, 7 or 11 for
  // 4-byte types): a stage is read and written in plain order, without bank
  // conflicts and without selects (StageAccess). Their ceilings, and the
  // grouped walk over them.
  add_sweep<SweepCombos, bulk(128, 36, 4, kSpin, Walk::none), bulk(128, 36, 3, kSpin, Walk::none),
            wide(2, bulk(128, 36, 4, kSpin, Walk::grouped)), wide(4, bulk(128, 36, 4, kSpin, Walk::grouped)),
            wide(2, bulk(128, 36, 3, kSpin, Walk::grouped)), wide(4, bulk(128, 28, 3, kSpin, Walk::grouped)),
            wide(2, bulk(128, 44, 4, kSpin, Walk::grouped)), bulk(128, 36, 4, kSettle1000)>(v);
  // The ring refilled while warp 0 looks back: with odd tiles and three or
  // four stages, and (to tell the two changes apart) with the selects of
  // 128 x 32 and 256 x 16 tiles.
  add_sweep<SweepCombos, refill_in_look_back(bulk(128, 36, 3, kSpin, Walk::none)),
            refill_in_look_back(wide(2, bulk(128, 36, 3, kSpin, Walk::grouped))),
            refill_in_look_back(wide(2, bulk(128, 36, 4, kSpin, Walk::grouped))),
            refill_in_look_back(wide(2, bulk(128, 44, 3, kSpin, Walk::grouped))),
            refill_in_look_back(wide(2, bulk(128, 28, 3, kSpin, Walk::grouped))),
            refill_in_look_back(wide(4, bulk(128, 32, 3, kSpin, Walk::grouped))),
            refill_in_look_back(wide(4, bulk(256, 16, 4, kSpin, Walk::grouped)))>(v);
  // Smaller odd tiles (5 or 3 vectors per thread) in overlapped's ring: more
  // tiles for inputs of a few waves, where a deterministic scan must still
  // beat CUB.
  add_sweep<SweepCombos, refill_in_look_back(wide(4, bulk(128, 20, 3, kSpin, Walk::grouped))),
            refill_in_look_back(wide(4, bulk(128, 12, 3, kSpin, Walk::grouped)))>(v);
  // Inputs of a few waves: larger tiles make one wave, smaller ones more.
  add_sweep<SweepCombos, per_tile(64, 32, Io::warp, kSettle), per_tile(256, 32, Io::warp, kSpin),
            per_tile(128, 48, Io::warp, kSpin), per_tile(256, 24, Io::warp, kSpin), per_tile(128, 16, Io::warp, kSpin)>(v);
  // 8-byte types: the split state against one 16-byte word, per tile and in bulk.
  add_sweep<WideSumCombos, per_tile(128, 32, Io::warp, kSettle, 1, 0, StateKind::split),
            lookback_warp(128, 16, 4, kSpin), wide(4, bulk(128, 16, 4, kSpin)),
            lookback_warp(128, 16, 4, kSpin, Walk::any_prefix, StateKind::split),
            wide(4, bulk(128, 16, 4, kSpin, Walk::grouped)), wide(4, bulk(128, 16, 3, kSpin, Walk::grouped))>(v);
  // The grouped walk in chapter 10's kernel (one block per tile): tuned's
  // and one-wave's shapes, for inputs of a few waves.
  add_sweep<SumCombos, grouped(wide(4, ahead(kTileAhead, per_tile(128, 32, Io::warp, kSettle))))>(v);
  add_sweep<SweepCombos, grouped(wide(4, per_tile(128, 32, Io::warp, kSettle))),
            grouped(wide(4, per_tile(128, 32, Io::warp, kSpin))), grouped(wide(4, per_tile(256, 32, Io::warp, kSpin))),
            grouped(wide(2, per_tile(128, 16, Io::warp, kSpin))), grouped(per_tile(256, 32, Io::warp, kSpin))>(v);
  // The same for 8-byte types (kGroupedPerTileWide reads four groups per
  // trip): eight, two and one, and two with short naps between looks.
  add_sweep<WideSumCombos, grouped(wide(8, per_tile(128, 32, Io::warp, kSpin))),
            grouped(wide(2, per_tile(128, 32, Io::warp, kSpin))), grouped(per_tile(128, 32, Io::warp, kSpin)),
            grouped(wide(2, per_tile(128, 32, Io::warp, kNap100)))>(v);
  // One wave of 256 x 32 tiles is four blocks an SM only at 64 registers a
  // thread: the grouped walk with 1, 2 (kGroupedPerTile), 3, 4
  // (kGroupedPerTileH200), 8 and 16 groups per trip, and with short naps;
  // and chapter 10's walk over wider windows, with the registers capped for
  // four blocks.
  add_sweep<SweepCombos, kGroupedPerTile, kGroupedPerTileH200, grouped(per_tile(256, 32, Io::warp, kSpin, 4)),
            grouped(wide(3, per_tile(256, 32, Io::warp, kSpin, 4))),
            grouped(wide(8, per_tile(256, 32, Io::warp, kSpin, 4))),
            grouped(wide(16, per_tile(256, 32, Io::warp, kSpin, 4))),
            grouped(wide(2, per_tile(256, 32, Io::warp, kNap100, 4))),
            grouped(wide(4, per_tile(256, 32, Io::warp, kNap100, 4))), wide(2, per_tile(256, 32, Io::warp, kSpin, 4)),
            wide(4, per_tile(256, 32, Io::warp, kSpin, 4))>(v);
  // 8-byte types on the H200: a ring of tiles twice overlapped's bytes,
  // 128 x 18 with a settle before the look-back, and with two groups per
  // trip (the H200's recipe, kWideDeterministicH200).
  add_sweep<WideSumCombos, ahead(kRingAhead, refill_in_look_back(wide(4, bulk(256, 18, 3, kSpin, Walk::grouped)))),
            ahead(kRingAhead, refill_in_look_back(wide(4, bulk(128, 18, 3, kSettle500, Walk::grouped)))),
            ahead(kRingAhead, refill_in_look_back(wide(4, bulk(128, 18, 3, kSettle1000, Walk::grouped)))),
            ahead(kRingAhead, refill_in_look_back(wide(4, bulk(128, 36, 3, kSettle1000, Walk::grouped)))),
            kWideDeterministicH200>(v);
  // 8-byte types in overlapped's shape: tiles of an odd number of 16-byte
  // vectors (9 of two elements: 128 x 18, a stage of 18 KiB as overlapped's
  // 128 x 36 of 4-byte types), the ring refilled while warp 0 looks back,
  // with and without the prefetch into L2.
  add_sweep<WideSumCombos, refill_in_look_back(wide(4, bulk(128, 18, 3, kSpin, Walk::grouped))),
            refill_in_look_back(wide(4, bulk(128, 18, 4, kSpin, Walk::grouped))),
            refill_in_look_back(wide(4, bulk(128, 22, 3, kSpin, Walk::grouped))),
            refill_in_look_back(wide(4, bulk(128, 14, 4, kSpin, Walk::grouped))),
            kWideDeterministic>(v);
  // The recipes deterministic runs, launched early: their states cleared by
  // a kernel that lets the scan start before it has finished (programmatic
  // dependent launch) instead of by a memset.
  // (Deterministic's ring for large 4-byte inputs without it, the third.)
  add_sweep<SweepCombos, early_launch(kGroupedPerTile), early_launch(kGroupedPerTileH200),
            as(Role::sweep, kDeterministic), as(Role::sweep, early_launch(kOverlapped)),
            as(Role::sweep, early_launch(kDeterministic))>(v);
  add_sweep<WideSumCombos, early_launch(kGroupedPerTileWide), early_launch(kWideDeterministic),
            early_launch(kWideDeterministicH200)>(v);
  // Between 5 and 8 * 2^20 4-byte elements (20 to 32 MiB), launched early:
  // rings of smaller tiles and of two groups per trip, overlapped
  // with the prefetch, and the grouped walk per tile in other shapes (256 x
  // 40: 5 * 2^20 elements in one wave of four blocks an SM; 128 x 32 at eight).
  add_sweep<SweepCombos, early_launch(refill_in_look_back(wide(4, bulk(128, 12, 3, kSpin, Walk::grouped)))),
            early_launch(kOverlappedSmall),
            early_launch(refill_in_look_back(wide(4, bulk(128, 28, 3, kSpin, Walk::grouped)))),
            early_launch(refill_in_look_back(wide(2, bulk(128, 36, 3, kSpin, Walk::grouped)))),
            early_launch(refill_in_look_back(wide(4, bulk(256, 16, 3, kSpin, Walk::grouped)))),
            early_launch(kOverlappedAhead), early_launch(kGroupedPerTileSmallH200),
            early_launch(grouped(wide(4, per_tile(128, 48, Io::warp, kSpin)))),
            early_launch(grouped(wide(4, per_tile(256, 24, Io::warp, kSpin, 4)))),
            early_launch(grouped(wide(8, per_tile(256, 32, Io::warp, kSpin, 4)))),
            early_launch(grouped(wide(4, per_tile(256, 40, Io::warp, kSpin, 4))))>(v);
  // The rings of 128 x 36, 28 and 20 tiles with no more blocks than deal
  // their tiles in full rounds.
  add_sweep<SweepCombos, as(Role::sweep, even_rounds(early_launch(kOverlapped))),
            even_rounds(early_launch(kOverlappedSmall)),
            even_rounds(early_launch(refill_in_look_back(wide(4, bulk(128, 28, 3, kSpin, Walk::grouped)))))>(v);
  // Overlapped's recipe with the prefetch into L2 of deterministic's, for
  // every type and operator (until kWideDeterministicH200, deterministic's
  // 8-byte recipe on the H200).
  add_variants<kOverlappedAhead>(v);
}

}  // namespace scan::ch11
