/// \file
/// \brief `--trace`: the array after every step of an algorithm, for small n.
///
/// A reader who runs `ch03_shared_memory --n 8 --trace --input 3,1,7,0,4,1,6,3`
/// should see the same rows as the chapter's diagram. Algorithms cooperate in
/// one of two ways:
/// - a host loop of launches calls Trace::snapshot() after each launch;
/// - a kernel that takes several steps writes each step's values into a
///   StepLog (rows of n elements in device memory, one row per step); the host
///   then hands the rows to the Trace with StepRecorder::publish().
///
/// When the user did not ask for a trace, the algorithm's Trace pointer is
/// null, StepRecorder allocates nothing and StepLog::record() is one untaken,
/// uniform branch.
#pragma once

#include <scan/device_buffer.hpp>
#include <scan/ops.hpp>
#include <scan/poison.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace scan {

/// The largest n `--trace` accepts: beyond it the rows no longer fit a screen.
inline constexpr std::int64_t kTraceMaxN = 64;

/// The collected rows of one traced run: a label and the n elements (as raw
/// bytes of the element type) after each step.
class Trace {
 public:
  /// One row of the trace.
  struct Row {
    std::string label;            ///< what the step did, e.g. "offset 2"
    std::vector<std::byte> data;  ///< n elements of the scan's type
  };

  /// A trace of arrays of `n` elements of `element_size` bytes.
  Trace(std::int64_t n, std::size_t element_size) : n_(n), element_size_(element_size) {}

  /// Copies the n elements at `device_data` now (synchronizes the device).
  void snapshot(std::string label, const void* device_data);
  /// Copies the n elements at host memory `host_data` now.
  void snapshot_host(std::string label, const void* host_data);

  /// Elements per row.
  std::int64_t n() const { return n_; }
  /// The rows, in the order they were taken.
  const std::vector<Row>& rows() const { return rows_; }

 private:
  std::int64_t n_;
  std::size_t element_size_;
  std::vector<Row> rows_;
};

/// Device side of a multi-step trace: row `step` of the log holds the array
/// after that step. A kernel records every element after every step. Passed to kernels by value; `rows` is null when not tracing.
template <class T>
struct StepLog {
  T* rows = nullptr;       ///< steps x width elements, or null
  std::int64_t width = 0;  ///< elements per row (the scan's n)
  int steps = 0;           ///< rows available

  /// Records element `i` after step `step` (does nothing when not tracing).
  SCAN_HD void record(int step, std::int64_t i, const T& value) const {
    if (rows != nullptr && step < steps && i < width) rows[step * width + i] = value;
  }
};

/// Host side of a multi-step trace: owns the rows in device memory while the
/// kernel writes them, then publishes them to the Trace with their labels.
template <class T>
class StepRecorder {
 public:
  /// Prepares `max_steps` rows if `trace` is not null; otherwise does nothing.
  StepRecorder(Trace* trace, int max_steps) : trace_(trace) {
    if (trace_ == nullptr) return;
    rows_ = DeviceBuffer<T>(static_cast<std::size_t>(max_steps) * trace_->n());
    // Kernels record every element after every step; poison the rows so an
    // element a kernel forgot shows up as garbage, not as a plausible value.
    SCAN_CUDA(cudaMemset(rows_.data(), poison_byte<T>(), rows_.bytes()));
    log_ = StepLog<T>{rows_.data(), trace_->n(), max_steps};
  }

  /// What the kernel gets: a null log when not tracing.
  StepLog<T> log() const { return log_; }

  /// Hands rows 0 .. labels.size()-1 to the Trace, labelled in order.
  void publish(const std::vector<std::string>& labels) {
    if (trace_ == nullptr) return;
    const std::vector<T> all = rows_.to_host();
    for (std::size_t s = 0; s < labels.size() && s < static_cast<std::size_t>(log_.steps); ++s) {
      trace_->snapshot_host(labels[s], all.data() + s * trace_->n());
    }
  }

 private:
  Trace* trace_ = nullptr;
  DeviceBuffer<T> rows_;
  StepLog<T> log_{};
};

}  // namespace scan
