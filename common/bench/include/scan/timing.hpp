/// \file
/// \brief Timing: CUDA events on the device, a steady clock on the host.
///
/// The rules (chapter 00 explains them): time the scan alone
/// (allocation, host copies and the first launch stay outside), warm up,
/// repeat, report the median, keep min and max for the CSV.
#pragma once

#include <scan/error.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

namespace scan {

/// Median, minimum and maximum of repeated timings, in milliseconds.
struct TimingStats {
  double median_ms = 0;  ///< median
  double min_ms = 0;     ///< fastest run
  double max_ms = 0;     ///< slowest run
};

/// Summarizes samples (the median of an even count is the mean of the middle two).
TimingStats summarize(std::vector<double> samples_ms);

/// Effective bandwidth in GB/s (10^9 bytes per second) for `bytes` moved in `ms`.
inline double gigabytes_per_second(double bytes, double ms) {
  return ms > 0 ? bytes / (ms * 1e6) : 0.0;
}

/// Times `launch()` on the device: `warmup` untimed calls, then `reps` calls
/// back to back, each between two CUDA events on `stream`.
///
/// The calls are queued without waiting, as a real pipeline would queue them;
/// for very small n the host's launch rate then shows up in the time, which
/// is the launch latency the chapters talk about.
template <class Launch>
TimingStats time_device(Launch&& launch, int warmup, int reps, cudaStream_t stream) {
  for (int i = 0; i < warmup; ++i) launch();
  SCAN_CUDA(cudaStreamSynchronize(stream));
  std::vector<cudaEvent_t> marks(static_cast<std::size_t>(reps) + 1);
  for (auto& e : marks) SCAN_CUDA(cudaEventCreate(&e));
  SCAN_CUDA(cudaEventRecord(marks[0], stream));
  for (int i = 0; i < reps; ++i) {
    launch();
    SCAN_CUDA(cudaEventRecord(marks[static_cast<std::size_t>(i) + 1], stream));
  }
  SCAN_CUDA(cudaEventSynchronize(marks.back()));
  std::vector<double> samples;
  for (int i = 0; i < reps; ++i) {
    float ms = 0;
    SCAN_CUDA(cudaEventElapsedTime(&ms, marks[static_cast<std::size_t>(i)],
                                   marks[static_cast<std::size_t>(i) + 1]));
    samples.push_back(ms);
  }
  for (auto& e : marks) (void)cudaEventDestroy(e);
  return summarize(std::move(samples));
}

/// Times `work()` on the host with a steady clock, after `warmup` untimed calls.
template <class Work>
TimingStats time_host(Work&& work, int warmup, int reps) {
  for (int i = 0; i < warmup; ++i) work();
  std::vector<double> samples;
  for (int i = 0; i < reps; ++i) {
    const auto start = std::chrono::steady_clock::now();
    work();
    const auto stop = std::chrono::steady_clock::now();
    samples.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
  }
  return summarize(std::move(samples));
}

}  // namespace scan
