// The classroom kit's grader: what its parts share.
//
// One program grades one chapter, and only the student's code is linked into
// it: the reference solution is a program of its own (reference/grade-reference
// in a student folder, the same grader built on the reference's sources), so
// no line of the student's can call it. The program runs as a *parent* that
// never calls the student's code: it asks the reference program for its
// registry entry (--describe), starts copies of itself as *children* (a
// correctness child per graded item, one under each compute-sanitizer tool,
// timing children alternating with the reference program's), each in its own
// process group with limits on time, on time without progress and on what it
// may write, reads what they wrote, checks the source rules and the handout,
// scores, and reports. A child that crashes, hangs or corrupts its CUDA
// context costs its own cases, not the grade's run. kit/README.md describes
// the rules.
#pragma once

#include <nlohmann/json.hpp>

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
  /// The case could not run here (too little memory, ...): neither passed
  /// nor failed, and said so in the feedback.
  void skip(const std::string& why);
  /// Every case ran.
  void done();

 private:
  void line(const std::string& text);
  std::FILE* file_ = nullptr;
};

/// A time measured for the student's item and the reference's: the median
/// of each program's rounds, the rounds alternating between the two programs.
struct TimingResult {
  double student_ms = 0;    ///< median time of the student's item
  double reference_ms = 0;  ///< median time of the reference's
  std::string problem;      ///< non-empty if an output was wrong or a run failed
  std::string shape;        ///< what was timed ("n = 16777216 int32 add inclusive")
};

/// One timing round of one program: warm-up calls, then timed calls on the
/// same input every round, the output verified after the last.
struct TimingRound {
  double median_ms = 0;  ///< median of the timed calls
  std::string problem;   ///< non-empty if the output was wrong or a run failed
  std::string shape;     ///< what was timed
};

/// How timing runs.
struct PerfSettings {
  std::int64_t n = 0;  ///< elements
  int rounds = 5;      ///< rounds per program, alternating which runs first
  int warmup = 2;      ///< untimed calls before each round
  int reps = 10;       ///< timed calls per round
};

/// The thing graded: a chapter's variants through the registry, chapter
/// 13's applications or chapter 15's sort, as linked into this program (the student's code, or in
/// the reference program the reference's). Its child-side functions run it.
class Subject {
 public:
  virtual ~Subject() = default;
  /// What the suite relies on, as this program's chapter declares it (the
  /// registry entries: limits, block, tile, types; chapters 13 and 15: their tiles).
  /// The reference program prints it (--describe); a student's chapter must
  /// declare the same.
  virtual nlohmann::json describe() const = 0;
  /// Takes the reference's description: the items, sizes and limits of the
  /// suite come from it, never from the student's entry.
  virtual void use_reference(const nlohmann::json& reference) = 0;
  /// Runs the correctness suite of `item` (quick: fewer large sizes). The
  /// first case checks that this chapter's entry is the reference's.
  virtual void correctness(const std::string& item, bool quick, CaseLog& log) = 0;
  /// Runs a few small cases of `item`, for compute-sanitizer to watch (each
  /// logged as a case, so a hang shows where), and
  /// one int32 sum of `large_n` elements when it is above 0 (kit.json's
  /// `sanitize_n`: enough tiles that every block of a fixed grid takes
  /// several, so the hazards between one tile and the next can happen).
  virtual void sanitize(const std::string& item, std::int64_t large_n, CaseLog& log) = 0;
  /// Runs `item` once at `n` elements, past what 32-bit indices can count
  /// (kit.json's `large_n`, 2^31 + 5), where this machine has the memory for
  /// it; otherwise logs the case as skipped, with why.
  virtual void past_32_bits(const std::string& item, std::int64_t n, CaseLog& log) = 0;
  /// One timing round of this program's `item`.
  virtual TimingRound timing(const std::string& item, const PerfSettings& perf) = 0;
};

/// The registry chapters' subject (suite.cu).
std::unique_ptr<Subject> registry_subject();
/// Chapter 13's subject (applications.cu).
std::unique_ptr<Subject> applications_subject();
/// Chapter 15's subject (sort.cu).
std::unique_ptr<Subject> sort_subject();

}  // namespace kit
