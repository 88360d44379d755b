// The classroom kit's grader (`grade` in a student folder). See grader.hpp
// for its parts and docs/instructors/kit.md for how to run it for a class.
//
//   grade [--quick] [--variant NAME]... [--json FILE] [--factor X] [--no-timing]
//         [--sanitizer PATH|off] [--tools memcheck,racecheck,synccheck] [--perf-n N]
//         [--jobs N] [--time-limit S] [--expect reference|bug] [--ignore-speed] [--keep]
//
// Exit codes: 0 graded (whatever the score), 1 only with --expect when the
// expectation fails, 2 bad usage, 3 no usable CUDA device or a CUDA error
// outside the student's code (the reference's timing failed).
#include "embedded.hpp"
#include "grader.hpp"
#include "processes.hpp"
#include "report.hpp"

#include <scan/error.hpp>

#include <cuda_runtime_api.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

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

  --quick                fewer large sizes (a faster, weaker check)
  --variant NAME         grade this variant only (repeatable)
  --json FILE            write Gradescope's results to FILE (default results.json)
  --factor X             full speed marks within X times the reference's time
  --no-timing            skip the speed part (it then scores 0)
  --sanitizer PATH|off   the compute-sanitizer to run (default: found on PATH
                         or in /usr/local/cuda/bin), or off
  --tools LIST           sanitizer tools (default memcheck,racecheck,synccheck)
  --perf-n N             elements of the timed scan
  --jobs N               checks run at a time (default 4; timing always alone)
  --time-limit S         seconds a check may take (default 900)
  --expect reference|bug for the kit's own tests: exit 1 unless correctness is
                         full (and speed too, without --ignore-speed) or zero
  --ignore-speed         see --expect
  --keep                 keep the checks' logs (their folder is printed)
  --quiet                print the summary line only
  --rules                check the source rules only (no device needed):
                         exit 0 if they hold, 1 if not
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
  std::string sanitizer;  // "" auto, "off", or a path
  std::vector<std::string> tools = {"memcheck", "racecheck", "synccheck"};
  std::int64_t perf_n = 0;  // 0: kit.json's
  int jobs = 4;
  double time_limit = 900;
  std::string expect;
  bool ignore_speed = false;
  bool keep = false;
  bool quiet = false;
  bool rules_only = false;
  // children
  std::string child;
  std::string item;
  std::string out;
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
#ifdef KIT_APPLICATIONS
  return kit::applications_subject();
#else
  return kit::registry_subject();
#endif
}

/// A child: runs the student's code and writes what happened to --out.
int run_child(const Options& o, const json& config) {
  auto subject = make_subject();
  if (o.child == "correctness") {
    kit::CaseLog log(o.out);
    subject->correctness(o.item, o.quick, log);
    return 0;
  }
  if (o.child == "sanitize") {
    subject->sanitize(o.item, config.value("sanitize_n", std::int64_t{0}));
    return 0;
  }
  if (o.child == "timing") {
    kit::PerfSettings perf;
    perf.n = o.perf_n > 0 ? o.perf_n : config.value("perf_n", std::int64_t{1} << 24);
    if (config.value("host", false)) {
      perf.warmup = 1;
      perf.reps = 5;
    }
    const kit::TimingResult r = subject->timing(o.item, perf);
    std::ofstream out(o.out);
    out.precision(9);
    out << "timing " << r.student_ms << " " << r.reference_ms << "\n";
    out << "shape " << r.shape << "\n";
    if (!r.problem.empty()) out << "problem " << r.problem << "\n";
    return 0;
  }
  throw UsageError("unknown --child '" + o.child + "'");
}

