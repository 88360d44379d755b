#include "processes.hpp"

#include "grader.hpp"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
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
void CaseLog::skip(const std::string& why) { line("skip " + why); }
void CaseLog::done() { line("done"); }

// --- processes ----------------------------------------------------------------

namespace {

void start(Job& job) {
  std::vector<char*> argv;
  for (std::string& a : job.argv) argv.push_back(a.data());
  argv.push_back(nullptr);
  job.start = std::chrono::steady_clock::now();
  const pid_t parent = getpid();
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
    if (job.file_limit > 0) {
      // A write past the limit fails (EFBIG) instead of killing the child:
      // what it prints is cut there, and the grade goes on. The ignored
      // signal and the limit both survive exec.
      signal(SIGXFSZ, SIG_IGN);
      const rlimit limit{static_cast<rlim_t>(job.file_limit), static_cast<rlim_t>(job.file_limit)};
      setrlimit(RLIMIT_FSIZE, &limit);
    }
    if (job.memory_limit > 0) {
      const rlimit limit{static_cast<rlim_t>(job.memory_limit), static_cast<rlim_t>(job.memory_limit)};
      setrlimit(RLIMIT_AS, &limit);
    }
    if (job.run_as.drop) {
      // Root gives up its groups, then its group, then itself: after setuid
      // the child cannot get them back, signal the grader or open its files.
      if (setgroups(0, nullptr) != 0 || setgid(job.run_as.gid) != 0 || setuid(job.run_as.uid) != 0) {
        std::fprintf(stderr, "grade: cannot run as %s: %s\n", job.run_as.name.c_str(), std::strerror(errno));
        _exit(126);
      }
    }
    // A child dies with the grader: killed grader, no orphan left writing.
    // (Set after setuid, which would clear it.)
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(125);  // the grader died before the line above
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
  bool stalled = false;
  if (!job.progress_path.empty() && job.stall_limit_s > 0) {
    const auto now = std::chrono::steady_clock::now();
    const long long size = file_size(job.progress_path);
    if (size != job.progress_size) {
      job.progress_size = size;
      job.progress_at = now;
    }
    stalled = std::chrono::duration<double>(now - job.progress_at).count() > job.stall_limit_s;
  }
  if (elapsed > job.limit_s || stalled) {
    kill(-job.pid, SIGKILL);
    waitpid(job.pid, &status, 0);
    job.exit_code = 128 + SIGKILL;
    job.timed_out = elapsed > job.limit_s;
    job.stalled = !job.timed_out;
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
      jobs[next]->progress_at = jobs[next]->start;
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

std::string read_file(const std::string& path, long long limit) {
  std::ifstream in(path, std::ios::binary);
  if (limit <= 0) {
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  std::string text(static_cast<std::size_t>(limit), '\0');
  in.read(text.data(), limit);
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

long long file_size(const std::string& path) {
  struct stat s {};
  return stat(path.c_str(), &s) == 0 ? static_cast<long long>(s.st_size) : -1;
}

RunAs run_as_user(const std::string& name) {
  const passwd* user = getpwnam(name.c_str());
  if (user == nullptr) throw std::runtime_error("no user '" + name + "' on this machine (--run-as)");
  if (user->pw_uid == 0) throw std::runtime_error("--run-as needs an unprivileged user, not '" + name + "'");
  RunAs r;
  r.drop = true;
  r.uid = user->pw_uid;
  r.gid = user->pw_gid;
  r.name = name;
  return r;
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
