// Chapter 05's program: every variant of the chapter, through the common runner.
#include "brent_kung.cuh"

#include <scan/runner.hpp>

int main(int argc, char** argv) { return scan::run_chapter(scan::ch05::chapter(), argc, argv); }
