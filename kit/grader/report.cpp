#include "report.hpp"

#include "embedded.hpp"
#include "processes.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <regex>
#include <sstream>

namespace kit {

// --- reading the children -----------------------------------------------------

CaseSummary read_case_log(const std::string& path) {
  CaseSummary s;
  std::istringstream in(read_file(path));
  std::string line, current;
  bool open = false;
  while (std::getline(in, line)) {
    if (line.rfind("case ", 0) == 0) {
      current = line.substr(5);
      open = true;
    } else if (line == "pass") {
      ++s.passed;
      open = false;
    } else if (line.rfind("fail ", 0) == 0) {
      ++s.failed;
      if (s.failures.size() < 5) s.failures.push_back(current + ": " + line.substr(5));
      open = false;
    } else if (line.rfind("abort ", 0) == 0) {
      ++s.failed;
      s.aborted = current + ": " + line.substr(6);
      open = false;
    } else if (line.rfind("skip ", 0) == 0) {
      s.skipped.push_back(current + ": " + line.substr(5));
      open = false;
    } else if (line == "done") {
      s.done = true;
    }
  }
  if (open) s.unfinished = current;
  return s;
}

SanitizerRun judge_sanitizer(const std::string& tool, int exit_code, bool timed_out, const std::string& log) {
  SanitizerRun run;
  run.tool = tool;
  run.clean = exit_code == 0 && !timed_out;
  run.verdict = run.clean ? "clean" : timed_out ? "timed out" : exit_code == 99 ? "errors" : "exit " + std::to_string(exit_code);
  if (!run.clean) {
    std::istringstream in(log);
    std::string line;
    int kept = 0;
    while (std::getline(in, line) && kept < 8) {
      if (line.rfind("=========", 0) != 0 || line.find("COMPUTE-SANITIZER") != std::string::npos) continue;
      const std::string body = line.substr(std::min<std::size_t>(line.size(), 10));
      if (body.find_first_not_of(' ') == std::string::npos) continue;
      run.excerpt += (kept++ ? "\n" : "") + line;
    }
    if (run.excerpt.empty()) {
      // Not a sanitizer report: show the end of what the run printed.
      const std::size_t from = log.size() > 600 ? log.size() - 600 : 0;
      run.excerpt = log.substr(from);
    }
  }
  return run;
}

// --- source rules -------------------------------------------------------------

namespace {

/// A line's code: without comments (// and /* */ across lines) and without
/// the contents of string and character literals.
std::vector<std::string> code_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::string current;
  bool block_comment = false;
  char quote = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      lines.push_back(current);
      current.clear();
      quote = 0;
      continue;
    }
    if (block_comment) {
      if (c == '*' && i + 1 < text.size() && text[i + 1] == '/') {
        block_comment = false;
        ++i;
      }
      continue;
    }
    if (quote) {
      if (c == '\\') {
        ++i;
      } else if (c == quote) {
        quote = 0;
        current += c;
      }
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      block_comment = true;
      ++i;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      current += c;
      continue;
    }
    current += c;
  }
  lines.push_back(current);
  return lines;
}

const EmbeddedFile* embedded(const std::string& name) {
  for (int k = 0; k < kFileCount; ++k) {
    if (kFiles[k].name != nullptr && name == kFiles[k].name) return &kFiles[k];
  }
  return nullptr;
}

}  // namespace

