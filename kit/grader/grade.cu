// The classroom kit's grader (`grade` in a student folder). See grader.hpp
// for its parts and kit/README.md for how to run it for a class.
//
//   grade --reference PROGRAM [--quick] [--variant NAME]... [--json FILE] ...
//   grade --describe --out FILE      (what the reference program is asked first)
//
// Exit codes: 0 graded (whatever the score), 1 only with --expect when the
// expectation fails, 2 bad usage, 3 no usable CUDA device or a failure of
// the reference program (the kit, not the student, is broken).
#include "embedded.hpp"
#include "grader.hpp"
#include "processes.hpp"
#include "report.hpp"

#include <scan/error.hpp>
#include <scan/timing.hpp>

#include <cuda_runtime_api.h>
#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using nlohmann::json;

constexpr const char* kUsage = R"(usage: grade [options]

Grades this folder's chapter: correctness (the generic suite, verified
against a sequential oracle, with compute-sanitizer on GPU chapters) and
speed (the median time against the reference solution's, same run).

  --reference PROGRAM    the reference solution's program (the folder's
                         ./grade passes reference/grade-reference)
  --quick                fewer large sizes (a faster, weaker check)
  --variant NAME         grade this variant only (repeatable)
  --json FILE            write Gradescope's results to FILE (default results.json)
  --factor X             full speed marks within X times the reference's time
  --no-timing            skip the speed part (it then scores 0)
  --no-large             skip the run past 32-bit indices (kit.json's large_n)
  --sanitizer PATH|off   the compute-sanitizer to run (default: found on PATH
                         or in /usr/local/cuda/bin), or off
  --tools LIST           sanitizer tools (default memcheck,racecheck,synccheck)
  --perf-n N             elements of the timed scan
  --jobs N               checks run at a time (default 4; timing always alone)
  --time-limit S         seconds a check may take in all (default 300; a
                         sanitizer run twice that)
  --case-limit S         seconds a check may go without finishing a case
                         (default 20; a sanitizer run six times that): a
                         hang is reported with the case it hung in
  --output-limit BYTES   the most a check may write to any file, what it
                         prints included (default 1048576; the rest is cut)
  --run-as USER          run the checks (your code) as USER, who cannot
                         signal the grader or write its results (root only)
  --expect reference|bug for the kit's own tests: exit 1 unless correctness is
                         full (and speed too, without --ignore-speed) or zero
  --ignore-speed         see --expect
  --keep                 keep the checks' logs (their folder is printed)
  --quiet                print the summary line only
  --rules                check the source rules and the lines outside the
                         regions only (no device needed): exit 0 if they
                         hold, 1 if not
  --help                 this text

Exit codes: 0 graded, 1 an --expect failed, 2 bad usage, 3 no usable CUDA
device (or a CUDA error outside your code).
)";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Options {
  bool quick = false;
  std::vector<std::string> variants;
  std::string json_path = "results.json";
  double factor = 0;  // 0: kit.json's
  bool timing = true;
  bool large = true;
  std::string sanitizer;  // "" auto, "off", or a path
  std::vector<std::string> tools = {"memcheck", "racecheck", "synccheck"};
  std::int64_t perf_n = 0;  // 0: kit.json's
  std::string reference;
  int jobs = 4;
  double time_limit = 300;
  double case_limit = 20;
  long long output_limit = 1 << 20;
  std::string run_as;
  bool describe = false;
  std::string expect;
  bool ignore_speed = false;
  bool keep = false;
  bool quiet = false;
  bool rules_only = false;
  // children
  std::string child;
  std::string item;
  std::string out;
  std::string reference_entry;
};

