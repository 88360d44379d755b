// Chapter 03's program: every variant of the chapter, through the common runner.
#include "shared_memory.cuh"

#include <scan/runner.hpp>

int main(int argc, char** argv) { return scan::run_chapter(scan::ch03::chapter(), argc, argv); }
