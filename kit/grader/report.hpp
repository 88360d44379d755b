// The grader's parent side: what the children left, the source rules,
// the score, and the two reports (a table, Gradescope's results.json).
#pragma once

#include "grader.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kit {

/// What a correctness child's CaseLog says.
struct CaseSummary {
  int passed = 0;                     ///< cases that passed
  int failed = 0;                     ///< cases that failed
  bool done = false;                  ///< it reached the end
  std::string aborted;                ///< the sticky CUDA error that ended it, if any
  std::string unfinished;             ///< the case it was in when it ended early, if any
  std::vector<std::string> failures;  ///< the first few failed cases, with why
  std::vector<std::string> skipped;   ///< cases that could not run here, with why
};

/// Reads a CaseLog file.
CaseSummary read_case_log(const std::string& path);

/// One compute-sanitizer run.
struct SanitizerRun {
  std::string tool;     ///< memcheck, racecheck, ...
  bool clean = false;   ///< exit 0
  std::string verdict;  ///< "clean", "errors", "timed out", "exit N"
  std::string excerpt;  ///< the first report lines, when not clean
};

/// Reads what compute-sanitizer printed and how it ended.
SanitizerRun judge_sanitizer(const std::string& tool, int exit_code, bool timed_out, const std::string& log);

/// A broken source rule.
struct RuleViolation {
  std::string region;  ///< the region's name
  std::string where;   ///< file:line
  std::string why;     ///< the rule it breaks
};

/// Checks the source rules of kit.json's regions on the embedded files.
std::vector<RuleViolation> check_rules(const nlohmann::json& config);

/// Compares each graded file, as compiled, with the handout outside its
/// regions (kit.json's `handout`: every line but the regions' own). One
/// entry per file that differs: where, and the first line that does.
std::vector<RuleViolation> check_handout(const nlohmann::json& config);

/// One graded item.
struct ItemGrade {
  std::string name;                       ///< the variant (or application)
  bool timed = false;                     ///< it has speed points
  CaseSummary cases;                      ///< correctness
  std::string child_problem;              ///< the correctness child crashed or timed out
  CaseSummary large;                      ///< the run past 32-bit indices (kit.json's large_n)
  std::string large_problem;              ///< its child crashed or timed out
  std::vector<std::string> notes;         ///< what else the student should know (output cut, ...)
  std::vector<SanitizerRun> sanitizers;   ///< one per tool (empty when not run)
  bool correct = false;                   ///< cases, sanitizers and rules all fine
  double correctness_points = 0;          ///< earned
  double correctness_max = 0;             ///< possible
  bool timing_ran = false;                ///< a timing child ran
  TimingResult timing;                    ///< its result
  std::string timing_note;                ///< why speed scored 0 or was not measured
  double ratio = 0;                       ///< student time / reference time
  double speed_points = 0;                ///< earned
  double speed_max = 0;                   ///< possible
};

/// The whole grade.
struct Grade {
  std::string chapter;                    ///< "05"
  std::string title;                      ///< the chapter's title
  std::string machine;                    ///< the GPU's name, or "CPU"
  std::string sanitizer;                  ///< where compute-sanitizer is, or why it did not run
  bool sanitizer_ran = false;             ///< it ran
  std::vector<RuleViolation> violations;  ///< broken source rules
  bool has_rules = false;                 ///< the chapter has source rules
  std::vector<RuleViolation> outside_edits;  ///< lines changed outside the regions
  bool outside_edits_allowed = false;     ///< kit.json's "outside_edits": "allow"
  double factor = 1.2;                    ///< full speed marks within this ratio
  std::string visibility = "visible";     ///< Gradescope's visibility of the results (kit.json)
  double seconds = 0;                     ///< how long grading took
  std::vector<ItemGrade> items;           ///< one per graded item
  double correctness = 0, correctness_max = 0, speed = 0, speed_max = 0;  ///< totals
};

/// Fills in each item's correctness from its cases, sanitizers and the rules.
void score_correctness(Grade& grade);
/// Fills in each item's speed from its timing.
void score_speed(Grade& grade);

/// The table for the student.
std::string table(const Grade& grade);
/// Gradescope's results.json.
nlohmann::json results_json(const Grade& grade);
/// One line for logs: "kit-summary chapter=05 ...".
std::string summary_line(const Grade& grade);

}  // namespace kit
