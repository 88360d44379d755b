#!/usr/bin/env bash
# The compute-sanitizer sweep: memcheck, racecheck, synccheck and initcheck
# over every variant of every GPU chapter, verified, at a modest n.
#
#   scripts/gpu/sanitize.sh [BIN_DIR] [N] [LARGE_N]
#   (defaults: build/ci/bin, 65539 = 2^16 + 3, 8388613 = 2^23 + 5)
#
# Each program runs with --reps 0 (one verified run per variant, no timing)
# and --no-baselines (our kernels only). It also checks that racecheck does
# catch the deliberately racy kernels of ch03_race_demo. The kernels whose
# blocks take several tiles each (chapter 08's fixed grid, the persistent
# kernels of chapters 11-13) also run at LARGE_N under memcheck and
# racecheck: at N chapter 08's fixed grid gives each block one tile, so a
# hazard between one tile and the next cannot happen there (the kit's
# planted missing barrier hid so), and the persistent kernels take only a
# few tiles per block. Prints one line per run and exits 1 if any run
# reported an error (or the demo went unnoticed).
set -uo pipefail
bin="${1:-build/ci/bin}"
n="${2:-65539}"
large_n="${3:-8388613}"
sanitizer="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
if [ ! -x "$sanitizer" ]; then
  echo "sanitize.sh: compute-sanitizer not found (it ships with the CUDA toolkit)" >&2
  exit 3
