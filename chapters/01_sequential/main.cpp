// Chapter 01's program: every variant of the chapter, through the common runner.
#include "sequential.hpp"

#include <scan/runner.hpp>

int main(int argc, char** argv) { return scan::run_chapter(scan::ch01::chapter(), argc, argv); }
