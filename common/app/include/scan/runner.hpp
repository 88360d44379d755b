/// \file
/// \brief The common runner: a chapter program's whole `main`.
///
/// A chapter's main.cu is one line:
/// \code
/// int main(int argc, char** argv) { return scan::run_chapter(scan::ch02::chapter(), argc, argv); }
/// \endcode
/// The runner parses the command line, generates a seeded input, runs every
/// selected variant once on a poisoned output and verifies it, times it, and
/// prints a table (or CSV, or JSON) that ends with the CUB and copy rows.
#pragma once

#include <scan/registry.hpp>

#include <functional>
#include <string>

namespace scan {

/// Runs a chapter program. Returns the exit code (error.hpp); never throws.
int run_chapter(const Chapter& chapter, int argc, char** argv);

/// Runs a program's `body` and turns what it throws into one line on stderr
/// ("PROGRAM: reason") and the matching exit code (error.hpp); never throws.
int guarded_main(const std::string& program, const std::function<int()>& body);

}  // namespace scan
