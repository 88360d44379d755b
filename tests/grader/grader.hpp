// The classroom kit's grader: what its parts share.
//
// One program grades one chapter: the student's chapter library and the
// reference solution's (the same chapter compiled with its namespace renamed
// chNN_reference) are linked into it. The program runs as a *parent* that
// never calls the student's code: it starts copies of itself as *children*
// (a correctness child per graded item, one under each compute-sanitizer
// tool, a timing child), each in its own process with a time limit, reads
// what they wrote, checks the source rules, scores, and reports. A child
// that crashes, hangs or corrupts its CUDA context costs its own cases, not
// the grade's run. docs/instructors/kit.md describes the rules.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace kit {

/// What a correctness child writes, one line per event, flushed at once, so
/// a child that dies leaves behind every case it finished and the one it
/// was in.
class CaseLog {
 public:
  /// Writes to `path` (created or truncated).
  explicit CaseLog(const std::string& path);
  ~CaseLog();
  CaseLog(const CaseLog&) = delete;
  CaseLog& operator=(const CaseLog&) = delete;

  /// A case starts: its description.
  void begin(const std::string& description);
  /// The case passed.
  void pass();
  /// The case failed: why (the first lines of the verification report).
  void fail(const std::string& why);
  /// The CUDA context is gone (a sticky error): no case after this one can run.
  void abort(const std::string& why);
  /// Every case ran.
  void done();

 private:
  void line(const std::string& text);
  std::FILE* file_ = nullptr;
};

/// A time measured for the student's item and the reference's, in one run.
struct TimingResult {
  double student_ms = 0;    ///< median time of the student's item
  double reference_ms = 0;  ///< median time of the reference's
  std::string problem;      ///< non-empty if an output was wrong or a run failed
  std::string shape;        ///< what was timed ("n = 16777216 int32 add inclusive")
};

/// How timing runs.
struct PerfSettings {
  std::int64_t n = 0;  ///< elements
  int rounds = 5;      ///< alternating rounds of reference and student
  int warmup = 2;      ///< untimed calls before each round
  int reps = 10;       ///< timed calls per round
};

/// The thing graded: a chapter's variants through the registry, or chapter
/// 13's applications. Its child-side functions run the student's code.
class Subject {
 public:
  virtual ~Subject() = default;
  /// True if the items run on the GPU.
  virtual bool on_device() const = 0;
  /// The chapter's title (the reference's).
  virtual std::string title() const = 0;
  /// Every item the reference has, by name.
  virtual std::vector<std::string> items() const = 0;
  /// Runs the correctness suite of `item` (quick: fewer large sizes).
  virtual void correctness(const std::string& item, bool quick, CaseLog& log) = 0;
  /// Runs a few small cases of `item`, for compute-sanitizer to watch, and
  /// one int32 sum of `large_n` elements when it is above 0 (kit.json's
  /// `sanitize_n`: enough tiles that every block of a fixed grid takes
  /// several, so the hazards between one tile and the next can happen).
  virtual void sanitize(const std::string& item, std::int64_t large_n) = 0;
  /// Times the student's `item` against the reference's.
  virtual TimingResult timing(const std::string& item, const PerfSettings& perf) = 0;
};

/// The registry chapters' subject (suite.cu).
std::unique_ptr<Subject> registry_subject();
/// Chapter 13's subject (applications.cu).
std::unique_ptr<Subject> applications_subject();

}  // namespace kit
