#include "multi_gpu.cuh"

#include <scan/error.hpp>

#include <algorithm>

namespace scan::ch14 {

void check_nccl(ncclResult_t result, const char* what) {
  if (result != ncclSuccess) {
    throw CudaError(cudaErrorUnknown, std::string("NCCL error in ") + what + ": " + ncclGetErrorString(result));
  }
}

int reduce_block_count(int device) {
  int sms = 0;
  SCAN_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return 4 * sms;
}

std::int64_t shard_begin(std::int64_t n, int ranks, int k) {
  // Whole 4096-element units while there are at least as many as GPUs.
  const std::int64_t unit = n >= 4096 * static_cast<std::int64_t>(ranks) ? 4096 : 1;
  const std::int64_t units = n / unit;
  const std::int64_t base = units / ranks, extra = units % ranks;
  const std::int64_t begin = (k * base + std::min<std::int64_t>(k, extra)) * unit;
  return k == ranks ? n : begin;  // the last shard also takes n's remainder below one unit
}

}  // namespace scan::ch14
