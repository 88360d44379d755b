// Chapter 03's program: every variant of the chapter, through the common runner.
#include "kogge_stone_shared.cuh"

#include <scan/runner.hpp>

int main(int argc, char** argv) { return scan::run_chapter(scan::ch03::chapter(), argc, argv); }
