#include "poison.cuh"

namespace kit {

__global__ void fill_shared_memory(unsigned pattern, int words) {
  extern __shared__ unsigned shared_words[];
  // volatile: stores nothing in this kernel reads must still happen.
  volatile unsigned* slots = shared_words;
  for (int i = threadIdx.x; i < words; i += blockDim.x) slots[i] = pattern;
}

void SharedPoisoner::prepare() {
  int device = 0;
  SCAN_CUDA(cudaGetDevice(&device));
  int optin = 0, sms = 0;
  SCAN_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  SCAN_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  SCAN_CUDA(cudaFuncSetAttribute(fill_shared_memory, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
  bytes_ = optin / 4 * 4;
  blocks_ = 2 * sms;  // one block fills an SM's shared memory; twice as many as SMs reach every SM
}

void SharedPoisoner::fill(unsigned char byte) {
  if (bytes_ == 0) return;
  const unsigned pattern = 0x01010101u * byte;
  fill_shared_memory<<<blocks_, 1024, static_cast<std::size_t>(bytes_)>>>(pattern, bytes_ / 4);
  SCAN_CUDA(cudaGetLastError());
  SCAN_CUDA(cudaDeviceSynchronize());
}

}  // namespace kit
