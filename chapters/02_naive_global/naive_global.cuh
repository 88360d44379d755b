/// \file
/// \brief Chapter 02: the first parallel scans, straight from global memory.
///
/// Three ways to put many threads on a scan before any optimization:
/// - every thread folds its whole prefix (correct, but O(n^2) work);
/// - Kogge-Stone (Hillis-Steele) with one kernel launch per step, reading one
///   buffer and writing the other (correct for any n, O(n log n) work);
/// - Kogge-Stone inside each block, in global memory, made a full scan by the
///   common block-sum fix-up. It takes two barriers per step; the shorter
///   in-place step with one barrier has a race (the chapter text shows it).
///   The readings' block-wide kernels keep two barriers too (seeds 000, 001,
///   002 and 004, as the chapter text cites).
#pragma once

#include "block_sums.cuh"
#include <scan/device.cuh>
#include <scan/registry.hpp>
#include <scan/trace.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace scan::ch02 {

/// The chapter's variants.
const Chapter& chapter();

// [quadratic kernel]
/// Thread i combines in[0], ..., in[i] on its own: no cooperation, no
/// barriers, and i + 1 operations for thread i, so n(n+1)/2 in all.
/// Neighbouring threads read the same in[j] at the same time, which the
/// hardware serves as one broadcast load per warp.
template <class T, class Op>
__global__ void quadratic_scan_kernel(const T* in, T* out, std::int64_t n, Kind kind, Op op) {
  const std::int64_t i = global_thread_index();
  if (i >= n) return;
  const std::int64_t last = kind == Kind::inclusive ? i : i - 1;  // the prefix's last element
  T running = Op::template identity<T>();
  for (std::int64_t j = 0; j <= last; ++j) running = op(running, in[j]);
  out[i] = running;
}
// [quadratic kernel]

// kit: region step from "const T mine = load_for_scan(src, i, kind, op);"
// kit: to "dst[i] = i >= offset ? op(load_for_scan(src, i - offset, kind, op), mine) : mine;"
// kit: todo One Kogge-Stone step over the whole array for this thread's element i (i < n; the threads
// kit: todo past n have returned): read only src, write only dst[i]. Read every element j of src as
// kit: todo load_for_scan(src, j, kind, op): the host passes the scan's kind for the first step only,
// kit: todo where it shifts the input right by one for an exclusive scan. dst[i] is element i - offset
// kit: todo combined on the LEFT of element i when i >= offset (op need not commute), else element i.
// kit: stub (void)src; (void)dst; (void)offset; (void)kind; (void)op;
// [multi-launch step]
/// One step of Kogge-Stone over the whole array: every element combines with
/// the one `offset` places to its left. Reading `src` and writing `dst` (two
/// buffers) means no thread can see a value another thread wrote in the same
/// step; the launch boundary is the barrier between steps.
template <class T, class Op>
__global__ void kogge_stone_step(const T* src, T* dst, std::int64_t n, std::int64_t offset,
                                 Kind kind, Op op) {
  const std::int64_t i = global_thread_index();
  if (i >= n) return;
  const T mine = load_for_scan(src, i, kind, op);
  dst[i] = i >= offset ? op(load_for_scan(src, i - offset, kind, op), mine) : mine;
}
// [multi-launch step]

// kit: region in-block from "if (inside) out[i] = load_for_scan(in, i, kind, op);"
// kit: to "if (tile_totals != nullptr && threadIdx.x == tile_size - 1) tile_totals[blockIdx.x] = out[i];"
// kit: todo Scan this block's tile in place in global memory, in out; i is this thread's element,
// kit: todo and inside says whether it has one (the last tile may be shorter than the block).
// kit: todo Load: each thread inside puts load_for_scan(in, i, kind, op) in out[i] (it shifts the
// kit: todo input right by one element for an exclusive scan).
// kit: todo Steps, offset = 1, 2, 4, ... while below tile_size: a thread inside with threadIdx.x >=
// kit: todo offset combines out[i - offset] on the LEFT of out[i] (op need not commute). Every read
// kit: todo of a step must come before any write of that step, and every write before the next
// kit: todo step's reads; every thread of the block, inside or not, reaches every barrier.
// kit: todo After each step, threads inside call log.record(step, i, out[i]) (step 0, 1, ...).
// kit: todo Finally the tile's last thread (threadIdx.x == tile_size - 1) writes the tile's total,
// kit: todo out[i], to tile_totals[blockIdx.x] when tile_totals is not null (the fix-up needs it).
// kit: stub (void)in; (void)out; (void)kind; (void)tile_totals; (void)op; (void)log; (void)i; (void)inside;
// [in-block global kernel]
/// Kogge-Stone inside one block, on the block's tile of `out` in global memory.
///
/// Each step needs two barriers. Thread i reads out[i - offset], then
/// writes out[i]; but out[i] is also what thread i + offset reads in the same
/// step. Without the first barrier, thread i may overwrite out[i] before
/// thread i + offset has read the old value (write-after-read). Without the
/// second, thread i + offset may read out[i] in the *next* step before
/// thread i has written it (read-after-write).
template <class T, class Op>
__global__ void kogge_stone_global_tiles(const T* in, T* out, std::int64_t n, Kind kind,
                                         T* tile_totals, Op op, StepLog<T> log) {
  const auto [tile_start, tile_size] = tile_span(blockIdx.x, blockDim.x, n);  // this block's tile
  const std::int64_t i = tile_start + threadIdx.x;
  const bool inside = threadIdx.x < tile_size;

  if (inside) out[i] = load_for_scan(in, i, kind, op);
  __syncthreads();

  int step = 0;
  for (int offset = 1; offset < tile_size; offset *= 2, ++step) {
    const bool combines = inside && threadIdx.x >= offset;
    T left{};
    if (combines) left = out[i - offset];
    __syncthreads();  // all reads of this step happen before any write
    if (combines) out[i] = op(left, out[i]);
    __syncthreads();  // all writes of this step are seen by the next step
    if (inside) log.record(step, i, out[i]);
  }
  if (tile_totals != nullptr && threadIdx.x == tile_size - 1) tile_totals[blockIdx.x] = out[i];
}
// [in-block global kernel]