fi
failures=0
check() {  # check TOOL PROGRAM ARGS...
  local tool=$1 program=$2
  shift 2
  local log
  log=$("$sanitizer" --tool "$tool" --error-exitcode 99 --print-limit 20 "$bin/$program" "$@" 2>&1)
  local code=$?
  local summary
  summary=$(printf '%s\n' "$log" | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" | tail -n 1)
  if [ $code -eq 0 ]; then
    printf 'ok    %-9s %-26s %s  [%s]\n' "$tool" "$program" "$*" "${summary:-no summary}"
  else
    printf 'FAIL  %-9s %-26s %s  (exit %d)\n' "$tool" "$program" "$*" "$code"
    printf '%s\n' "$log" | head -n 60 | sed 's/^/      /'
    failures=$((failures + 1))
  fi
}
# The scan chapters (02-12) share one command line; chapters 13 and 15 have their own,
# and chapter 14 needs two GPUs (scripts/gpu/multi.sh sanitizes each rank).
programs=$(ls "$bin" | grep -E '^ch(0[2-9]|1[0-2])_' | grep -vE 'race_demo|op_counts' | sort)
for program in $programs; do
  common=(--n "$n" --reps 0 --no-baselines --variant all)
  check memcheck  "$program" "${common[@]}" --kind inclusive
  check memcheck  "$program" "${common[@]}" --kind exclusive --op affine
  check initcheck "$program" "${common[@]}" --kind inclusive
  check initcheck "$program" "${common[@]}" --kind exclusive --type double
  check racecheck "$program" "${common[@]}" --kind inclusive
  check synccheck "$program" "${common[@]}" --kind inclusive
done
if [ -x "$bin/ch13_applications" ]; then
  apps=(--n "$n" --reps 0 --no-baselines --rows 0)
  for tool in memcheck initcheck racecheck synccheck; do check "$tool" ch13_applications "${apps[@]}"; done
  # Rows of a batched recurrence (the row length must divide n).
  check memcheck ch13_applications --n 73728 --rows 8192 --app recurrence --reps 0 --no-baselines
fi
# Several tiles per block.
for program in ch08_hierarchical ch11_copy_ceiling ch12_segmented; do
  [ -x "$bin/$program" ] || continue
  for tool in memcheck racecheck; do check "$tool" "$program" --n "$large_n" --reps 0 --no-baselines --variant all; done
done
if [ -x "$bin/ch13_applications" ]; then
  for tool in memcheck racecheck; do check "$tool" ch13_applications --n "$large_n" --reps 0 --no-baselines --rows 0; done
fi
# Chapter 15's sort: keys and pairs, every digit width, skewed keys, a few
# tiles at N and many at LARGE_N (tiles wait on tiles before them in the look-back).
if [ -x "$bin/ch15_radix_sort" ]; then
  sorts=(--n "$n" --reps 0 --no-baselines)
  for tool in memcheck initcheck racecheck synccheck; do
    check "$tool" ch15_radix_sort "${sorts[@]}" --bits 1,4,8
    check "$tool" ch15_radix_sort "${sorts[@]}" --type uint64 --pairs
    # Few distinct keys: warps whose keys share one digit skip the ranking
    # (keys alone), rounds whose lanes do skip their atomics (pairs).
    check "$tool" ch15_radix_sort "${sorts[@]}" --dist few
    check "$tool" ch15_radix_sort "${sorts[@]}" --dist few --pairs
  done
  for tool in memcheck racecheck; do check "$tool" ch15_radix_sort --n "$large_n" --reps 0 --no-baselines --type float --pairs; done
  # Keys alone and 8-byte pairs at LARGE_N take the wide tile on a GPU
  # that holds it (two blocks of about 72 KiB an SM): keys alone under
  # every tool, the skewed keys and the 8-byte pairs under memcheck and racecheck.
  for tool in memcheck initcheck racecheck synccheck; do
    check "$tool" ch15_radix_sort --n "$large_n" --reps 0 --no-baselines
  done
  check memcheck ch15_radix_sort --n "$large_n" --reps 0 --no-baselines --dist few
  for tool in memcheck racecheck; do
    check "$tool" ch15_radix_sort --n "$large_n" --reps 0 --no-baselines --type uint64 --pairs
  done
fi
# Chapter 11's rings for 8-byte types (deterministic and fastest choose them
# from 2^23 elements on; at N they run the grouped walk per tile). And the
# grouped walk per tile for 4-byte types: deterministic runs it for floats
# below 32 MiB, where the int32 runs above take chapter 10's look-back.
if [ -x "$bin/ch11_copy_ceiling" ]; then
  for tool in memcheck racecheck; do
    check "$tool" ch11_copy_ceiling --n "$large_n" --reps 0 --no-baselines --variant deterministic,fastest --type double
  done
  for tool in memcheck initcheck racecheck synccheck; do
    check "$tool" ch11_copy_ceiling --n "$n" --reps 0 --no-baselines --variant deterministic --type float
  done
  # 2^20 + 3 floats: 129 tiles of 256 x 32, five groups, so the walk crosses groups.
  for tool in memcheck racecheck; do
    check "$tool" ch11_copy_ceiling --n 1048579 --reps 0 --no-baselines --variant deterministic --type float
  done
fi
# The demo's kernels have a barrier missing: racecheck must say so, with
# its own exit code (99); any other failure (the program missing, a crash)
# is not a hazard reported.
if [ ! -x "$bin/ch03_race_demo" ]; then
  echo "FAIL  racecheck  ch03_race_demo: not in $bin (build it with the programs)"
  failures=$((failures + 1))
else
  for missing in war raw; do
    "$sanitizer" --tool racecheck --error-exitcode 99 "$bin/ch03_race_demo" --missing "$missing" >/dev/null 2>&1
    code=$?
    if [ $code -eq 99 ]; then
      echo "ok    racecheck  ch03_race_demo --missing $missing: hazard reported, as it must be"
    else
      echo "FAIL  racecheck  ch03_race_demo --missing $missing: exit $code, not the hazard's 99"
      failures=$((failures + 1))
    fi
  done
  if "$sanitizer" --tool racecheck --error-exitcode 99 "$bin/ch03_race_demo" --missing none >/dev/null 2>&1; then
    echo "ok    racecheck  ch03_race_demo --missing none: clean with both barriers"
  else
    echo "FAIL  racecheck  ch03_race_demo --missing none reported a hazard"
    failures=$((failures + 1))
  fi
fi
echo "sanitize.sh: $failures failing run(s)"
[ $failures -eq 0 ]