std::vector<RuleViolation> check_rules(const nlohmann::json& config) {
  std::vector<RuleViolation> out;
  // What an acquire-release region may not hold: every way of reading or
  // writing a flag without acquire/release order that is easy to write.
  static const std::vector<std::pair<std::regex, std::string>> forbidden = {
      {std::regex(R"(\bmemory_order_relaxed\b|\bmemory_order::relaxed\b)"), "a relaxed atomic operation"},
      {std::regex(R"(\bmemory_order_consume\b|\bmemory_order::consume\b)"), "a consume operation"},
      {std::regex(R"(\bvolatile\b)"), "a volatile access (no ordering)"},
      {std::regex(R"(\basm\b|\b__asm__\b)"), "inline assembly (the grader cannot check it)"},
      {std::regex(R"(\batomic(Add|Sub|Exch|Min|Max|Inc|Dec|CAS|And|Or|Xor)(_block|_system)?\b)"),
       "a legacy atomic function (relaxed: no ordering)"},
      {std::regex(R"(\b__ld(g|cg|ca|cs|lu|cv)\b|\b__st(wb|cg|cs|wt)\b)"), "a cache-hinted load or store (no ordering)"},
      {std::regex(R"(\bthread_scope_(block|thread)\b)"),
       "a block- or thread-scope atomic (it orders nothing for another block: use thread_scope_device)"},
  };
  // The operations that order: a release store publishes, an acquire (or
  // sequentially consistent: an explicit seq_cst, or a load or store with no
  // order given) load reads.
  static const std::regex release(R"(memory_order_(release|seq_cst)\b|memory_order::(release|seq_cst)\b|\.store\([^,()]*\))");
  static const std::regex acquire(R"(memory_order_(acquire|seq_cst)\b|memory_order::(acquire|seq_cst)\b|\.load\(\s*\))");
  // A qualified name (Status::prefix) is not the value array `prefix`.
  static const std::regex qualified(R"([A-Za-z_]\w*::\w+)");
  // A barrier after a return: the threads that returned never arrive.
  static const std::regex return_statement(R"(\breturn\b)");
  static const std::regex barrier(R"(__syncthreads\w*\s*\(|__syncwarp\s*\(|\.sync\s*\(\s*\)|\bbar(rier)?\.sync\b)");
  const bool on_device = !config.value("host", false);
  for (const auto& region : config.at("regions")) {
    const auto& rule = region.at("rule");
    if (rule.empty() && !on_device) continue;
    const std::string name = region.at("name");
    const std::string file = region.at("file");
    const EmbeddedFile* source = embedded(file);
    if (source == nullptr) {
      out.push_back({name, file, "the graded file was not embedded"});
      continue;
    }
    const std::vector<std::string> lines = code_lines(source->text);
    // The region's lines come from the raw text: the markers are comments.
    std::vector<std::string> raw;
    {
      std::istringstream in(source->text);
      std::string line;
      while (std::getline(in, line)) raw.push_back(line);
    }
    const std::string begin = "// ---- kit begin " + name + " ";
    const std::string end = "// ---- kit end " + name + " ";
    int first = -1, last = -1;
    for (int k = 0; k < static_cast<int>(raw.size()); ++k) {
      if (first < 0 && raw[k].find(begin) != std::string::npos) first = k;
      if (first >= 0 && raw[k].find(end) != std::string::npos) {
        last = k;
        break;
      }
    }
    if (first < 0 || last < 0) {
      out.push_back({name, file, "the lines '// ---- kit begin " + name + "' and '// ---- kit end " + name +
                                     "' must stay (the grader checks the code between them)"});
      continue;
    }
    if (on_device) {
      // Every region of a GPU chapter: no return before a barrier. A thread
      // that returns never reaches a __syncthreads() its block still waits
      // at; that is undefined, and GPUs that count exited threads as arrived
      // let it pass every test and compute-sanitizer's synccheck too.
      int first_return = -1;
      for (int k = first + 1; k < last && k < static_cast<int>(lines.size()); ++k) {
        if (first_return < 0 && std::regex_search(lines[k], return_statement)) first_return = k;
        if (first_return >= 0 && k > first_return && std::regex_search(lines[k], barrier)) {
          out.push_back({name, file + ":" + std::to_string(first_return + 1),
                         "a return before a barrier (line " + std::to_string(k + 1) +
                             "): the threads that return never reach it, and the others wait there: " + raw[first_return]});
          break;
        }
      }
    }
    if (rule.empty()) continue;
    // acquire-release FLAG... [publishes|reads VALUE...]
    std::vector<std::string> flags, values;
    std::string role;
    for (auto word = rule.begin() + 1; word != rule.end(); ++word) {
      const std::string w = *word;
      if (w == "publishes" || w == "reads") {
        role = w;
      } else {
        (role.empty() ? flags : values).push_back(w);
      }
    }
    // Where the ordering operation is, and where each value is touched.
    int ordering_line = -1;
    std::vector<int> value_lines;
    for (int k = first + 1; k < last && k < static_cast<int>(lines.size()); ++k) {
      if (ordering_line < 0 && std::regex_search(lines[k], role == "reads" ? acquire : release)) ordering_line = k;
      const std::string unqualified = std::regex_replace(lines[k], qualified, " ");
      for (const std::string& value : values) {
        if (std::regex_search(unqualified, std::regex("\\b" + value + "\\b"))) value_lines.push_back(k);
      }
    }
    if (role == "publishes" || role == "reads") {
      if (ordering_line < 0) {
        out.push_back({name, file, role == "publishes" ? "the region has no release store of the flag"
                                                       : "the region has no acquire load of the flag"});
      }
      for (int k : value_lines) {
        if (ordering_line < 0) break;
        const bool wrong = role == "publishes" ? k >= ordering_line : k <= ordering_line;
        if (wrong) {
          out.push_back({name, file + ":" + std::to_string(k + 1),
                         role == "publishes"
                             ? "the value is written on or after the line that publishes the flag (line " +
                                   std::to_string(ordering_line + 1) + "): a reader that sees the flag may read the old value: " + raw[k]
                             : "the value is read on or before the line that loads the flag with acquire (line " +
                                   std::to_string(ordering_line + 1) + "): it may be older than the flag: " + raw[k]});
        }
      }
    }
    for (int k = first + 1; k < last && k < static_cast<int>(lines.size()); ++k) {
      const std::string& code = lines[k];
      const std::string where = file + ":" + std::to_string(k + 1);
      for (const auto& [pattern, why] : forbidden) {
        if (std::regex_search(code, pattern)) out.push_back({name, where, why + ": " + raw[k]});
      }
      for (const std::string& flag : flags) {
        if (std::regex_search(code, std::regex("\\b" + flag + "\\b")) && code.find("atomic_ref") == std::string::npos) {
          out.push_back({name, where, "'" + flag + "' is touched without cuda::atomic_ref: " + raw[k]});
        }
      }
    }
  }
  return out;
}

