// Running the grader's children: each in its own process group, with its
// output in a file, limits on its time, on its time without progress, on
// the size of any file it writes (and, on the CPU, its memory), and when the
// grader runs as root, as an unprivileged user who cannot signal the grader
// or write where the results go.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace kit {

/// Who a child runs as: the grader's own user, or (when the grader runs as
/// root and is told to) an unprivileged one.
struct RunAs {
  bool drop = false;  ///< switch to uid/gid in the child
  uid_t uid = 0;      ///< the user
  gid_t gid = 0;      ///< its group
  std::string name;   ///< for messages
};

/// Looks up a user by name (for --run-as); throws if there is none.
RunAs run_as_user(const std::string& name);

/// One child process.
struct Job {
  std::vector<std::string> argv;  ///< the program and its arguments
  std::string log_path;           ///< receives its stdout and stderr
  double limit_s = 60;            ///< killed after this many seconds
  std::string progress_path;      ///< a file the child appends to as it goes ("": none)
  double stall_limit_s = 0;       ///< killed when progress_path has not grown for this long (0: never)
  long long file_limit = 0;       ///< no file it writes may grow past this many bytes (0: no limit)
  long long memory_limit = 0;     ///< its address space, bytes (0: no limit; never for a CUDA program)
  RunAs run_as;                   ///< who it runs as
  std::string label;              ///< for messages

  int exit_code = -1;             ///< its exit status (128 + signal if killed by one)
  bool timed_out = false;         ///< killed at the limit
  bool stalled = false;           ///< killed for making no progress
  double seconds = 0;             ///< how long it ran

  pid_t pid = -1;                                ///< while running
  std::chrono::steady_clock::time_point start;   ///< when it started
  bool finished = false;                         ///< it has ended
  long long progress_size = -1;                  ///< progress_path's size when last seen
  std::chrono::steady_clock::time_point progress_at;  ///< when it last grew
};

/// Runs the jobs, at most `parallel` at a time, and waits for all.
void run_jobs(std::vector<Job*> jobs, int parallel);

/// This program's own path (/proc/self/exe).
std::string self_path();

/// A file's contents ("" if it cannot be read); at most `limit` bytes from
/// its start when limit > 0.
std::string read_file(const std::string& path, long long limit = 0);

/// A file's size in bytes (-1 if it cannot be seen).
long long file_size(const std::string& path);

/// The path of an executable found on PATH or in `extra` folders; "" if none.
std::string find_program(const std::string& name, const std::vector<std::string>& extra);

}  // namespace kit