kit::TimingResult read_timing(const std::string& path) {
  kit::TimingResult r;
  std::istringstream in(kit::read_file(path));
  std::string line;
  bool seen = false;
  while (std::getline(in, line)) {
    if (line.rfind("timing ", 0) == 0) {
      std::istringstream values(line.substr(7));
      values >> r.student_ms >> r.reference_ms;
      seen = true;
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

int run_parent(const Options& o, const json& config) {
  kit::Grade grade;
  grade.chapter = config.at("chapter");
  grade.title = config.value("title", std::string());
  grade.factor = o.factor > 0 ? o.factor : config.value("factor", 1.2);
  const bool host = config.value("host", false);

  // The machine. The parent never runs the student's code, and on the GPU
  // it only asks the runtime what is there.
  if (host) {
    grade.machine = "CPU";
  } else {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || count == 0) {
      std::fprintf(stderr, "grade: no usable CUDA device: %s\n",
                   status != cudaSuccess ? cudaGetErrorString(status) : "cudaGetDeviceCount found none");
      return scan::kExitCuda;
    }
    cudaDeviceProp props{};
    if (cudaGetDeviceProperties(&props, 0) == cudaSuccess) grade.machine = props.name;
  }

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
  } else {
    grade.sanitizer = "";
  }
  if (!sanitizer.empty()) {
    grade.sanitizer = sanitizer + " (" + [&] {
      std::string t;
      for (const auto& tool : o.tools) t += (t.empty() ? "" : ", ") + tool;
      return t;
    }() + ")";
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

  // A folder for the children's files.
  std::string work_template = (std::filesystem::temp_directory_path() / "grade-XXXXXX").string();
  if (mkdtemp(work_template.data()) == nullptr) throw std::runtime_error("cannot make a temporary folder");
  const std::string work = work_template;
  const std::string self = kit::self_path();

  // Correctness and the sanitizers, several at a time.
  std::vector<kit::Job> correctness_jobs(grade.items.size());
  std::vector<std::vector<kit::Job>> sanitizer_jobs(grade.items.size());
  std::vector<kit::Job*> all;
  for (std::size_t k = 0; k < grade.items.size(); ++k) {
    const std::string& name = grade.items[k].name;
    kit::Job& job = correctness_jobs[k];
    const std::string stem = work + "/" + std::to_string(k);
    job.argv = {self, "--child", "correctness", "--item", name, "--out", stem + ".cases"};
    if (o.quick) job.argv.push_back("--quick");
    job.log_path = stem + ".correctness.log";
    job.limit_s = o.time_limit;
    job.label = "correctness of " + name;
    all.push_back(&job);
    if (!sanitizer.empty()) {
      for (const std::string& tool : o.tools) {
        kit::Job s;
        s.argv = {sanitizer, "--tool", tool, "--error-exitcode", "99", "--print-limit", "12",
                  self, "--child", "sanitize", "--item", name};
        s.log_path = stem + "." + tool + ".log";
        s.limit_s = 2 * o.time_limit;
        s.label = tool + " of " + name;
        sanitizer_jobs[k].push_back(s);
      }
    }
  }
  for (auto& jobs : sanitizer_jobs) {
    for (auto& j : jobs) all.push_back(&j);
  }
  if (!o.quiet) std::fprintf(stderr, "grade: checking %zu variant(s) of chapter %s...\n", grade.items.size(),
                             grade.chapter.c_str());
  kit::run_jobs(all, o.jobs);
  for (std::size_t k = 0; k < grade.items.size(); ++k) {
    kit::ItemGrade& item = grade.items[k];
    const kit::Job& job = correctness_jobs[k];
    item.cases = kit::read_case_log(work + "/" + std::to_string(k) + ".cases");
    if (job.timed_out) {
      item.child_problem = "The suite ran past its limit of " + std::to_string(static_cast<int>(job.limit_s)) +
                           " s (a hang?) and was stopped.";
    } else if (job.exit_code != 0) {
      item.child_problem = "The suite's process ended with exit code " + std::to_string(job.exit_code) +
                           " (a crash?). Its last output: " + tail(kit::read_file(job.log_path), 400);
    }
    for (const kit::Job& s : sanitizer_jobs[k]) {
      item.sanitizers.push_back(kit::judge_sanitizer(s.argv[2], s.exit_code, s.timed_out, kit::read_file(s.log_path)));
    }
  }

  // The source rules, on the files as they were compiled.
  for (const auto& region : config.at("regions")) {
    if (!region.at("rule").empty()) grade.has_rules = true;
  }
  grade.violations = kit::check_rules(config);
  kit::score_correctness(grade);

  // Speed, one item at a time (nothing else running), correct items only.
  bool reference_broken = false;
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
    kit::Job job;
    const std::string stem = work + "/" + std::to_string(k);
    job.argv = {self, "--child", "timing", "--item", item.name, "--out", stem + ".timing"};
    if (o.perf_n > 0) job.argv.insert(job.argv.end(), {"--perf-n", std::to_string(o.perf_n)});
    job.log_path = stem + ".timing.log";
    job.limit_s = o.time_limit;
    job.label = "timing of " + item.name;
    if (!o.quiet) std::fprintf(stderr, "grade: timing %s against the reference...\n", item.name.c_str());
    kit::run_jobs({&job}, 1);
    item.timing_ran = true;
    if (job.timed_out || job.exit_code != 0) {
      item.timing.problem = "The timing run " + std::string(job.timed_out ? "ran past its limit" : "failed (exit " +
                                                 std::to_string(job.exit_code) + ")") +
                            ": " + tail(kit::read_file(job.log_path), 400);
    } else {
      item.timing = read_timing(stem + ".timing");
    }
    if (item.timing.problem.find("the reference's") != std::string::npos) reference_broken = true;
  }
  kit::score_speed(grade);

  // Reports.
  const json results = kit::results_json(grade);
  {
    std::ofstream out(o.json_path);
    out << results.dump(2) << "\n";
    if (!out) std::fprintf(stderr, "grade: cannot write %s\n", o.json_path.c_str());
  }
  if (!o.quiet) {
    std::fputs(kit::table(grade).c_str(), stdout);
    std::printf("results: %s\n", o.json_path.c_str());
  }
  std::printf("%s\n", kit::summary_line(grade).c_str());
  if (o.keep) {
    std::printf("logs: %s\n", work.c_str());
  } else {
    std::error_code ignored;
    std::filesystem::remove_all(work, ignored);
  }
  if (reference_broken) {
    std::fprintf(stderr, "grade: the reference solution's timed output was wrong: the kit is broken\n");
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
    if (o.rules_only) {
      const auto violations = kit::check_rules(config);
      for (const auto& v : violations) std::printf("rule broken (%s, %s): %s\n", v.region.c_str(), v.where.c_str(), v.why.c_str());
      std::printf("source rules: %s\n", violations.empty() ? "kept" : "broken");
      return violations.empty() ? 0 : 1;
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
