// One case of a grader's correctness child, run so that the student's code
// can fail it but not take the rest of the suite down with it.
#pragma once

#include "grader.hpp"

#include <scan/error.hpp>

#include <cuda_runtime.h>

#include <exception>
#include <string>

namespace kit {

/// Runs `body` (which returns "" or what was wrong) as one case of `log`.
/// An exception fails the case. A CUDA error after which the device no
/// longer synchronizes (a sticky error: the context is gone) aborts the
/// suite: returns false, and no later case may run.
template <class Body>
bool run_case(CaseLog& log, const std::string& description, bool on_device, Body&& body) {
  log.begin(description);
  try {
    const std::string problem = body();
    if (problem.empty()) {
      log.pass();
    } else {
      log.fail(problem);
    }
  } catch (const scan::CudaError& e) {
    if (on_device && cudaDeviceSynchronize() != cudaSuccess) {
      log.abort(e.what());
      return false;
    }
    (void)cudaGetLastError();
    log.fail(e.what());
  } catch (const std::exception& e) {
    log.fail(e.what());
  }
  return true;
}

}  // namespace kit
