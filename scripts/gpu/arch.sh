#!/usr/bin/env bash
# Every GPU a student has, checked on a Hopper machine:
#   1. suite: the whole test program of a build, one process per test case,
#      JOBS at a time (what `ctest -j JOBS` does), with SCAN_REQUIRE_GPU=1 and
#      SCAN_REQUIRE_HOPPER=1; each case's time and the wall time;
#   2. jit: a build whose chapters 00-10 carry compute_80 PTX alone: the
#      generic suites of chapters 02-10 and the [arch] test with
#      SCAN_EXPECT_PTX=80, so every kernel runs from PTX the driver compiles;
#   3. pretend: SCAN_PRETEND_SM=75, what a T4's reader sees from chapters
#      11-14, the scoreboard and a chapter that runs anywhere;
#   4. cuobjdump --list-elf of the programs, where the toolkit has it.
# Logs go to OUT; a summary is printed and kept in OUT/arch-summary.txt.
#   scripts/gpu/arch.sh BIN JIT_BIN OUT [JOBS] [PARTS]
# PARTS: any of suite,jit,pretend,elf (default all of them). With
# SCAN_SPREAD_GPUS=1,2,3 in the environment the suite's cases take turns on
# those GPUs (one GPU each; chapter 14's case then skips: run it with multi.sh).
set -uo pipefail
if [ "${1:-}" = --one ]; then  # one test case: BIN OUT NUMBER SPEC; prints seconds, exit code, spec
  if [ -n "${SCAN_SPREAD_GPUS:-}" ]; then  # e.g. 1,2,3: case k runs on the (k mod 3)-th of them
    IFS=, read -r -a spread <<< "$SCAN_SPREAD_GPUS"
    export CUDA_VISIBLE_DEVICES=${spread[$(( $4 % ${#spread[@]} ))]}
  fi
  begin=$(date +%s%N)
  SCAN_REQUIRE_GPU=1 SCAN_REQUIRE_HOPPER=1 timeout 580 "$2/scan_tests" "$5" --reporter compact > "$3/suite/$4.log" 2>&1
  code=$?
  millis=$(( ($(date +%s%N) - begin) / 1000000 ))
  printf '%d.%03d\t%d\t%s\n' $((millis / 1000)) $((millis % 1000)) "$code" "$5"
  exit 0
fi
bin=$1
jit_bin=$2
out=$3
jobs=${4:-8}
parts=${5:-suite,jit,pretend,elf}
want() { [[ ",$parts," == *",$1,"* ]]; }
mkdir -p "$out"
summary="$out/arch-summary.txt"
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }
note "device: $(nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)"
note "CUDA runtime of the programs: static, from the build; nvcc here: $(nvcc --version 2>/dev/null | grep -o 'release [0-9.]*')"

# A Catch2 test spec that matches exactly one test name.
escape() { sed -e 's/\\/\\\\/g' -e 's/,/\\,/g' -e 's/\[/\\[/g' -e 's/\]/\\]/g' -e 's/\*/\\*/g'; }

if want suite; then
  "$bin/scan_tests" --list-tests --verbosity quiet > "$out/suite-names.txt"
  note "suite: $(wc -l < "$out/suite-names.txt") test cases, $jobs at a time"
  mkdir -p "$out/suite"
  start=$SECONDS
  # Each line of suite-times.txt: seconds, exit code, test spec.
  escape < "$out/suite-names.txt" | awk '{ print NR; print $0 }' |
    xargs -P "$jobs" -d '\n' -n 2 "$0" --one "$bin" "$out" > "$out/suite-times.txt"
  # Catch2 exits 4 when every case it ran was skipped (chapter 14's test on a
  # machine with one GPU): counted apart, with the reason in the case's log.
  note "suite: wall $((SECONDS - start)) s; failed: $(awk -F'\t' '$2 != 0 && $2 != 4' "$out/suite-times.txt" | wc -l);" \
       "all skipped: $(awk -F'\t' '$2 == 4' "$out/suite-times.txt" | wc -l)"
  sort -t$'\t' -k1,1 -g -r "$out/suite-times.txt" | head -n 12 | sed 's/^/  slowest: /' | tee -a "$summary"
  awk -F'\t' '$2 != 0 && $2 != 4 { print "  FAILED: " $0 }' "$out/suite-times.txt" | tee -a "$summary"
  awk -F'\t' '$2 == 4 { print "  SKIPPED: " $0 }' "$out/suite-times.txt" | tee -a "$summary"
  grep -h "skipped\|SKIP" "$out"/suite/*.log | sort | uniq -c | head -n 5 | sed 's/^/  /' | tee -a "$summary"
fi

if want jit; then
  # The driver's cache of compiled PTX: large enough for every kernel, and
  # empty at first, so the first run really compiles.
  export CUDA_CACHE_PATH="$out/.jit-cache" CUDA_CACHE_MAXSIZE=4294967296
  rm -rf "$CUDA_CACHE_PATH"
  start=$SECONDS
  SCAN_EXPECT_PTX=80 SCAN_REQUIRE_GPU=1 timeout 580 "$jit_bin/scan_tests" "[arch]" --reporter compact \
    > "$out/jit-arch.log" 2>&1
  note "jit: [arch] with SCAN_EXPECT_PTX=80 exit $? ($((SECONDS - start)) s): $(grep -aE "assertion|test case" "$out/jit-arch.log" | tail -n 1)"
  for number in 02 03 04 05 06 07 08 09 10; do
    start=$SECONDS
    SCAN_REQUIRE_GPU=1 timeout 580 "$jit_bin/scan_tests" "generic suite: chapter $number" --reporter compact \
      > "$out/jit-suite-$number.log" 2>&1 &
  done
  wait
  for number in 02 03 04 05 06 07 08 09 10; do
    note "jit: generic suite of chapter $number: $(grep -aE "assertion|test case" "$out/jit-suite-$number.log" | tail -n 1)"
  done
  SCAN_REQUIRE_GPU=1 timeout 300 "$jit_bin/scan_tests" "[cli]" --reporter compact > "$out/jit-cli.log" 2>&1
  note "jit: the programs' tests [cli] exit $?: $(grep -aE "assertion|test case" "$out/jit-cli.log" | tail -n 1)"
  timeout 120 "$jit_bin/ch10_decoupled_lookback" --n 16M > "$out/jit-ch10.log" 2>&1
  note "jit: ch10_decoupled_lookback --n 16M exit $?"
  rm -rf "$CUDA_CACHE_PATH"
fi

if want pretend; then
  : > "$out/pretend.log"
  for program in ch11_copy_ceiling ch12_segmented ch13_applications ch14_multi_gpu; do
    [ -x "$bin/$program" ] || { note "pretend: $program not built"; continue; }
    SCAN_PRETEND_SM=75 "$bin/$program" > "$out/pretend-$program.log" 2>&1
    note "pretend: SCAN_PRETEND_SM=75 $program: exit $?, $(wc -l < "$out/pretend-$program.log") line(s): $(cat "$out/pretend-$program.log")"
  done
  SCAN_PRETEND_SM=75 "$bin/ch00_scoreboard" --chapters 10,11,12 --n-min 1M --n-max 1M --quiet \
    > "$out/pretend-scoreboard.log" 2>&1
  note "pretend: SCAN_PRETEND_SM=75 ch00_scoreboard --chapters 10,11,12: exit $?"
  sed 's/^/  /' "$out/pretend-scoreboard.log" | tail -n 12 | tee -a "$summary"
fi

if want elf; then
  dump=$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null || true)
  if [ -z "$dump" ]; then
    note "elf: no cuobjdump on this machine"
  else
    for program in "$bin/ch02_naive_global" "$bin/ch11_copy_ceiling" "$jit_bin/ch02_naive_global"; do
      note "elf: $program: $("$dump" --list-elf "$program" 2>&1 | grep -o 'sm_[0-9a-z]*' | sort | uniq -c | tr '\n' ' ')"
      note "ptx: $program: $("$dump" --list-ptx "$program" 2>&1 | grep -o 'sm_[0-9a-z]*\|compute_[0-9a-z]*' | sort | uniq -c | tr '\n' ' ')"
    done
  fi
fi
