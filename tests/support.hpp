// Test support: GPU availability, running the built programs, the generic suite.
#pragma once

#include <scan/registry.hpp>

#include <string>
#include <vector>

namespace scan::test {

/// Whether a usable CUDA device exists, and if not, the runtime's reason.
struct GpuStatus {
  bool available = false;
  std::string reason;
};

/// Asked once per process.
const GpuStatus& gpu_status();

/// For GPU tests: returns if a device is usable; otherwise SKIPs with the
/// reason, or FAILs when the environment sets SCAN_REQUIRE_GPU=1 (so a GPU
/// run cannot pass by skipping).
void require_gpu();

/// For tests of code that needs a newer GPU (chapters 11 to 14: a Hopper):
/// require_gpu(), then returns if the device meets `need`; otherwise SKIPs
/// with the programs' one-line reason, or FAILs when the environment sets
/// SCAN_REQUIRE_HOPPER=1 (as the H100 runs do). SCAN_PRETEND_SM is honoured.
void require_gpu(const ArchitectureNeed& need);

/// For tests that loop over every chapter: true if the device meets `need`;
/// false (after a WARN that names what is left out) if not, so the loop
/// skips that chapter; FAILs instead when SCAN_REQUIRE_HOPPER=1.
bool gpu_meets(const ArchitectureNeed& need, const std::string& what);

/// For multi-GPU tests: returns if `count` devices are usable; otherwise
/// SKIPs with the reason, or FAILs when SCAN_REQUIRE_GPU=1 and the
/// environment's SCAN_REQUIRE_GPUS asks for at least `count`.
void require_gpus(int count);

/// What a program printed and how it ended.
struct ProgramResult {
  int exit_code = -1;
  std::string output;  ///< stdout and stderr together
};

/// Runs a program from the build's bin/ folder (the folder this test
/// program lives in) with `arguments`; `environment` is prefixed to the
/// command ("CUDA_VISIBLE_DEVICES=").
ProgramResult run_program(const std::string& program, const std::string& arguments,
                          const std::string& environment = "");

/// Whether the build's bin/ folder holds `program` (chapter 14 is built only where NCCL is found).
bool program_exists(const std::string& program);

/// The chapter with this number ("02"), failing the test if it was not built.
const Chapter& chapter_by_number(const std::string& number);

/// The generic suite (DESIGN.md, "Tests") for every variant of a chapter:
/// odd sizes around warps, blocks and tiles, every type and operator, the
/// non-commutative operator, inclusive and exclusive, n = 0, and two runs on
/// one input agreeing. GPU chapters require a device (require_gpu()).
void run_generic_suite(const Chapter& chapter);

}  // namespace scan::test
