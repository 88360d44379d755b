// Chapter 13's program: the applications, through their own runner (each has
// its own kind of input and output, unlike the scans of chapters 02-12).
#include "program.hpp"

#include <scan/runner.hpp>

int main(int argc, char** argv) {
  return scan::guarded_main("ch13_applications", [&] { return scan::ch13::run_applications(argc, argv); });
}
