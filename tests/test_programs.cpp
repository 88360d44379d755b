// The programs, run as a user runs them: bad arguments exit 2 with a reason,
// no usable device exits 3 with the runtime's message, a good run exits 0.
#include "support.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <sstream>

using namespace scan::test;
using Catch::Matchers::ContainsSubstring;

namespace {

void expect_usage_error(const std::string& program, const std::string& args, const std::string& reason) {
  INFO(program << " " << args);
  const ProgramResult r = run_program(program, args);
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, ContainsSubstring(reason));
  CHECK(r.output.find('\n') == r.output.size() - 1);  // one line
}

}  // namespace

TEST_CASE("bad arguments exit 2 with a one-line reason", "[cpu][cli]") {
  for (const std::string program : {"ch01_sequential", "ch02_naive_global"}) {
    expect_usage_error(program, "--n -5", "must not be negative");
    expect_usage_error(program, "--n abc", "must be a count");
    expect_usage_error(program, "--type bogus", "--type must be");
    expect_usage_error(program, "--variant nope", "unknown variant 'nope'");
    expect_usage_error(program, "--kind sideways", "--kind must be");
    expect_usage_error(program, "--input 1,x,3", "item 2 'x'");
    expect_usage_error(program, "--trace --n 1M", "--trace");
    expect_usage_error(program, "--reps x", "--reps");
    expect_usage_error(program, "--bogus", "unknown option");
  }
  expect_usage_error("ch02_naive_global", "--block 1 --variant in-block-global", "too small");
  expect_usage_error("ch02_naive_global", "--variant quadratic --n 16M", "O(n^2)");
}

TEST_CASE("every program takes --name=value and names an unknown option", "[cpu][cli]") {
  for (const std::string program : {"ch01_sequential", "ch02_naive_global"}) {
    expect_usage_error(program, "--n=abc", "--n must be a count");
    expect_usage_error(program, "--type=bogus", "--type must be");
    expect_usage_error(program, "--frobnicate", "unknown option '--frobnicate'");
    expect_usage_error(program, "--n-min 1K", "unknown option '--n-min'");
    expect_usage_error(program, "--variant", "--variant needs a value");
    expect_usage_error(program, "--csv --json", "choose one");
  }
  // The scoreboard once took --list for an option that lacked its value.
  expect_usage_error("ch00_scoreboard", "--list", "unknown option '--list'");
  expect_usage_error("ch00_scoreboard", "--n-min=1K --n-max=abc", "--n-max must be a count");
  expect_usage_error("ch00_scoreboard", "--types int32,bogus", "'bogus'");
  expect_usage_error("ch00_scoreboard", "--n-min 1M --n-max 1K", "--n-min <= --n-max");
  expect_usage_error("ch00_scoreboard", "--csv", "--csv needs a value");
  expect_usage_error("scan_stress", "--list", "unknown option '--list'");
  expect_usage_error("scan_stress", "--streams=9", "--streams");
  expect_usage_error("scan_stress", "--kind sideways", "--kind must be");
  expect_usage_error("scan_stress", "--chapter 11 --variant tuned --segments 8", "for segmented variants");
  for (const std::string program : {"ch00_scoreboard", "scan_stress", "ch01_sequential"}) {
    const ProgramResult help = run_program(program, "--help");
    INFO(help.output);
    CHECK(help.exit_code == 0);
    CHECK_THAT(help.output, ContainsSubstring("usage: " + program + " [options]"));
  }
  CHECK_THAT(run_program("ch00_scoreboard", "--help").output, ContainsSubstring("--quiet"));
  CHECK_THAT(run_program("ch02_naive_global", "-h").output, ContainsSubstring("--quiet"));
}

TEST_CASE("a long run shows its progress on stderr unless --quiet", "[cpu][cli]") {
  const std::string run = "--n 16M --reps 1 --warmup 0 --variant loop";
  const ProgramResult shown = run_program("ch01_sequential", run + " --n=16M");
  INFO(shown.output);
  CHECK(shown.exit_code == 0);
  CHECK_THAT(shown.output, ContainsSubstring("ch01_sequential, n = 2^24 int32: generating the input"));
  CHECK_THAT(shown.output, ContainsSubstring("ch01_sequential, n = 2^24 int32, loop: timing 1 runs"));
  const ProgramResult quiet = run_program("ch01_sequential", run + " --quiet");
  INFO(quiet.output);
  CHECK(quiet.exit_code == 0);
  CHECK(quiet.output.find("generating") == std::string::npos);
  // stdout alone (stderr dropped by the shell) is nothing but CSV.
  const ProgramResult csv = run_program("ch01_sequential", run + " --csv 2>/dev/null | cat");
  INFO(csv.output);
  CHECK_THAT(csv.output, ContainsSubstring("ch01_sequential,loop,16777216,int32,add,inclusive,PASS,"));
  std::istringstream lines(csv.output);
  for (std::string line; std::getline(lines, line);) {
    CHECK((line.rfind("# device: ", 0) == 0 || line.rfind("program,", 0) == 0 ||
           line.rfind("ch01_sequential,", 0) == 0));
  }
  // Small runs stay quiet when stderr is not a terminal.
  CHECK(run_program("ch01_sequential", "--n 1K --reps 1").output.find("generating") == std::string::npos);
}

