/// \file
/// \brief Chapter 00's copy kernel: what a hand-written kernel that only
/// moves the data reaches, beside cudaMemcpy's copy.
#pragma once

#include <scan/timing.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>

namespace scan::ch00 {

/// Times a copy of `bytes` bytes by a plain grid-stride kernel with 16-byte
/// loads. (The cudaMemcpy reference is Harness::time_copy(), on the scan's
/// own buffers.) Effective bandwidth counts the bytes twice (read and
/// write), as a scan's does, so the two compare directly.
TimingStats measure_copy_kernel(std::size_t bytes, int warmup, int reps, cudaStream_t stream = nullptr);

}  // namespace scan::ch00