std::int64_t parse_count(const std::string& text) {
  std::size_t used = 0;
  long long value = 0;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    throw UsageError("not a number: '" + text + "'");
  }
  if (used != text.size() || value < 0) throw UsageError("not a count: '" + text + "'");
  return value;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, separator)) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    std::string value;
    bool has_value = false;
    if (const auto eq = a.find('='); a.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = a.substr(eq + 1);
      a = a.substr(0, eq);
      has_value = true;
    }
    const auto next = [&]() -> std::string {
      if (has_value) return value;
      if (i + 1 >= argc) throw UsageError(a + " needs a value");
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else if (a == "--quick") {
      o.quick = true;
    } else if (a == "--variant") {
      o.variants.push_back(next());
    } else if (a == "--json") {
      o.json_path = next();
    } else if (a == "--factor") {
      try {
        o.factor = std::stod(next());
      } catch (const std::exception&) {
        throw UsageError("--factor takes a number above 1");
      }
      if (!(o.factor >= 1)) throw UsageError("--factor takes a number of at least 1");
    } else if (a == "--no-timing") {
      o.timing = false;
    } else if (a == "--no-large") {
      o.large = false;
    } else if (a == "--sanitizer") {
      o.sanitizer = next();
    } else if (a == "--tools") {
      o.tools = split(next(), ',');
      for (const std::string& t : o.tools) {
        if (t != "memcheck" && t != "racecheck" && t != "synccheck" && t != "initcheck") {
          throw UsageError("unknown sanitizer tool '" + t + "' (memcheck, racecheck, synccheck, initcheck)");
        }
      }
    } else if (a == "--perf-n") {
      o.perf_n = parse_count(next());
      if (o.perf_n == 0) throw UsageError("--perf-n must be at least 1");
    } else if (a == "--jobs") {
      o.jobs = static_cast<int>(parse_count(next()));
      if (o.jobs < 1) throw UsageError("--jobs must be at least 1");
    } else if (a == "--time-limit") {
      o.time_limit = static_cast<double>(parse_count(next()));
      if (o.time_limit < 1) throw UsageError("--time-limit must be at least 1 second");
    } else if (a == "--case-limit") {
      o.case_limit = static_cast<double>(parse_count(next()));
      if (o.case_limit < 1) throw UsageError("--case-limit must be at least 1 second");
    } else if (a == "--output-limit") {
      o.output_limit = parse_count(next());
      if (o.output_limit < 4096) throw UsageError("--output-limit must be at least 4096 bytes");
    } else if (a == "--run-as") {
      o.run_as = next();
    } else if (a == "--reference") {
      o.reference = next();
    } else if (a == "--describe") {
      o.describe = true;
    } else if (a == "--reference-entry") {
      o.reference_entry = next();
    } else if (a == "--expect") {
      o.expect = next();
      if (o.expect != "reference" && o.expect != "bug") throw UsageError("--expect takes 'reference' or 'bug'");
    } else if (a == "--ignore-speed") {
      o.ignore_speed = true;
    } else if (a == "--keep") {
      o.keep = true;
    } else if (a == "--quiet") {
      o.quiet = true;
    } else if (a == "--rules") {
      o.rules_only = true;
    } else if (a == "--child") {
      o.child = next();
    } else if (a == "--item") {
      o.item = next();
    } else if (a == "--out") {
      o.out = next();
    } else {
      throw UsageError("unknown option '" + a + "' (grade --help lists them)");
    }
  }
  return o;
}

std::unique_ptr<kit::Subject> make_subject() {
#if defined(KIT_SORT)
  return kit::sort_subject();
#elif defined(KIT_APPLICATIONS)
  return kit::applications_subject();
#else
  return kit::registry_subject();
#endif
}

json read_json_file(const std::string& path, const std::string& what) {
  const std::string text = kit::read_file(path);
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    throw std::runtime_error(what + " is not JSON (" + e.what() + ")");
  }
}

