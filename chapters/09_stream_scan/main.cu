// Chapter 09's program: every variant of the chapter, through the common runner.
#include "stream_scan.cuh"

#include <scan/runner.hpp>

int main(int argc, char** argv) { return scan::run_chapter(scan::ch09::chapter(), argc, argv); }
