// Chapter 04's program: every variant of the chapter, through the common runner.
#include "double_buffer.cuh"

#include <scan/runner.hpp>

int main(int argc, char** argv) { return scan::run_chapter(scan::ch04::chapter(), argc, argv); }