TEST_CASE("help and list work without a device", "[cpu][cli]") {
  const ProgramResult help = run_program("ch02_naive_global", "--help");
  CHECK(help.exit_code == 0);
  CHECK_THAT(help.output, ContainsSubstring("usage: ch02_naive_global"));
  const ProgramResult list = run_program("ch02_naive_global", "--list");
  CHECK(list.exit_code == 0);
  CHECK_THAT(list.output, ContainsSubstring("multi-launch"));
}

TEST_CASE("the CPU chapter runs anywhere", "[cpu][cli]") {
  const ProgramResult r = run_program("ch01_sequential", "--n 100K --reps 3 --warmup 1");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, ContainsSubstring("blocked-threads"));
  CHECK(r.output.find("FAIL") == std::string::npos);
  const ProgramResult empty = run_program("ch01_sequential", "--n 0");
  CHECK(empty.exit_code == 0);
  const ProgramResult shown = run_program("ch01_sequential", "--input 3,1,7,0,4,1,6,3 --kind exclusive");
  CHECK(shown.exit_code == 0);
  CHECK_THAT(shown.output, ContainsSubstring("0 3 4 11 11 15 16 22"));
}

TEST_CASE("a comma-separated list of --variant names runs each, and every name is checked", "[cpu][cli]") {
  const ProgramResult two = run_program("ch01_sequential", "--n 10K --reps 1 --variant loop,blocked-threads --csv");
  INFO(two.output);
  CHECK(two.exit_code == 0);
  CHECK_THAT(two.output, ContainsSubstring("ch01_sequential,loop,"));
  CHECK_THAT(two.output, ContainsSubstring("ch01_sequential,blocked-threads,"));
  CHECK(two.output.find("ch01_sequential,std-scan,") == std::string::npos);
  const ProgramResult unknown = run_program("ch01_sequential", "--n 1K --variant loop,nope");
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.output, ContainsSubstring("unknown variant 'nope'"));
  const ProgramResult twice = run_program("ch01_sequential", "--n 1K --variant loop,loop");
  CHECK(twice.exit_code == 2);
  CHECK_THAT(twice.output, ContainsSubstring("'loop' is listed twice"));
  CHECK(run_program("ch01_sequential", "--n 1K --variant loop,").exit_code == 2);
  CHECK(run_program("ch01_sequential", "--n 1K --variant loop,all").exit_code == 2);
}

TEST_CASE("no usable device exits 3 with the runtime's message", "[cpu][cli]") {
  const ProgramResult r = run_program("ch02_naive_global", "--n 1K", "CUDA_VISIBLE_DEVICES=");
  INFO(r.output);
  CHECK(r.exit_code == 3);
  CHECK_THAT(r.output, ContainsSubstring("CUDA error: cuda"));
}

TEST_CASE("a GPU chapter runs, handles n = 0, and refuses what does not fit", "[gpu][cli]") {
  require_gpu();
  const ProgramResult r = run_program("ch02_naive_global", "--n 100K --reps 3 --warmup 1");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, ContainsSubstring("cub::DeviceScan"));
  CHECK(r.output.find("FAIL") == std::string::npos);
  CHECK(run_program("ch02_naive_global", "--n 0").exit_code == 0);
  const ProgramResult huge = run_program("ch02_naive_global", "--n 64G --variant multi-launch");
  INFO(huge.output);
  CHECK(huge.exit_code == 2);
  CHECK_THAT(huge.output, ContainsSubstring("choose a smaller --n"));
  const ProgramResult traced = run_program("ch02_naive_global", "--input 3,1,7,0,4,1,6,3 --trace");
  INFO(traced.output);
  CHECK(traced.exit_code == 0);
  CHECK_THAT(traced.output, ContainsSubstring("3 4 11 11 15 16 22 25"));
}

namespace {

/// Runs scan_stress on each target: 50 runs at 2^20 on two streams, none wrong.
void stress(std::initializer_list<const char*> targets) {
  for (const char* target : targets) {
    const ProgramResult r = run_program("scan_stress", std::string(target) + " --n 1M --runs 50 --streams 2");
    INFO(r.output);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.output, ContainsSubstring(" 0 wrong runs"));
  }
}

}  // namespace

