// Chapter 02's program: every variant of the chapter, through the common runner.
#include "naive_global.cuh"

#include <scan/runner.hpp>

int main(int argc, char** argv) { return scan::run_chapter(scan::ch02::chapter(), argc, argv); }
