/// \file
/// \brief Harness: runs one variant on one input, verifiably and timeably.
///
/// The chapter programs, the generic GPU test suite and the scoreboard all go
/// through this class, so they poison, run, verify and time in one way. It
/// owns the input and output (in device memory for GPU variants, in host
/// memory for CPU ones) and the variant's workspace, all allocated outside
/// any timed region.
#pragma once

#include <scan/device_buffer.hpp>
#include <scan/generate.hpp>
#include <scan/segments.hpp>
#include <scan/registry.hpp>
#include <scan/timing.hpp>
#include <scan/types.hpp>
#include <scan/verify.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace scan {

/// Runs variants of one chapter on one input of type T.
template <class T>
class Harness {
 public:
  /// Takes the input, and for a segmented scan (chapter 12) its head flags
  /// (n bytes; empty for a plain scan); for device variants they are copied
  /// to the GPU here, with the segment keys that by-key variants read.
  Harness(Where where, std::vector<T> input, std::vector<std::uint8_t> heads = {})
      : where_(where), input_(std::move(input)), heads_(std::move(heads)) {
    if (where_ == Where::device) {
      d_in_ = DeviceBuffer<T>(input_);
      d_out_ = DeviceBuffer<T>(input_.size());
      if (!heads_.empty()) {
        d_heads_ = DeviceBuffer<std::uint8_t>(heads_);
        d_keys_ = DeviceBuffer<std::int32_t>(keys_from_heads(heads_));
      }
    } else {
      h_out_.resize(input_.size());
      if (!heads_.empty()) h_keys_ = keys_from_heads(heads_);
    }
  }

  /// Number of elements.
  std::int64_t n() const { return static_cast<std::int64_t>(input_.size()); }
  /// The input, on the host.
  const std::vector<T>& input() const { return input_; }
  /// Where the scan starts over: at the head flags of a segmented scan, or
  /// every `segment` elements (VariantInfo::segment; 0 for a full scan).
  Restarts restarts(std::int64_t segment) const {
    return heads_.empty() ? Restarts(segment) : Restarts(heads_.data());
  }

  /// Runs `variant` once into a freshly poisoned output and returns the
  /// output (a host copy, valid until the next call that returns one).
  /// `trace` collects the steps when not null.
  const std::vector<T>& run_once(const Variant& variant, OpId op, Kind kind, int block, Trace* trace) {
    const ErasedRequest request = prepare(variant, op, kind, block, trace);
    poison_output();
    variant.run(dtype_of<T>(), op, request);
    return output();
  }

  /// Times `variant` (warm-up calls first). The output is poisoned before the
  /// first call, so output() afterwards shows what the timed calls wrote.
  TimingStats time(const Variant& variant, OpId op, Kind kind, int block, int warmup, int reps) {
    const ErasedRequest request = prepare(variant, op, kind, block, nullptr);
    poison_output();
    const auto call = [&] { variant.run(dtype_of<T>(), op, request); };
    if (where_ == Where::device) return time_device(call, warmup, reps, request.stream);
    return time_host(call, warmup, reps);
  }

  /// Times a plain copy of the input to the output (cudaMemcpyAsync device to
  /// device, or memcpy on the host): the ceiling a scan's bandwidth is
  /// compared with, on the same buffers. Overwrites the output.
  TimingStats time_copy(int warmup, int reps) {
    const std::size_t bytes = input_.size() * sizeof(T);
    if (where_ == Where::device) {
      return time_device(
          [&] {
            SCAN_CUDA(cudaMemcpyAsync(d_out_.data(), d_in_.data(), bytes, cudaMemcpyDeviceToDevice));
          },
          warmup, reps, nullptr);
    }
    return time_host([&] { std::memcpy(h_out_.data(), input_.data(), bytes); }, warmup, reps);
  }

  /// The current output, on the host (synchronizes). The reference stays
  /// valid until the next call that returns one: one host buffer is reused,
  /// so that checking a 2^30-element output does not first fault in 4 GiB
  /// of fresh pages every time.
  const std::vector<T>& output() {
    if (where_ == Where::device) {
      SCAN_CUDA(cudaDeviceSynchronize());
      copied_out_.resize(input_.size());
      if (!copied_out_.empty()) {
        SCAN_CUDA(cudaMemcpy(copied_out_.data(), d_out_.data(), copied_out_.size() * sizeof(T),
                             cudaMemcpyDeviceToHost));
      }
      return copied_out_;
    }
    return h_out_;
  }

 private:
  ErasedRequest prepare(const Variant& variant, OpId op, Kind kind, int block, Trace* trace) {
    const int threads = variant.block_for(block);
    const std::size_t workspace_bytes = variant.workspace_bytes(dtype_of<T>(), op, n(), threads);
    std::byte* scratch = nullptr;
    if (where_ == Where::device) {
      if (d_workspace_.bytes() < workspace_bytes) {
        d_workspace_ = DeviceBuffer<std::byte>();  // free the old one first
        d_workspace_ = DeviceBuffer<std::byte>(workspace_bytes);
      }
      scratch = d_workspace_.data();
    } else {
      if (h_workspace_.size() < workspace_bytes) h_workspace_.resize(workspace_bytes);
      scratch = h_workspace_.data();
    }
    ErasedRequest r;
    r.in = where_ == Where::device ? static_cast<const void*>(d_in_.data()) : input_.data();
    r.out = where_ == Where::device ? static_cast<void*>(d_out_.data()) : h_out_.data();
    r.n = n();
    r.kind = kind;
    r.workspace = Workspace(scratch, workspace_bytes);
    r.stream = nullptr;
    r.block_threads = threads;
    r.trace = trace;
    if (!heads_.empty()) {
      r.heads = where_ == Where::device ? d_heads_.data() : heads_.data();
      r.keys = where_ == Where::device ? d_keys_.data() : h_keys_.data();
    }
    return r;
  }

  void poison_output() {
    if (where_ == Where::device) {
      if (d_out_.bytes() != 0) SCAN_CUDA(cudaMemset(d_out_.data(), poison_byte<T>(), d_out_.bytes()));
    } else if (!h_out_.empty()) {
      std::memset(h_out_.data(), poison_byte<T>(), h_out_.size() * sizeof(T));
    }
  }

  Where where_;
  std::vector<T> input_;
  std::vector<std::uint8_t> heads_;   ///< segmented scans: the head flags (else empty)
  std::vector<std::int32_t> h_keys_;  ///< segmented scans on the host: the segment keys
  DeviceBuffer<std::uint8_t> d_heads_;
  DeviceBuffer<std::int32_t> d_keys_;
  std::vector<T> h_out_;
  std::vector<T> copied_out_;  ///< the last device output, copied to the host
  std::vector<std::byte> h_workspace_;
  DeviceBuffer<T> d_in_, d_out_;
  DeviceBuffer<std::byte> d_workspace_;
};

}  // namespace scan