std::vector<RuleViolation> check_handout(const nlohmann::json& config) {
  std::vector<RuleViolation> out;
  if (!config.contains("handout")) return out;
  const auto lines_of = [](const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
      // Line ends are the editor's business: trailing blanks and a
      // Windows carriage return do not count as edits.
      while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
      lines.push_back(line);
    }
    return lines;
  };
  for (const auto& [file, expected_text] : config.at("handout").items()) {
    const EmbeddedFile* source = embedded(file);
    if (source == nullptr) {
      out.push_back({"", file, "the graded file was not embedded"});
      continue;
    }
    // The file without its regions' contents: the begin and end lines stay.
    std::vector<std::string> kept;
    std::vector<int> numbers;  // each kept line's number in the student's file
    std::string open_region;
    const std::vector<std::string> lines = lines_of(source->text);
    for (int k = 0; k < static_cast<int>(lines.size()); ++k) {
      const std::string& line = lines[k];
      if (open_region.empty()) {
        const auto at = line.find("// ---- kit begin ");
        if (at != std::string::npos) {
          std::istringstream words(line.substr(at + 18));
          words >> open_region;
        }
        kept.push_back(line);
        numbers.push_back(k + 1);
      } else if (line.find("// ---- kit end " + open_region + " ") != std::string::npos) {
        open_region.clear();
        kept.push_back(line);
        numbers.push_back(k + 1);
      }
    }
    const std::vector<std::string> expected = lines_of(expected_text.get<std::string>());
    std::size_t k = 0;
    while (k < kept.size() && k < expected.size() && kept[k] == expected[k]) ++k;
    if (k == kept.size() && k == expected.size()) continue;
    std::string why;
    if (!open_region.empty()) {
      why = "the region '" + open_region + "' has no '// ---- kit end " + open_region + " ----' line";
    } else if (k < kept.size() && k < expected.size()) {
      why = "line " + std::to_string(numbers[k]) + " differs from the handout: '" + kept[k] + "' (the handout has '" +
            expected[k] + "')";
    } else if (k < kept.size()) {
      why = "line " + std::to_string(numbers[k]) + " is not in the handout: '" + kept[k] + "'";
    } else {
      why = "the handout's line '" + expected[k] + "' is missing" +
            (k > 0 ? " (after line " + std::to_string(numbers[k - 1]) + ")" : "");
    }
    out.push_back({"", file, why});
  }
  return out;
}

// --- scoring ------------------------------------------------------------------

void score_correctness(Grade& grade) {
  grade.correctness = grade.correctness_max = 0;
  for (ItemGrade& item : grade.items) {
    const bool cases_ok = item.child_problem.empty() && item.cases.done && item.cases.failed == 0 &&
                          item.cases.passed > 0 && item.cases.aborted.empty() && item.large_problem.empty() &&
                          item.large.failed == 0 && item.large.aborted.empty();
    const bool sanitizers_ok = std::all_of(item.sanitizers.begin(), item.sanitizers.end(),
                                           [](const SanitizerRun& r) { return r.clean; });
    item.correct = cases_ok && sanitizers_ok && grade.violations.empty() &&
                   (grade.outside_edits.empty() || grade.outside_edits_allowed);
    item.correctness_points = item.correct ? item.correctness_max : 0;
    grade.correctness += item.correctness_points;
    grade.correctness_max += item.correctness_max;
  }
}

