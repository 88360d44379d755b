/// \file
/// \brief Chapter 14's program: its options.
#pragma once

#include <scan/cli.hpp>

#include <cstdint>
#include <string>

namespace scan::ch14 {

/// The command line of ch14_multi_gpu.
struct Options14 : RunOptions {
  std::int64_t n = std::int64_t{256} << 20;  ///< elements in all
  DType dtype = DType::i32;                  ///< `--type`
  OpId op = OpId::add;                       ///< `--op`
  Kind kind = Kind::inclusive;               ///< `--kind`
  int gpus = 0;                              ///< GPUs to use (0: all visible)
  std::string mode = "process";              ///< "process" or "ranks"
  bool defer_carry = false;                  ///< `--carry deferred`: each shard scanned alone, its carry apart
  bool compare = true;                       ///< also time the scan on one GPU
  OutputFormat format = OutputFormat::table; ///< table or `--csv`
};

/// The program's main: parses the command line and runs the scan.
int run_program(int argc, char** argv);

}  // namespace scan::ch14