TEST_CASE("single-pass scans stay right over repeated and concurrent runs", "[gpu][stress]") {
  require_gpu();
  stress({"--chapter 09 --variant chained", "--chapter 10 --variant serial-lookback",
          "--chapter 10 --variant warp-lookback", "--chapter 10 --variant packed-settle"});
}

TEST_CASE("Hopper's single-pass scans stay right over repeated and concurrent runs", "[gpu][stress][hopper]") {
  require_gpu(chapter_by_number("11").needs);
  stress({"--chapter 11 --variant tuned", "--chapter 11 --variant bulk", "--chapter 11 --variant lookback-warp",
          "--chapter 11 --variant deterministic", "--chapter 12 --variant transformed --segments 64",
          "--chapter 12 --variant direct --segments 4096", "--chapter 12 --variant by-key"});
}

TEST_CASE("chapters 11 to 14 tell an older GPU's reader in one line what they need", "[gpu][cli][hopper]") {
  require_gpu();
  // SCAN_PRETEND_SM=75 makes the check answer as on a T4 (on a real older
  // GPU it answers so anyway); the programs must stop before any kernel.
  const std::string older = "SCAN_PRETEND_SM=75";
  for (const std::string program : {"ch11_copy_ceiling", "ch12_segmented", "ch13_applications", "ch14_multi_gpu"}) {
    if (program == "ch14_multi_gpu" && !program_exists(program)) continue;  // built only where NCCL is found
    const ProgramResult r = run_program(program, "--n 1M", older);
    INFO(program << ": " << r.output);
    CHECK(r.exit_code == 3);
    CHECK_THAT(r.output, ContainsSubstring(program + " needs a Hopper GPU (sm_90 or newer: bulk copies and "
                                                     "mbarriers); this is "));
    CHECK_THAT(r.output, ContainsSubstring("(sm_75"));
    CHECK_THAT(r.output, ContainsSubstring("). Chapters 00 to 10 and 15 run here."));
    CHECK(r.output.find('\n') == r.output.size() - 1);  // one line
  }
  const ProgramResult stressed = run_program("scan_stress", "--chapter 11 --variant bulk --n 1M --runs 1", older);
  INFO(stressed.output);
  CHECK(stressed.exit_code == 3);
  CHECK_THAT(stressed.output, ContainsSubstring("needs a Hopper GPU"));
  // The scoreboard goes on without them and says why in its summary.
  const ProgramResult board =
      run_program("ch00_scoreboard", "--chapters 10,11,12 --n-min 64K --n-max 64K --reps 2 --warmup 1 --quiet", older);
  INFO(board.output);
  CHECK(board.exit_code == 0);
  CHECK_THAT(board.output, ContainsSubstring("11       skipped: ch11_copy_ceiling needs a Hopper GPU"));
  CHECK_THAT(board.output, ContainsSubstring("12       skipped: ch12_segmented needs a Hopper GPU"));
  CHECK_THAT(board.output, ContainsSubstring("\n  10       "));  // chapter 10 was measured
  // A chapter that runs anywhere is not affected.
  CHECK(run_program("ch10_decoupled_lookback", "--n 64K --reps 2 --warmup 1", older).exit_code == 0);
}

TEST_CASE("the deterministic scan's float sums are the same on every run", "[gpu][stress][hopper]") {
  require_gpu(chapter_by_number("11").needs);
  // Real-valued inputs over many tiles, two streams: every run must equal the first bit for bit.
  const ProgramResult r = run_program(
      "scan_stress", "--chapter 11 --variant deterministic --type float --identical --n 16777219 --runs 100 --streams 2");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, ContainsSubstring("0 of 199 later runs differ"));
  // Double sums (the rings of 8-byte types), and an input of a few waves
  // (the grouped walk in chapter 10's kernel).
  for (const std::string args : {"--type double --n 16777219", "--type float --n 1048579"}) {
    const ProgramResult more = run_program(
        "scan_stress", "--chapter 11 --variant deterministic --identical --runs 100 --streams 2 " + args);
    INFO(args << "\n" << more.output);
    CHECK(more.exit_code == 0);
    CHECK_THAT(more.output, ContainsSubstring("0 of 199 later runs differ"));
  }
}

TEST_CASE("scan_stress compares runs bit for bit only for real-valued types", "[cpu][cli]") {
  const ProgramResult r = run_program("scan_stress", "--identical --n 1K");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, ContainsSubstring("--identical needs --type float or double"));
}
