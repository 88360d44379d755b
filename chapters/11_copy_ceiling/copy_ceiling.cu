#include "copy_ceiling.cuh"

#include <scan/error.hpp>

#include <array>
#include <atomic>
#include <string_view>

namespace scan::ch11 {

std::string recipe_name(const Recipe& r) {
  switch (r.role) {
    case Role::warp_io: return "warp-io";
    case Role::tuned: return "tuned";
    case Role::bulk: return "bulk";
    case Role::lookback_warp: return "lookback-warp";
    case Role::deterministic: return "deterministic";
    case Role::one_wave: return "one-wave";
    case Role::overlapped: return "overlapped";
    case Role::sweep: break;
  }
  std::string s = (r.kernel == Kernel::bulk          ? "bulk-"
                   : r.kernel == Kernel::specialized ? "lookback-warp-"
                                                     : "") +
                  ch07::shape_name(r.threads, r.items);
  if (r.kernel != Kernel::per_tile) {
    s += "-s" + std::to_string(r.stages);
    if (r.refill_in_look_back) s += "-refill-in-look-back";
  } else {
    s += r.io == Io::warp ? "-warp-io" : "-block-io";
  }
  if (r.min_blocks > 1) s += "-regs-for-" + std::to_string(r.min_blocks);
  if (r.max_blocks > 0) s += "-at-most-" + std::to_string(r.max_blocks);
  if (r.state == StateKind::split) s += "-split";
  if (r.walk == Walk::grouped) s += "-grouped";
  if (r.windows > 1) s += "-wide" + std::to_string(r.windows);
  const std::string ahead = r.ahead != 0 ? "-ahead" + std::to_string(r.ahead >> 20) + "M" : "";
  if (r.walk == Walk::none) return s + "-tile-wise" + ahead;
  s += r.wait.settle_ns != 0 ? "-settle" + std::to_string(r.wait.settle_ns) : "-spin";
  if (r.wait.first_nap_ns != 0 && r.wait.first_nap_ns != 640) s += "-nap" + std::to_string(r.wait.first_nap_ns);
  return s + ahead;
}

std::string recipe_summary(const Recipe& r) {
  std::string s = r.kernel == Kernel::per_tile
                      ? std::string(r.io == Io::warp ? "one block per tile, warp-private transposes"
                                                     : "one block per tile, block-wide transposes")
                      : "persistent blocks, bulk copies (TMA) through " + std::to_string(r.stages) +
                            " shared-memory stages, " +
                            (r.kernel == Kernel::specialized
                                 ? "a look-back warp one tile behind the scan warps"
                                 : "next aggregate published before the look-back");
  if (r.refill_in_look_back) s += ", the ring refilled during the look-back";
  s += ", tiles of " + ch07::shape_name(r.threads, r.items);
  if (r.min_blocks > 1) s += ", registers capped for " + std::to_string(r.min_blocks) + " blocks per SM";
  if (r.max_blocks > 0) s += ", at most " + std::to_string(r.max_blocks) + " blocks per SM";
  s += r.state == StateKind::packed ? ", status and value in one word" : ", status and value apart";
  if (r.ahead != 0) s += ", prefetches the input " + std::to_string(r.ahead >> 20) + " MiB ahead into L2";
  if (r.walk == Walk::none) return s + ", no look-back: each tile scanned on its own (a building block)";
  s += r.walk == Walk::grouped ? ", look-back in fixed groups (reproducible floats)" : "";
  if (r.windows > 1) s += ", look-back reads " + std::to_string(r.windows) + " windows per trip";
  s += r.wait.settle_ns != 0 ? ", settles " + std::to_string(r.wait.settle_ns) + " ns before looking back"
                             : ", spins";
  return s;
}

TunedOn tuned_on_current_device() {
  // Remembered per device, since one program may scan on several GPUs
  // (chapter 14): after the first call on a device only cudaGetDevice()
  // runs here. 0 means not asked yet, otherwise 1 + the TunedOn.
  constexpr int kRemembered = 64;
  static std::array<std::atomic<int>, kRemembered> known{};
  int device = 0;
  SCAN_CUDA(cudaGetDevice(&device));
  std::atomic<int>* slot = device < kRemembered ? &known[static_cast<std::size_t>(device)] : nullptr;
  if (slot != nullptr) {
    if (const int k = slot->load(std::memory_order_relaxed); k != 0) return static_cast<TunedOn>(k - 1);
  }
  cudaDeviceProp props{};
  SCAN_CUDA(cudaGetDeviceProperties(&props, device));
  // "NVIDIA H200" and "NVIDIA H200 NVL" take the H200's recipes; a GH200
  // ("NVIDIA GH200 ...") is not an H200 and was not measured.
  const TunedOn gpu = std::string_view(props.name).starts_with("NVIDIA H200") ? TunedOn::h200 : TunedOn::h100;
  if (slot != nullptr) slot->store(1 + static_cast<int>(gpu), std::memory_order_relaxed);
  return gpu;
}

std::size_t shared_bytes_to_limit(const void* kernel, int threads, std::size_t dynamic_bytes, int blocks_per_sm) {
  if (blocks_per_sm <= 0) return 0;
  // Grow the dynamic shared memory in 1 KiB steps until no more than
  // blocks_per_sm blocks fit on an SM.
  for (std::size_t extra = 0; extra <= 200 * 1024; extra += 1024) {
    int per_sm = 0;
    SCAN_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, dynamic_bytes + extra));
    if (per_sm <= blocks_per_sm) return extra;
  }
  throw UsageError("cannot limit the kernel to " + std::to_string(blocks_per_sm) + " blocks per SM");
}

