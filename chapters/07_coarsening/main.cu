// Chapter 07's program: every variant of the chapter, through the common runner.
#include "coarsening.cuh"

#include <scan/runner.hpp>

int main(int argc, char** argv) { return scan::run_chapter(scan::ch07::chapter(), argc, argv); }