/// Labels "offset 1", "offset 2", ... for the steps of a Kogge-Stone scan of
/// `tile` elements (chapters 03 and 04 label their steps with it too).
inline std::vector<std::string> kogge_stone_labels(std::int64_t tile) {
  std::vector<std::string> labels;
  for (std::int64_t offset = 1; offset < tile; offset *= 2) labels.push_back("offset " + std::to_string(offset));
  return labels;
}

/// Registry entry: every thread sums its own prefix.
struct Quadratic {
  /// The largest n it accepts (see info()).
  static constexpr std::int64_t kMaxN = std::int64_t{1} << 20;
  /// Name, summary and limits, for the registry.
  static VariantInfo info() {
    return {.name = "quadratic",
            .summary = "thread i folds in[0..i] alone: n(n+1)/2 operations",
            .max_n = kMaxN,
            .max_n_reason = "O(n^2) work: n = 2^20 already costs 5.5e11 operations, and each "
                            "doubling of n quadruples the time",
            .block = 256,
            .takes_block = true,
            .block_min = 2};
  }
  /// Scans r.in into r.out on r.stream.
  template <class T, class Op>
  static void run(const ScanRequest<T>& r, Op op) {
    const int threads = r.block_threads;
    quadratic_scan_kernel<<<grid_size(r.n, threads), threads, 0, r.stream>>>(r.in, r.out, r.n, r.kind, op);
    SCAN_CUDA_LAUNCH();
    if (r.trace != nullptr) r.trace->snapshot("each prefix folded", r.out);
  }
};

// [multi-launch host loop]
/// Registry entry: Kogge-Stone over global memory, one launch per step.
struct MultiLaunchKoggeStone {
  /// Name, summary and limits, for the registry.
  static VariantInfo info() {
    return {.name = "multi-launch",
            .summary = "Kogge-Stone, one launch per step, ping-pong buffers: log2 n launches",
            .block = 256,
            .takes_block = true,
            .block_min = 2};
  }
  /// The scratch memory run() takes.
  template <class T, class Op>
  static void reserve(Workspace& workspace, std::int64_t n, int) {
    workspace.take<T>(static_cast<std::size_t>(n));
  }
  /// Scans r.in into r.out on r.stream.
  template <class T, class Op>
  static void run(const ScanRequest<T>& r, Op op) {
    Workspace workspace = r.workspace;
    T* spare = workspace.take<T>(static_cast<std::size_t>(r.n));
    // ceil(log2 n) steps, at least one (n = 1 still needs the copy). Choose
    // the first destination so that the last step writes r.out.
    const int steps = ceil_log2(r.n) > 0 ? ceil_log2(r.n) : 1;
    T* dst = steps % 2 == 1 ? r.out : spare;
    T* other = steps % 2 == 1 ? spare : r.out;
    const T* src = r.in;
    for (int step = 0; step < steps; ++step) {
      const std::int64_t offset = std::int64_t{1} << step;
      // Only the first step reads the user's input, shifted for an exclusive scan.
      const Kind kind = step == 0 ? r.kind : Kind::inclusive;
      kogge_stone_step<<<grid_size(r.n, r.block_threads), r.block_threads, 0, r.stream>>>(
          src, dst, r.n, offset, kind, op);
      SCAN_CUDA_LAUNCH();
      if (r.trace != nullptr) r.trace->snapshot("offset " + std::to_string(offset), dst);
      src = dst;
      std::swap(dst, other);
    }
  }
};
// [multi-launch host loop]

/// Registry entry (through ScanByTiles): in-block Kogge-Stone in global
/// memory plus the block-sum fix-up.
struct InBlockGlobal {
  /// Name, summary and limits, for the registry.
  static VariantInfo info() {
    return {.name = "in-block-global",
            .summary = "Kogge-Stone per block in global memory, two barriers a step, block-sum fix-up",
            .block = 128,
            .takes_block = true,
            .block_min = 2};
  }
  /// One element per thread.
  static constexpr int kItems = 1;
  /// The tile kernel.
  template <class T, class Op>
  static auto kernel() { return kogge_stone_global_tiles<T, Op>; }
  /// No shared memory: the tile is scanned where it lies, in `out`.
  static int shared_slots(int) { return 0; }
  /// One row per step.
  static std::vector<std::string> trace_labels(std::int64_t tile) { return kogge_stone_labels(tile); }
};

}  // namespace scan::ch02
