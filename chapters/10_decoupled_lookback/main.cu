// Chapter 10's program: every variant of the chapter, through the common runner.
#include "decoupled_lookback.cuh"

#include <scan/runner.hpp>

int main(int argc, char** argv) { return scan::run_chapter(scan::ch10::chapter(), argc, argv); }
