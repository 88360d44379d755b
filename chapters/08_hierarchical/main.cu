// Chapter 08's program: every variant of the chapter, through the common runner.
#include "hierarchical.cuh"

#include <scan/runner.hpp>

int main(int argc, char** argv) { return scan::run_chapter(scan::ch08::chapter(), argc, argv); }
