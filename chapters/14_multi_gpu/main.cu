// Chapter 14's program: the scan across GPUs, through its own runner (it
// needs several GPUs and NCCL, unlike the one-GPU chapters).
#include "program.hpp"

#include <scan/runner.hpp>

int main(int argc, char** argv) {
  return scan::guarded_main("ch14_multi_gpu", [&] { return scan::ch14::run_program(argc, argv); });
}
