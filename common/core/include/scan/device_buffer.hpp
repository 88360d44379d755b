/// \file
/// \brief DeviceBuffer: an owning, move-only array in device memory.
#pragma once

#include <scan/error.hpp>
#include <scan/poison.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace scan {

/// Formats a byte count for messages: "512 B", "3.0 KiB", "1.50 GiB".
std::string format_bytes(std::size_t bytes);

/// An array of `T` in device memory, freed when the buffer goes out of scope.
///
/// Allocation failure throws CudaError with the size in the message, so an
/// out-of-memory condition is a readable error, never an abort.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;

  /// Allocates `count` elements (uninitialized). A count of 0 allocates nothing.
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count_ == 0) return;
    const cudaError_t status = cudaMalloc(reinterpret_cast<void**>(&data_), bytes());
    if (status != cudaSuccess) {
      (void)cudaGetLastError();  // clear the error so later calls do not report it again
      data_ = nullptr;
      throw CudaError(status, std::string(cudaGetErrorName(status)) + " (" +
                                  cudaGetErrorString(status) + ") allocating " +
                                  format_bytes(bytes()) + " of device memory");
    }
  }

  /// Allocates and copies `host` to the device.
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) {
    if (!host.empty()) {
      SCAN_CUDA(cudaMemcpy(data_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
    }
  }

  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  /// Takes over `other`'s memory.
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  /// Frees this buffer's memory and takes over `other`'s.
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }
  ~DeviceBuffer() { release(); }

  /// The device pointer (null when empty).
  T* data() noexcept { return data_; }
  /// The device pointer (null when empty).
  const T* data() const noexcept { return data_; }
  /// Number of elements.
  std::size_t size() const noexcept { return count_; }
  /// Size in bytes.
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }

  /// Copies the whole buffer into `host`, resizing it.
  void copy_to(std::vector<T>& host) const {
    host.resize(count_);
    if (count_ != 0) {
      SCAN_CUDA(cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost));
    }
  }

  /// Returns a host copy of the buffer.
  std::vector<T> to_host() const {
    std::vector<T> host;
    copy_to(host);
    return host;
  }

 private:
  void release() noexcept {
    if (data_ != nullptr) (void)cudaFree(data_);  // nothing useful to do on failure here
    data_ = nullptr;
    count_ = 0;
  }

  T* data_ = nullptr;
  std::size_t count_ = 0;
};

/// Fills every element of `buffer` with poison (poison.hpp), so that a check
/// after a run finds each element the run left unwritten.
template <class T>
void poison(DeviceBuffer<T>& buffer) {
  if (buffer.bytes() > 0) SCAN_CUDA(cudaMemset(buffer.data(), poison_byte<T>(), buffer.bytes()));
}

}  // namespace scan
