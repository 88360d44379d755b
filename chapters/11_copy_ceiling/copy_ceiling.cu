#include "copy_ceiling.cuh"

#include <scan/error.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <stdexcept>
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
  if (r.early_launch) s += "-early-launch";
  if (r.even_rounds) s += "-even-rounds";
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
  if (r.early_launch) s += ", launched while a kernel clears its states (programmatic dependent launch)";
  if (r.even_rounds) s += ", no more blocks than deal the tiles in full rounds";
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

// [clearing kernel]
/// Zeroes `words` 32-bit words from `first`, after letting the grid behind
/// it start. Its stores need no ordering of their own: the early grid's
/// tma::wait_for_prerequisite_grid() returns only once this whole grid has
/// finished and its writes are visible.
__global__ void clear_and_release(unsigned* first, std::size_t words) {
  tma::release_dependent_grid();
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < words; i += stride) first[i] = 0;
}
// [clearing kernel]

}  // namespace

void clear_for_early_launch(unsigned* ticket, std::size_t bytes, cudaStream_t stream) {
  if (bytes % sizeof(unsigned) != 0) throw std::logic_error("the states to clear are not whole 32-bit words");
  const std::size_t words = bytes / sizeof(unsigned);
  constexpr unsigned kThreads = 256;
  // One word per thread up to 1,024 blocks, a loop beyond (2^30 elements
  // of the H100's ring need 2 MiB of states, 2,048 blocks' worth: each
  // thread clears two words).
  const auto blocks = static_cast<unsigned>(std::clamp<std::size_t>(ceil_div(words, std::size_t{kThreads}), 1, 1024));
  clear_and_release<<<blocks, kThreads, 0, stream>>>(ticket, words);
  SCAN_CUDA_LAUNCH();
}

namespace {

std::vector<Variant> variants() {
  std::vector<Variant> v;
  // The steps a reader runs and compares (every type and operator).
  add_variants<as(Role::warp_io, per_tile(256, 16, Io::warp, ch10::kSettle)), kTuned,
               as(Role::bulk, bulk(128, 32, 4, kSettle1000)),
               as(Role::lookback_warp, lookback_warp(128, 32, 4, kSettle1000)), kOverlapped>(v);
  v.push_back(gpu_variant<Deterministic>());
  v.push_back(gpu_variant<Fastest>());
  add_sweep_points(v);
  return v;
}

}  // namespace

const Chapter& chapter() {
  static const Chapter c{"11", "copy_ceiling", "To the copy ceiling", Where::device, variants(), kNeedsHopper};
  return c;
}

}  // namespace scan::ch11
