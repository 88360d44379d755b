// Chapter 11's program: every variant of the chapter, through the common runner.
#include "copy_ceiling.cuh"

#include <scan/runner.hpp>

int main(int argc, char** argv) { return scan::run_chapter(scan::ch11::chapter(), argc, argv); }
