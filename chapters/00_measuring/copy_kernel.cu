#include "copy_kernel.cuh"

#include <scan/device_buffer.hpp>
#include <scan/error.hpp>

#include <algorithm>

namespace scan::ch00 {
namespace {

/// A grid-stride copy with 16-byte accesses: each thread moves one int4 per
/// trip, and a grid of a few blocks per SM keeps every SM's loads in flight.
__global__ void copy_kernel(const int4* __restrict__ src, int4* __restrict__ dst, std::size_t count) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    dst[i] = src[i];
  }
}

}  // namespace

TimingStats measure_copy_kernel(std::size_t bytes, int warmup, int reps, cudaStream_t stream) {
  const std::size_t vectors = (bytes + sizeof(int4) - 1) / sizeof(int4);
  DeviceBuffer<int4> src(vectors), dst(vectors);
  SCAN_CUDA(cudaMemset(src.data(), 0x5A, src.bytes()));
  int device = 0, sms = 0;
  SCAN_CUDA(cudaGetDevice(&device));
  SCAN_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  constexpr int kThreads = 256;
  const std::size_t wanted = (vectors + kThreads - 1) / kThreads;
  const int blocks = static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(wanted, 8u * sms)));
  return time_device(
      [&] {
        copy_kernel<<<blocks, kThreads, 0, stream>>>(src.data(), dst.data(), vectors);
        SCAN_CUDA_LAUNCH();
      },
      warmup, reps, stream);
}

}  // namespace scan::ch00
