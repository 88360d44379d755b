// Chapter 12's program: every variant of the chapter, through the common runner.
#include "segmented.cuh"

#include <scan/runner.hpp>

int main(int argc, char** argv) { return scan::run_chapter(scan::ch12::chapter(), argc, argv); }
