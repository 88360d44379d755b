/// \file
/// \brief Exit codes, the exceptions that carry them, and CUDA error checking.
///
/// Every program of the tutorial ends with one of four exit codes. Library
/// code never calls `exit()`: it throws UsageError or CudaError, and the
/// common runner (runner.hpp) turns the exception into a one-line message on
/// stderr and the matching exit code. Tests catch the same exceptions.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace scan {

/// The exit codes every program of the tutorial uses.
enum ExitCode : int {
  kExitOk = 0,           ///< every variant verified
  kExitWrongResult = 1,  ///< a result was wrong (the report names the first bad index)
  kExitUsage = 2,        ///< bad command line, or a request the device cannot hold
  kExitCuda = 3,         ///< no usable CUDA device, or a CUDA error
};

/// A bad argument or an impossible request; the runner exits with kExitUsage.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A failed CUDA runtime call; the runner exits with kExitCuda.
///
/// The message holds the runtime's error name and text, the call that failed
/// and where, for example
/// `cudaErrorMemoryAllocation (out of memory) in cudaMalloc(...) at buffer.hpp:40`.
class CudaError : public std::runtime_error {
 public:
  /// An error with the runtime's code and a full message.
  CudaError(cudaError_t code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  /// The runtime's error code.
  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

/// The GPU cannot run this code: too old an architecture, or too little
/// shared memory for a kernel's tiles. The runner prints the message alone
/// (it names the program, the GPU and what would run) and exits with
/// kExitCuda; the test suites skip with it as the reason.
class UnsupportedGpu : public CudaError {
 public:
  /// An error whose message is the whole line to print.
  explicit UnsupportedGpu(const std::string& message) : CudaError(cudaErrorNotSupported, message) {}
};

/// Throws CudaError if `status` is not cudaSuccess.
/// \param status the value a runtime call returned
/// \param call   the text of the call, for the message
/// \param file   source file of the call
/// \param line   source line of the call
void check_cuda(cudaError_t status, const char* call, const char* file, int line);

}  // namespace scan

/// Checks a CUDA runtime call: `SCAN_CUDA(cudaMalloc(&p, bytes));`
#define SCAN_CUDA(call) ::scan::check_cuda((call), #call, __FILE__, __LINE__)

/// Checks the launch that precedes it (bad configuration, missing kernel image).
/// Errors that happen while the kernel runs surface at the next synchronizing
/// call, which is checked too.
#define SCAN_CUDA_LAUNCH() ::scan::check_cuda(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
