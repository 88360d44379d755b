#include "processes.hpp"

#include "grader.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace kit {

// --- CaseLog ------------------------------------------------------------------

CaseLog::CaseLog(const std::string& path) : file_(std::fopen(path.c_str(), "w")) {
  if (file_ == nullptr) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
}

CaseLog::~CaseLog() {
  if (file_ != nullptr) std::fclose(file_);
}

void CaseLog::line(const std::string& text) {
  std::string one = text;
  for (char& c : one) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  std::fputs(one.c_str(), file_);
  std::fputc('\n', file_);
  std::fflush(file_);
}

void CaseLog::begin(const std::string& description) { line("case " + description); }
void CaseLog::pass() { line("pass"); }
void CaseLog::fail(const std::string& why) { line("fail " + why); }
void CaseLog::abort(const std::string& why) { line("abort " + why); }
void CaseLog::done() { line("done"); }

// --- processes ----------------------------------------------------------------

namespace {

void start(Job& job) {
  std::vector<char*> argv;
  for (std::string& a : job.argv) argv.push_back(a.data());
  argv.push_back(nullptr);
  job.start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
  if (pid == 0) {
    setpgid(0, 0);
    const int fd = open(job.log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
      close(fd);
    }
    execv(argv[0], argv.data());
    std::fprintf(stderr, "grade: cannot run %s: %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  setpgid(pid, pid);  // as the child does: no race between the two
  job.pid = pid;
}

bool poll(Job& job) {
  int status = 0;
  const pid_t got = waitpid(job.pid, &status, WNOHANG);
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - job.start).count();
  if (got == job.pid) {
    job.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    job.seconds = elapsed;
    job.finished = true;
    kill(-job.pid, SIGKILL);  // anything it left behind in its group
    return true;
  }
  if (elapsed > job.limit_s) {
    kill(-job.pid, SIGKILL);
    waitpid(job.pid, &status, 0);
    job.exit_code = 128 + SIGKILL;
    job.timed_out = true;
    job.seconds = elapsed;
    job.finished = true;
    return true;
  }
  return false;
}

}  // namespace

void run_jobs(std::vector<Job*> jobs, int parallel) {
  std::size_t next = 0;
  std::vector<Job*> running;
  while (next < jobs.size() || !running.empty()) {
    while (next < jobs.size() && static_cast<int>(running.size()) < std::max(parallel, 1)) {
      start(*jobs[next]);
      running.push_back(jobs[next++]);
    }
    for (std::size_t k = 0; k < running.size();) {
      if (poll(*running[k])) {
        running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
      } else {
        ++k;
      }
    }
    if (!running.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

std::string self_path() {
  char buffer[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buffer, sizeof buffer - 1);
  if (n <= 0) throw std::runtime_error("cannot read /proc/self/exe");
  return std::string(buffer, static_cast<std::size_t>(n));
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string find_program(const std::string& name, const std::vector<std::string>& extra) {
  std::vector<std::string> folders;
  if (const char* path = std::getenv("PATH")) {
    std::stringstream in(path);
    std::string folder;
    while (std::getline(in, folder, ':')) folders.push_back(folder);
  }
  folders.insert(folders.end(), extra.begin(), extra.end());
  for (const std::string& folder : folders) {
    if (folder.empty()) continue;
    const std::string candidate = folder + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

}  // namespace kit
