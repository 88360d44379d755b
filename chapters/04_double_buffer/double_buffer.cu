#include "double_buffer.cuh"

#include "kogge_stone_shared.cuh"  // chapter 03's step labels

namespace scan::ch04 {

template <class T, class Op>
void KoggeStoneDoubleBuffered::run(const ScanRequest<T>& r, Op op) {
  const int threads = r.block_threads;
  const std::size_t shared_bytes = 2 * static_cast<std::size_t>(threads) * sizeof(T);
  scan_by_tiles(r, op, threads, [&](const TileLaunch<T>& t) {
    const std::int64_t traced_tile = t.n < threads ? t.n : threads;
    StepRecorder<T> steps(t.top_level ? r.trace : nullptr, ceil_log2(traced_tile));
    kogge_stone_double_buffered<<<grid_size(t.n, threads), threads, shared_bytes, r.stream>>>(
        t.in, t.out, t.n, t.kind, t.tile_totals, op, steps.log());
    SCAN_CUDA_LAUNCH();
    steps.publish(ch03::step_labels(traced_tile));
  });
}

const Chapter& chapter() {
  static const Chapter c{"04", "double_buffer", "Double-buffered Kogge-Stone", Where::device,
                         {gpu_variant<KoggeStoneDoubleBuffered>()}};
  return c;
}

}  // namespace scan::ch04
