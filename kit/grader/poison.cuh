// Poisoning shared memory before a graded run.
//
// The harness poisons a scan's *output* before every run, so an element
// never written fails. A read of shared memory nobody wrote is the same
// fault one level down, and compute-sanitizer's initcheck watches global
// memory only. Shared memory keeps what the last kernel on the SM left there
// (nothing promises it, nothing clears it), so before each graded run this
// kernel fills as much of every SM's shared memory as one block may take
// with the poison byte of the element type: a NaN pattern for floats, 0xA5
// bytes for integers, never an operator's identity. A kernel that reads a
// slot it did not write then reads poison, not a lucky zero. It is a
// best effort (the hardware may hand a block other bytes), which is why the
// planted uninitialized read is also caught by operators whose identity is
// not zero.
#pragma once

#include <scan/error.hpp>

#include <cuda_runtime.h>

namespace kit {

/// Fills `words` 4-byte words of dynamic shared memory with `pattern`.
__global__ void fill_shared_memory(unsigned pattern, int words);

/// Launches fill_shared_memory over every SM.
class SharedPoisoner {
 public:
  /// Reads the device's limits; call once, on the device that runs the scans.
  void prepare();
  /// Fills shared memory with `byte` repeated (and waits for it).
  void fill(unsigned char byte);

 private:
  int bytes_ = 0;
  int blocks_ = 0;
};

}  // namespace kit
