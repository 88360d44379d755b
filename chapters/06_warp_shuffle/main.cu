// Chapter 06's program: every variant of the chapter, through the common runner.
#include "warp_shuffle.cuh"

#include <scan/runner.hpp>

int main(int argc, char** argv) { return scan::run_chapter(scan::ch06::chapter(), argc, argv); }