void score_speed(Grade& grade) {
  grade.speed = grade.speed_max = 0;
  for (ItemGrade& item : grade.items) {
    item.speed_points = 0;
    if (item.timed && item.timing_ran && item.timing.problem.empty() && item.correct &&
        item.timing.reference_ms > 0 && item.timing.student_ms > 0) {
      item.ratio = item.timing.student_ms / item.timing.reference_ms;
      const double share = item.ratio <= grade.factor ? 1.0 : grade.factor / item.ratio;
      item.speed_points = item.speed_max * share;
    }
    grade.speed += item.speed_points;
    grade.speed_max += item.speed_max;
  }
}

// --- reports ------------------------------------------------------------------

namespace {

std::string fixed(double x, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, x);
  return buffer;
}

std::string points(double got, double max) { return fixed(got, 1) + "/" + fixed(max, 1); }

std::string sanitizer_cell(const ItemGrade& item) {
  if (item.sanitizers.empty()) return "-";
  std::string bad;
  for (const SanitizerRun& r : item.sanitizers) {
    if (!r.clean) bad += (bad.empty() ? "" : ",") + r.tool + " " + r.verdict;
  }
  return bad.empty() ? "clean" : bad;
}

std::string correctness_output(const Grade& grade, const ItemGrade& item) {
  std::ostringstream o;
  o << "Cases: " << item.cases.passed << " passed, " << item.cases.failed << " failed";
  if (!item.cases.done) o << " (the suite did not finish)";
  o << ".\n";
  if (!item.child_problem.empty()) o << item.child_problem << "\n";
  if (!item.cases.unfinished.empty()) o << "It stopped during: " << item.cases.unfinished << "\n";
  if (!item.cases.aborted.empty()) o << "A CUDA error ended the suite: " << item.cases.aborted << "\n";
  for (const std::string& f : item.cases.failures) o << "FAILED " << f << "\n";
  if (item.large.passed > 0 && item.large.failed == 0) {
    o << "Past 32-bit indices (one run of kit.json's large_n elements): passed.\n";
  }
  for (const std::string& f : item.large.failures) o << "FAILED past 32-bit indices: " << f << "\n";
  if (!item.large_problem.empty()) o << item.large_problem << "\n";
  if (!item.large.unfinished.empty()) o << "It stopped during: " << item.large.unfinished << "\n";
  for (const std::string& s : item.large.skipped) o << "Not run on this machine: " << s << "\n";
  for (const SanitizerRun& r : item.sanitizers) {
    o << "compute-sanitizer " << r.tool << ": " << r.verdict << "\n";
    if (!r.excerpt.empty()) o << r.excerpt << "\n";
  }
  if (item.sanitizers.empty() && !grade.sanitizer.empty()) o << "compute-sanitizer: " << grade.sanitizer << "\n";
  for (const RuleViolation& v : grade.violations) o << "Source rule broken (" << v.region << ", " << v.where << "): " << v.why << "\n";
  for (const RuleViolation& v : grade.outside_edits) {
    o << "Changed outside the regions (" << v.where << "): " << v.why
      << (grade.outside_edits_allowed ? " (allowed here)\n" : "\n");
  }
  if (!grade.outside_edits.empty() && !grade.outside_edits_allowed) {
    o << "Only the code between the '// ---- kit begin' and '// ---- kit end' lines is yours to change: the grader "
         "compares everything else with the handout.\n";
  }
  for (const std::string& note : item.notes) o << note << "\n";
  o << (item.correct ? "Correct." : "Not correct: no correctness points for this variant.");
  return o.str();
}

std::string speed_output(const Grade& grade, const ItemGrade& item) {
  std::ostringstream o;
  if (!item.timing_note.empty()) o << item.timing_note << "\n";
  if (item.timing_ran) {
    if (!item.timing.problem.empty()) {
      o << item.timing.problem << "\n";
    } else {
      o << "Median time (" << item.timing.shape << "): yours " << fixed(item.timing.student_ms, 4) << " ms, the reference "
        << fixed(item.timing.reference_ms, 4) << " ms, ratio " << fixed(item.ratio, 2) << ".\n";
      o << "Full marks up to " << fixed(grade.factor, 2) << "x the reference's time; beyond it, the marks times "
        << fixed(grade.factor, 2) << " / ratio.";
    }
  }
  return o.str();
}

}  // namespace