/// A child: runs this program's chapter (the student's code, or in the
/// reference program the reference's) and writes what happened to --out.
int run_child(const Options& o, const json& config) {
  auto subject = make_subject();
  if (o.child == "timing") {
    kit::PerfSettings perf;
    perf.n = o.perf_n > 0 ? o.perf_n : config.value("perf_n", std::int64_t{1} << 24);
    if (config.value("host", false)) {
      // A CPU scan of perf_n elements takes milliseconds: more calls steady
      // the median against the machine's noise.
      perf.warmup = 3;
      perf.reps = 15;
    }
    kit::TimingRound r;
    try {
      r = subject->timing(o.item, perf);
    } catch (const std::exception& e) {
      r.problem = std::string("the run failed: ") + e.what();
    }
    std::ofstream out(o.out);
    out.precision(9);
    out << "timing " << r.median_ms << "\n";
    out << "shape " << r.shape << "\n";
    if (!r.problem.empty()) out << "problem " << r.problem << "\n";
    return 0;
  }
  subject->use_reference(read_json_file(o.reference_entry, "the reference's entry"));
  kit::CaseLog log(o.out);
  if (o.child == "correctness") {
    subject->correctness(o.item, o.quick, log);
    return 0;
  }
  if (o.child == "sanitize") {
    subject->sanitize(o.item, config.value("sanitize_n", std::int64_t{0}), log);
    return 0;
  }
  if (o.child == "large") {
    subject->past_32_bits(o.item, config.at("large_n").get<std::int64_t>(), log);
    return 0;
  }
  throw UsageError("unknown --child '" + o.child + "'");
}

kit::TimingRound read_timing(const std::string& path) {
  kit::TimingRound r;
  std::istringstream in(kit::read_file(path, 1 << 16));
  std::string line;
  bool seen = false;
  while (std::getline(in, line)) {
    if (line.rfind("timing ", 0) == 0) {
      std::istringstream values(line.substr(7));
      seen = static_cast<bool>(values >> r.median_ms);
    } else if (line.rfind("shape ", 0) == 0) {
      r.shape = line.substr(6);
    } else if (line.rfind("problem ", 0) == 0) {
      r.problem = line.substr(8);
    }
  }
  if (!seen && r.problem.empty()) r.problem = "the timing run wrote nothing";
  return r;
}

std::string tail(const std::string& text, std::size_t bytes) {
  return text.size() > bytes ? "..." + text.substr(text.size() - bytes) : text;
}

/// What a finished check's output says about it: whether it hit the limit
/// on what it may write.
std::string output_note(const kit::Job& job, long long limit) {
  if (kit::file_size(job.log_path) < limit) return "";
  return "The " + job.label + " printed more than " + std::to_string(limit) +
         " bytes: the rest was cut (print less: the grader reads none of it).";
}

/// Why a check ended early, for the student: the limit it hit, or its exit.
std::string ended_early(const kit::Job& job) {
  if (job.stalled) {
    return "The " + job.label + " finished no case for " + std::to_string(static_cast<int>(job.stall_limit_s)) +
           " s (a hang?) and was stopped.";
  }
  if (job.timed_out) {
    return "The " + job.label + " ran past its limit of " + std::to_string(static_cast<int>(job.limit_s)) +
           " s and was stopped.";
  }
  if (job.exit_code == 126) return "The " + job.label + " could not start: " + kit::read_file(job.log_path, 400);
  if (job.exit_code != 0) {
    return "The " + job.label + " ended with exit code " + std::to_string(job.exit_code) +
           (job.exit_code > 128 ? " (signal " + std::to_string(job.exit_code - 128) + ": a crash?)" : "") +
           ". Its last output: " + tail(kit::read_file(job.log_path, 1 << 20), 400);
  }
  return "";
}

/// A results.json for a grade that could not run at all: zero points and why.
void write_unrun(const std::string& path, const std::string& why) {
  const json results = {{"score", 0},
                        {"visibility", "visible"},
                        {"output", why},
                        {"tests", json::array({{{"name", "grading"},
                                                {"score", 0},
                                                {"max_score", 0},
                                                {"status", "failed"},
                                                {"output", why}}})}};
  std::ofstream out(path);
  out << results.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
}

