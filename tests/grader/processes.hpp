// Running the grader's children: each in its own process group, with its
// output in a file and a time limit after which the whole group is killed.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace kit {

/// One child process.
struct Job {
  std::vector<std::string> argv;  ///< the program and its arguments
  std::string log_path;           ///< receives its stdout and stderr
  double limit_s = 60;            ///< killed after this many seconds
  std::string label;              ///< for messages

  int exit_code = -1;             ///< its exit status (128 + signal if killed by one)
  bool timed_out = false;         ///< killed at the limit
  double seconds = 0;             ///< how long it ran

  pid_t pid = -1;                                ///< while running
  std::chrono::steady_clock::time_point start;   ///< when it started
  bool finished = false;                         ///< it has ended
};

/// Runs the jobs, at most `parallel` at a time, and waits for all.
void run_jobs(std::vector<Job*> jobs, int parallel);

/// This program's own path (/proc/self/exe).
std::string self_path();

/// A file's contents ("" if it cannot be read).
std::string read_file(const std::string& path);

/// The path of an executable found on PATH or in `extra` folders; "" if none.
std::string find_program(const std::string& name, const std::vector<std::string>& extra);

}  // namespace kit
