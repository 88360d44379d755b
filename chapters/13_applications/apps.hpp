/// \file
/// \brief Chapter 13's program: its options, and the inputs it makes.
#pragma once

#include <scan/cli.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace scan::ch13 {

/// The slopes a_i of the recurrences the program and the tests run.
enum class Slopes {
  decaying,  ///< a in [0.9, 0.9999): an exponential moving average, a model's decaying state
  one,       ///< a = 1: a plain running sum (of small integers: exact)
  mixed,     ///< a = 1 at every third element, elsewhere |a| < 0.99 of either sign
};

/// The command line of ch13_applications.
struct AppOptions : RunOptions {
  std::int64_t n = std::int64_t{16} << 20;  ///< elements
  std::string app = "all";                  ///< which application
  DType dtype = DType::i32;                 ///< compact: the element type (32-bit)
  double select = 0.5;                      ///< compact: the fraction kept
  int bit = 0;                              ///< split: the bit
  std::int64_t row = 65536;                 ///< recurrence: the batch's row length (0: none)
  Slopes slopes = Slopes::decaying;         ///< recurrence: the a_i
  OutputFormat format = OutputFormat::table;  ///< table or `--csv`
  bool baselines = true;                    ///< the library rows
};

/// The applications, in the order the program runs them.
const std::vector<std::string>& application_names();

/// Slopes a_i of a recurrence of n elements.
std::vector<float> recurrence_slopes(std::int64_t n, Slopes kind, std::uint64_t seed);
/// Offsets b_i of a recurrence of n elements.
std::vector<float> recurrence_offsets(std::int64_t n, Slopes kind, std::uint64_t seed);
/// The depth of the association tree of element i in linear_recurrence()'s
/// kernel (rows of `row` elements; 0: one sequence): what its error bound
/// counts (the text derives it).
double recurrence_depth(std::int64_t i, std::int64_t row);

/// The program's main: parses the command line and runs the applications.
int run_applications(int argc, char** argv);

}  // namespace scan::ch13