namespace {

using ch10::kSettle;
using ch10::kSpin;

template <Recipe... Points>
void add(std::vector<Variant>& variants) {
  (variants.push_back(gpu_variant<CopyCeiling<Points>>()), ...);
}
template <class Combos, Recipe... Points>
void add_sweep(std::vector<Variant>& variants) {
  (variants.push_back(gpu_variant<CopyCeiling<Points>, Combos>()), ...);
}

/// The sums of 8-byte types: their own sweep points.
using WideSumCombos = std::tuple<Combo<std::int64_t, Add>, Combo<double, Add>>;

std::vector<Variant> variants() {
  std::vector<Variant> v;
  constexpr BackOff kSettle500{500, 640, 640, 0};
  constexpr BackOff kSettle1000{1000, 640, 640, 0};
  // The steps a reader runs and compares (every type and operator).
  add<as(Role::warp_io, per_tile(256, 16, Io::warp, kSettle)), kTuned, as(Role::bulk, bulk(128, 32, 4, kSettle1000)),
      as(Role::lookback_warp, lookback_warp(128, 32, 4, kSettle1000)), kOverlapped>(v);
  v.push_back(gpu_variant<Deterministic>());
  v.push_back(gpu_variant<Fastest>());
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
  // Inputs of a few waves: larger tiles make one wave, smaller ones more.
  add_sweep<SweepCombos, per_tile(64, 32, Io::warp, kSettle), per_tile(256, 32, Io::warp, kSpin),
            per_tile(128, 48, Io::warp, kSpin), per_tile(256, 24, Io::warp, kSpin), per_tile(128, 16, Io::warp, kSpin)>(v);
  // 8-byte types: the split state against one 16-byte word, per tile and in bulk.
  add_sweep<WideSumCombos, per_tile(128, 32, Io::warp, kSettle, 1, 0, StateKind::split),
            lookback_warp(128, 16, 4, kSpin), wide(4, bulk(128, 16, 4, kSpin)),
            lookback_warp(128, 16, 4, kSpin, Walk::any_prefix, StateKind::split),
            wide(4, bulk(128, 16, 4, kSpin, Walk::grouped)), wide(4, bulk(128, 16, 3, kSpin, Walk::grouped))>(v);
  return v;
}

}  // namespace

const Chapter& chapter() {
  static const Chapter c{"11", "copy_ceiling", "To the copy ceiling", Where::device, variants(), kNeedsHopper};
  return c;
}

}  // namespace scan::ch11