std::string table(const Grade& grade) {
  std::ostringstream o;
  o << "Chapter " << grade.chapter << ": " << grade.title << "  (" << grade.machine << ")\n";
  o << "compute-sanitizer: " << (grade.sanitizer.empty() ? "-" : grade.sanitizer) << "\n";
  if (grade.has_rules) {
    o << "source rules: " << (grade.violations.empty() ? "kept" : std::to_string(grade.violations.size()) + " broken")
      << "\n";
  }
  char line[512];
  std::snprintf(line, sizeof line, "\n%-22s %12s  %-26s %12s  %10s %10s %6s %10s\n", "variant", "cases", "sanitizers",
                "correctness", "yours ms", "ref ms", "ratio", "speed");
  o << line;
  for (const ItemGrade& item : grade.items) {
    const std::string cases = std::to_string(item.cases.passed) + "/" +
                              std::to_string(item.cases.passed + item.cases.failed) + (item.cases.done ? "" : "!");
    const bool timing_shown = item.timing_ran && item.timing.problem.empty();
    std::snprintf(line, sizeof line, "%-22s %12s  %-26s %12s  %10s %10s %6s %10s\n", item.name.c_str(), cases.c_str(),
                  sanitizer_cell(item).c_str(), points(item.correctness_points, item.correctness_max).c_str(),
                  timing_shown ? fixed(item.timing.student_ms, 4).c_str() : "-",
                  timing_shown ? fixed(item.timing.reference_ms, 4).c_str() : "-",
                  timing_shown ? fixed(item.ratio, 2).c_str() : "-",
                  item.timed ? points(item.speed_points, item.speed_max).c_str() : "-");
    o << line;
  }
  o << "\ncorrectness " << points(grade.correctness, grade.correctness_max) << ", speed "
    << points(grade.speed, grade.speed_max) << ", total "
    << points(grade.correctness + grade.speed, grade.correctness_max + grade.speed_max) << "\n";
  for (const ItemGrade& item : grade.items) {
    if (item.correct) continue;
    o << "\n" << item.name << ":\n" << correctness_output(grade, item) << "\n";
  }
  return o.str();
}

nlohmann::json results_json(const Grade& grade) {
  nlohmann::json tests = nlohmann::json::array();
  for (const ItemGrade& item : grade.items) {
    tests.push_back({{"name", "correctness: " + item.name},
                     {"score", item.correctness_points},
                     {"max_score", item.correctness_max},
                     {"status", item.correct ? "passed" : "failed"},
                     {"visibility", grade.visibility},
                     {"output", correctness_output(grade, item)}});
    if (item.timed) {
      tests.push_back({{"name", "speed: " + item.name},
                       {"score", item.speed_points},
                       {"max_score", item.speed_max},
                       {"status", item.speed_points >= item.speed_max - 1e-9 ? "passed" : "failed"},
                       {"visibility", grade.visibility},
                       {"output", speed_output(grade, item)}});
    }
  }
  std::ostringstream o;
  o << "Chapter " << grade.chapter << " (" << grade.title << ") graded on " << grade.machine << ".";
  if (!grade.outside_edits.empty() && !grade.outside_edits_allowed) {
    o << " Lines outside the regions differ from the handout: no correctness points (see each test).";
  }
  return {{"score", grade.correctness + grade.speed},
          {"execution_time", static_cast<int>(grade.seconds + 0.5)},
          {"visibility", grade.visibility},
          {"output", o.str()},
          {"tests", tests}};
}

std::string summary_line(const Grade& grade) {
  std::vector<std::string> faults;
  for (const ItemGrade& item : grade.items) {
    for (const SanitizerRun& r : item.sanitizers) {
      if (!r.clean) faults.push_back(item.name + ":" + r.tool + (r.verdict == "errors" ? "-errors" : "-failed"));
    }
  }
  std::size_t runs = 0;
  for (const ItemGrade& item : grade.items) runs += item.sanitizers.size();
  std::string sanitizer = grade.sanitizer_ran && runs > 0 ? "clean" : "not-run";
  if (!faults.empty()) {
    sanitizer.clear();
    for (const std::string& f : faults) {
      if (!sanitizer.empty()) sanitizer.push_back(',');
      sanitizer.append(f);
    }
  }
  std::string ratios;
  for (const ItemGrade& item : grade.items) {
    if (!item.timed) continue;
    if (!ratios.empty()) ratios.push_back(',');
    ratios.append(item.timing_ran && item.timing.problem.empty() && item.ratio > 0 ? fixed(item.ratio, 2) : "-");
  }
  std::ostringstream o;
  o << "kit-summary chapter=" << grade.chapter << " correctness=" << points(grade.correctness, grade.correctness_max)
    << " sanitizer=" << sanitizer << " rules=" << (!grade.has_rules ? "none" : grade.violations.empty() ? "kept" : "broken")
    << " perf=" << (ratios.empty() ? "-" : ratios) << " total="
    << points(grade.correctness + grade.speed, grade.correctness_max + grade.speed_max);
  return o.str();
}

}  // namespace kit
