/// \file
/// \brief How the programs print numbers, and the progress line of a long run.
///
/// Tables, CSV and JSON go to stdout; the progress line goes to stderr, so
/// `--csv > file` stays clean while a run of minutes shows what it is doing.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace scan {

/// `value` with `decimals` digits after the point: fixed(3.14159, 2) is "3.14".
std::string fixed(double value, int decimals);

/// `value` rounded to `decimals` digits after the point (what JSON gets:
/// its writer prints the shortest text that reads back the same number).
double rounded(double value, int decimals);

/// "2^24" for a power of two, the plain number otherwise.
std::string exponent(std::int64_t n);

/// What a program is doing now, on stderr.
///
/// On a terminal it is one line, rewritten in place and erased at the end;
/// elsewhere (a log file) each step is a line of its own, and only for
/// n >= 2^24, where a step takes long enough to be worth a line. Every line
/// starts with the seconds since the program started. A disabled Progress
/// (`--quiet`) prints nothing.
class Progress {
 public:
  /// Steps of smaller runs are shown on a terminal only.
  static constexpr std::int64_t kLongRun = std::int64_t{1} << 24;

  /// Shows nothing when `enabled` is false.
  explicit Progress(bool enabled);
  /// Erases the progress line.
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  /// The step now under way, for a run of n elements ("ch10 tuned, n = 2^30 float: timing").
  void step(const std::string& what, std::int64_t n);
  /// A line that stays (a finished result), printed below the progress line.
  void print(const std::string& line);
  /// Erases the progress line; call it before printing anything else on a
  /// terminal.
  void clear();

 private:
  std::string stamp() const;

  bool enabled_;
  bool terminal_;
  bool shown_ = false;  ///< a rewritable line is on the terminal now
  std::chrono::steady_clock::time_point start_;
};

}  // namespace scan