int run_parent(const Options& o, const json& config) {
  const auto started = std::chrono::steady_clock::now();
  kit::Grade grade;
  grade.chapter = config.at("chapter");
  grade.title = config.value("title", std::string());
  grade.factor = o.factor > 0 ? o.factor : config.value("factor", 1.2);
  grade.visibility = config.value("visibility", std::string("visible"));
  const bool host = config.value("host", false);
  if (o.reference.empty()) throw UsageError("--reference PROGRAM is required (the folder's ./grade passes it)");

  // The machine. The parent never runs the student's code, and on the GPU
  // it only asks the runtime what is there.
  if (host) {
    grade.machine = "CPU";
  } else {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || count == 0) {
      const std::string why = std::string("No usable CUDA GPU on this machine (") +
                              (status != cudaSuccess ? cudaGetErrorString(status) : "the runtime found none") +
                              "): chapter " + grade.chapter + " runs on a GPU, so nothing was graded. Grade on a "
                              "machine with an NVIDIA GPU and its driver.";
      std::fprintf(stderr, "grade: %s\n", why.c_str());
      write_unrun(o.json_path, why);
      std::fprintf(stderr, "grade: wrote %s (0 points: not graded)\n", o.json_path.c_str());
      return scan::kExitCuda;
    }
    cudaDeviceProp props{};
    if (cudaGetDeviceProperties(&props, 0) == cudaSuccess) grade.machine = props.name;
  }

  // Who runs the student's code.
  kit::RunAs student;
  if (!o.run_as.empty()) {
    if (geteuid() != 0) throw UsageError("--run-as needs the grader to run as root");
    student = kit::run_as_user(o.run_as);
  }

  // A folder for the children's files: theirs to write, when they run as
  // another user; the results go elsewhere (--json).
  std::string work_template = (std::filesystem::temp_directory_path() / "grade-XXXXXX").string();
  if (mkdtemp(work_template.data()) == nullptr) throw std::runtime_error("cannot make a temporary folder");
  const std::string work = work_template;
  if (student.drop && chown(work.c_str(), student.uid, student.gid) != 0) {
    throw std::runtime_error("cannot hand " + work + " to " + student.name);
  }
  const std::string self = kit::self_path();

  // The reference program's registry entry: the suite's sizes and limits.
  const std::string entry_path = work + "/reference-entry.json";
  {
    kit::Job job;
    job.argv = {o.reference, "--describe", "--out", work + "/reference-entry.tmp"};
    job.log_path = work + "/reference-describe.log";
    job.limit_s = 60;
    job.label = "reference program";
    kit::run_jobs({&job}, 1);
    if (job.exit_code != 0) {
      std::fprintf(stderr, "grade: the reference program %s did not describe its chapter (exit %d): %s\n",
                   o.reference.c_str(), job.exit_code, tail(kit::read_file(job.log_path, 1 << 16), 400).c_str());
      return scan::kExitCuda;
    }
    std::filesystem::rename(work + "/reference-entry.tmp", entry_path);
  }
  const json reference = read_json_file(entry_path, "the reference program's entry");
  if (!reference.value("title", std::string()).empty()) grade.title = reference.at("title");

  // compute-sanitizer: on GPU chapters, unless turned off; on the CPU only
  // when named (the kit's own tests use that to check the plumbing).
  std::string sanitizer;
  if (o.sanitizer == "off") {
    grade.sanitizer = "off (--sanitizer off)";
  } else if (!o.sanitizer.empty()) {
    sanitizer = o.sanitizer;
  } else if (!host) {
    std::vector<std::string> extra = {"/usr/local/cuda/bin", "/usr/local/cuda/compute-sanitizer"};
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
      if (const char* v = std::getenv(var)) extra.push_back(std::string(v) + "/bin");
    }
    sanitizer = kit::find_program("compute-sanitizer", extra);
    if (sanitizer.empty()) grade.sanitizer = "not found: not run (correctness then rests on the suite and the rules)";
  }
  if (!sanitizer.empty()) {
    std::string tools;
    for (const auto& tool : o.tools) tools += (tools.empty() ? "" : ", ") + tool;
    grade.sanitizer = sanitizer + " (" + tools + ")";
    grade.sanitizer_ran = true;
  }

  // What is graded, and for how many points.
  std::vector<std::string> graded = config.at("graded").get<std::vector<std::string>>();
  const std::vector<std::string> timed_names = config.value("timed", std::vector<std::string>{});
  if (!o.variants.empty()) {
    for (const std::string& v : o.variants) {
      if (std::find(graded.begin(), graded.end(), v) == graded.end()) {
        std::string known;
        for (const auto& g : graded) known += (known.empty() ? "" : ", ") + g;
        throw UsageError("'" + v + "' is not graded here (graded: " + known + ")");
      }
    }
    graded = o.variants;
  }
  const double correctness_points = config.at("points").value("correctness", 70.0);
  const double speed_points = config.at("points").value("speed", 30.0);
  std::size_t timed_count = 0;
  for (const auto& g : graded) timed_count += std::count(timed_names.begin(), timed_names.end(), g);
  for (const std::string& name : graded) {
    kit::ItemGrade item;
    item.name = name;
    item.timed = std::count(timed_names.begin(), timed_names.end(), name) > 0;
    item.correctness_max = correctness_points / static_cast<double>(graded.size());
    item.speed_max = item.timed ? speed_points / static_cast<double>(timed_count) : 0;
    grade.items.push_back(item);
  }

  // A check runs the student's code: limited in time, in time without a
  // finished case, in what it may write, in memory on the CPU (a CUDA
  // program reserves far more address space than it uses, so not there),
  // and as the unprivileged user when there is one.
  const auto student_job = [&](kit::Job& job, const std::string& label, const std::string& stem, double scale) {
    job.log_path = stem + ".log";
    job.progress_path = stem + ".cases";
    job.limit_s = scale * o.time_limit;
    job.stall_limit_s = scale * o.case_limit;
    job.file_limit = o.output_limit;
    job.memory_limit = host ? config.value("memory_limit", std::int64_t{8} << 30) : 0;
    job.run_as = student;
    job.label = label;
  };
  if (!o.quiet) {
    std::fprintf(stderr, "grade: checking %zu variant(s) of chapter %s...\n", grade.items.size(), grade.chapter.c_str());
  }

  // Correctness first; compute-sanitizer then watches the variants whose
  // suite passed (a variant that fails or hangs there has lost its points),
  // and where kit.json sets large_n, each of them runs once past what 32-bit
  // indices count, one at a time (each takes tens of GiB).
  std::vector<kit::Job> correctness_jobs(grade.items.size());
  std::vector<kit::Job*> all;
  for (std::size_t k = 0; k < grade.items.size(); ++k) {
    kit::Job& job = correctness_jobs[k];
    const std::string stem = work + "/" + std::to_string(k) + ".correctness";
    student_job(job, "suite of " + grade.items[k].name, stem, 1.0);
    job.argv = {self, "--child", "correctness", "--item", grade.items[k].name, "--out", job.progress_path,
                "--reference-entry", entry_path};
    if (o.quick) job.argv.push_back("--quick");
    all.push_back(&job);
  }
  kit::run_jobs(all, o.jobs);
  std::vector<std::vector<kit::Job>> sanitizer_jobs(grade.items.size());
  all.clear();
  for (std::size_t k = 0; k < grade.items.size(); ++k) {
    kit::ItemGrade& item = grade.items[k];
    const kit::Job& job = correctness_jobs[k];
    item.cases = kit::read_case_log(job.progress_path);
    item.child_problem = ended_early(job);
    if (const std::string note = output_note(job, o.output_limit); !note.empty()) item.notes.push_back(note);
    const bool passed = item.child_problem.empty() && item.cases.done && item.cases.failed == 0;
    if (sanitizer.empty() || !passed) continue;
    for (const std::string& tool : o.tools) {
      kit::Job s;
      student_job(s, tool + " run of " + item.name, work + "/" + std::to_string(k) + "." + tool, 6.0);
      s.limit_s = 2 * o.time_limit;
      s.argv = {sanitizer, "--tool", tool, "--error-exitcode", "99", "--print-limit", "12",
                self, "--child", "sanitize", "--item", item.name, "--out", s.progress_path,
                "--reference-entry", entry_path};
      sanitizer_jobs[k].push_back(s);
    }
  }
  for (auto& jobs : sanitizer_jobs) {
    for (auto& j : jobs) all.push_back(&j);
  }
  kit::run_jobs(all, o.jobs);
  std::vector<kit::Job> large_jobs(grade.items.size());
  all.clear();
  if (config.contains("large_n") && o.large) {
    for (std::size_t k = 0; k < grade.items.size(); ++k) {
      const kit::ItemGrade& item = grade.items[k];
      if (!item.child_problem.empty() || !item.cases.done || item.cases.failed != 0) continue;
      kit::Job& job = large_jobs[k];
      student_job(job, "run past 32-bit indices of " + item.name, work + "/" + std::to_string(k) + ".large", 6.0);
      job.argv = {self, "--child", "large", "--item", item.name, "--out", job.progress_path, "--reference-entry",
                  entry_path};
      all.push_back(&job);
    }
    if (!all.empty() && !o.quiet) std::fprintf(stderr, "grade: one run past 32-bit indices per variant...\n");
    kit::run_jobs(all, 1);
  }
  for (std::size_t k = 0; k < grade.items.size(); ++k) {
    kit::ItemGrade& item = grade.items[k];
    if (!large_jobs[k].argv.empty()) {
      item.large = kit::read_case_log(large_jobs[k].progress_path);
      item.large_problem = ended_early(large_jobs[k]);
    }
    for (const kit::Job& s : sanitizer_jobs[k]) {
      kit::SanitizerRun run = kit::judge_sanitizer(s.argv[2], s.exit_code, s.timed_out || s.stalled,
                                                   kit::read_file(s.log_path, o.output_limit));
      if (s.stalled || s.timed_out) {
        const kit::CaseSummary cases = kit::read_case_log(s.progress_path);
        run.excerpt = ended_early(s) + (cases.unfinished.empty() ? "" : " It was in: " + cases.unfinished);
      }
      item.sanitizers.push_back(run);
    }
  }

  // The source rules and the lines outside the regions, on the files as
  // they were compiled.
  grade.has_rules = !host;  // every GPU region: no return before a barrier
  for (const auto& region : config.at("regions")) {
    if (!region.at("rule").empty()) grade.has_rules = true;
  }
  grade.violations = kit::check_rules(config);
  grade.outside_edits = kit::check_handout(config);
  grade.outside_edits_allowed = config.value("outside_edits", std::string("refuse")) == "allow";
  kit::score_correctness(grade);

  // Speed, one item at a time (nothing else running), correct items only:
  // rounds of the student's timing child and the reference program's, in
  // alternating order, each on the same input; the medians of the rounds.
  bool reference_broken = false;
  const std::int64_t perf_n = o.perf_n > 0 ? o.perf_n : config.value("perf_n", std::int64_t{1} << 24);
  for (std::size_t k = 0; k < grade.items.size(); ++k) {
    kit::ItemGrade& item = grade.items[k];
    if (!item.timed) continue;
    if (!o.timing) {
      item.timing_note = "Not timed (--no-timing).";
      continue;
    }
    if (!item.correct) {
      item.timing_note = "Not timed: speed counts only for a correct variant.";
      continue;
    }
    if (!o.quiet) std::fprintf(stderr, "grade: timing %s against the reference...\n", item.name.c_str());
    item.timing_ran = true;
    std::vector<double> student_ms, reference_ms;
    const kit::PerfSettings rounds;
    for (int round = 0; round < rounds.rounds && item.timing.problem.empty(); ++round) {
      for (int turn = 0; turn < 2 && item.timing.problem.empty(); ++turn) {
        const bool student_turn = (round + turn) % 2 == 0;
        kit::Job job;
        const std::string stem = work + "/" + std::to_string(k) + ".timing" + std::to_string(round) +
                                 (student_turn ? "s" : "r");
        if (student_turn) {
          student_job(job, "timing run of " + item.name, stem, 1.0);
          job.argv = {self};
        } else {
          job.log_path = stem + ".log";
          job.limit_s = o.time_limit;
          job.label = "reference's timing run";
          job.argv = {o.reference};
        }
        job.progress_path.clear();
        job.argv.insert(job.argv.end(), {"--child", "timing", "--item", item.name, "--out", stem + ".timing",
                                         "--perf-n", std::to_string(perf_n)});
        kit::run_jobs({&job}, 1);
        kit::TimingRound r;
        if (const std::string why = ended_early(job); !why.empty()) {
          r.problem = why;
        } else {
          r = read_timing(stem + ".timing");
        }
        if (!r.problem.empty()) {
          item.timing.problem = (student_turn ? "Your timed run: " : "The reference's timed run: ") + r.problem;
          reference_broken = !student_turn;
        }
        item.timing.shape = r.shape;
        (student_turn ? student_ms : reference_ms).push_back(r.median_ms);
      }
    }
    if (item.timing.problem.empty()) {
      item.timing.student_ms = scan::summarize(student_ms).median_ms;
      item.timing.reference_ms = scan::summarize(reference_ms).median_ms;
    }
  }
  kit::score_speed(grade);
  grade.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  // Reports. Text from the children may hold anything (a cut UTF-8
  // character, control bytes): the JSON replaces what is not valid UTF-8.
  const json results = kit::results_json(grade);
  {
    const std::string temporary = o.json_path + ".partial";
    std::ofstream out(temporary);
    out << results.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
    out.close();
    if (!out || std::rename(temporary.c_str(), o.json_path.c_str()) != 0) {
      std::fprintf(stderr, "grade: cannot write %s\n", o.json_path.c_str());
    }
  }
  if (!o.quiet) {
    std::fputs(kit::table(grade).c_str(), stdout);
  }
  std::printf("%s\n", kit::summary_line(grade).c_str());
  if (o.keep) {
    std::printf("logs: %s\n", work.c_str());
  } else {
    std::error_code ignored;
    std::filesystem::remove_all(work, ignored);
  }
  if (reference_broken) {
    std::fprintf(stderr, "grade: the reference program's timed run failed: the kit is broken\n");
    return scan::kExitCuda;
  }
  if (o.expect == "reference") {
    const bool full_correctness = grade.correctness >= grade.correctness_max - 1e-9;
    const bool full_speed = o.ignore_speed || grade.speed >= grade.speed_max - 1e-9;
    if (!full_correctness || !full_speed) {
      std::fprintf(stderr, "grade: expected full marks for the reference%s\n", o.ignore_speed ? " (correctness)" : "");
      return 1;
    }
  } else if (o.expect == "bug") {
    if (grade.correctness > 1e-9) {
      std::fprintf(stderr, "grade: expected zero correctness for a planted bug\n");
      return 1;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    const json config = json::parse(kit::kConfig);
    if (!o.child.empty()) return run_child(o, config);
    if (o.describe) {
      if (o.out.empty()) throw UsageError("--describe needs --out FILE");
      std::ofstream out(o.out);
      out << make_subject()->describe().dump(2) << "\n";
      return out ? 0 : scan::kExitCuda;
    }
    if (o.rules_only) {
      const auto violations = kit::check_rules(config);
      for (const auto& v : violations) std::printf("rule broken (%s, %s): %s\n", v.region.c_str(), v.where.c_str(), v.why.c_str());
      std::printf("source rules: %s\n", violations.empty() ? "kept" : "broken");
      const auto edits = kit::check_handout(config);
      for (const auto& v : edits) std::printf("changed outside the regions (%s): %s\n", v.where.c_str(), v.why.c_str());
      std::printf("outside the regions: %s\n", edits.empty() ? "as handed out" : "changed");
      return violations.empty() && edits.empty() ? 0 : 1;
    }
    return run_parent(o, config);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "grade: %s\n", e.what());
    return scan::kExitUsage;
  } catch (const scan::UsageError& e) {
    std::fprintf(stderr, "grade: %s\n", e.what());
    return scan::kExitUsage;
  } catch (const scan::CudaError& e) {
    std::fprintf(stderr, "grade: %s\n", e.what());
    return scan::kExitCuda;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "grade: %s\n", e.what());
    return scan::kExitCuda;
  }
}
