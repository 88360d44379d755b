#include <scan/trace.hpp>

#include <cstring>

namespace scan {

void Trace::snapshot(std::string label, const void* device_data) {
  Row row{std::move(label), std::vector<std::byte>(static_cast<std::size_t>(n_) * element_size_)};
  SCAN_CUDA(cudaDeviceSynchronize());
  SCAN_CUDA(cudaMemcpy(row.data.data(), device_data, row.data.size(), cudaMemcpyDeviceToHost));
  rows_.push_back(std::move(row));
}

void Trace::snapshot_host(std::string label, const void* host_data) {
  Row row{std::move(label), std::vector<std::byte>(static_cast<std::size_t>(n_) * element_size_)};
  std::memcpy(row.data.data(), host_data, row.data.size());
  rows_.push_back(std::move(row));
}

}  // namespace scan
