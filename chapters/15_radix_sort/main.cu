// Chapter 15's program: the onesweep radix sort, checked against a CPU
// reference and timed next to CUB's radix sort and a copy of the keys.
#include "sort_program.hpp"

#include <scan/runner.hpp>

int main(int argc, char** argv) {
  return scan::guarded_main("ch15_radix_sort", [&] { return scan::ch15::run_sort_program(argc, argv); });
}
