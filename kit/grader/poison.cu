#include "poison.cuh"

#include <cstdio>

namespace kit {

__global__ void fill_shared_memory(unsigned pattern, int words) {
  extern __shared__ unsigned shared_words[];
  // volatile: stores nothing in this kernel reads must still happen.
  volatile unsigned* slots = shared_words;
  for (int i = threadIdx.x; i < words; i += blockDim.x) slots[i] = pattern;
}

void SharedPoisoner::prepare() {
  // A best effort: where the device refuses, the suite runs without it.
  int device = 0, optin = 0, sms = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      cudaFuncSetAttribute(fill_shared_memory, cudaFuncAttributeMaxDynamicSharedMemorySize, optin) != cudaSuccess) {
    (void)cudaGetLastError();
    std::fprintf(stderr, "grade: shared memory is not poisoned on this device\n");
    bytes_ = 0;
    return;
  }
  bytes_ = optin / 4 * 4;
  blocks_ = 2 * sms;  // one block fills an SM's shared memory; twice as many as SMs reach every SM
}

void SharedPoisoner::fill(unsigned char byte) {
  if (bytes_ == 0) return;
  const unsigned pattern = 0x01010101u * byte;
  fill_shared_memory<<<blocks_, 1024, static_cast<std::size_t>(bytes_)>>>(pattern, bytes_ / 4);
  if (cudaPeekAtLastError() == cudaErrorInvalidConfiguration || cudaPeekAtLastError() == cudaErrorLaunchOutOfResources) {
    (void)cudaGetLastError();  // the launch itself was refused: go on without poison
    std::fprintf(stderr, "grade: shared memory is not poisoned on this device\n");
    bytes_ = 0;
    return;
  }
  SCAN_CUDA(cudaGetLastError());
  SCAN_CUDA(cudaDeviceSynchronize());
}

}  // namespace kit
