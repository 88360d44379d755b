#!/usr/bin/env bash
# Correctness on a GPU machine: the whole test suite with SCAN_REQUIRE_GPU=1,
# the sanitizer sweep, the stress runs of the single-pass chapters, float
# runs compared bit for bit, n beyond 2^31, and the out-of-memory message.
# Logs go to OUT; a summary is printed (and kept in OUT/checks-summary.txt).
#   scripts/gpu/checks.sh BIN_DIR OUT_DIR [PARTS]
# PARTS: any of tests,sanitize,stress,huge (default all of them).
set -uo pipefail
bin=$1
out=$2
parts=${3:-tests,sanitize,stress,huge}
want() { [[ ",$parts," == *",$1,"* ]]; }
mkdir -p "$out"
summary="$out/checks-summary.txt"
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }
run() {  # run NAME TIMEOUT COMMAND...
  local name=$1 limit=$2
  shift 2
  local start=$SECONDS
  timeout "$limit" "$@" > "$out/$name.log" 2>&1
  local code=$?
  note "$(printf '%-40s exit %3d  %4ds' "$name" "$code" $((SECONDS - start)))"
  return 0
}
note "device: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)"
if want tests; then
  run tests 600 env SCAN_REQUIRE_GPU=1 "$bin/scan_tests" --reporter compact "~[ch14]"
  tail -n 2 "$out/tests.log" | tee -a "$summary"
fi
if want sanitize; then
  run sanitize 600 scripts/gpu/sanitize.sh "$bin" 65539
  grep -E "^FAIL" "$out/sanitize.log" | tee -a "$summary"
  tail -n 1 "$out/sanitize.log" | tee -a "$summary"
fi
if want stress; then
  : > "$out/stress.log"
  for target in "09 chained" "10 packed-settle" "11 tuned" "11 bulk" "11 deterministic" "11 fastest"; do
    set -- $target
    for args in "--n 16777219 --runs 1000" "--n 16777219 --runs 200 --streams 2 --kind exclusive" "--n 256M --runs 10"; do
      timeout 300 "$bin/scan_stress" --chapter "$1" --variant "$2" $args >> "$out/stress.log" 2>&1 || note "stress $target $args: FAILED"
    done
  done
  # Float sums: the deterministic variant must equal its first run bit for
  # bit; the others are reported (how many runs differ, and in how many elements).
  for args in "--n 16777219 --runs 200 --streams 2" "--n 256M --runs 20"; do
    timeout 300 "$bin/scan_stress" --chapter 11 --variant deterministic --type float --identical $args >> "$out/stress.log" 2>&1 \
      || note "float deterministic $args: FAILED"
  done
  # Segmented scans: random segments of a few mean lengths, the same heads on every run.
  for target in "12 transformed 8" "12 direct 256" "12 by-key 65536" "12 bulk 1" "12 bulk 256" "12 bulk 1G"; do
    set -- $target
    timeout 300 "$bin/scan_stress" --chapter "$1" --variant "$2" --segments "$3" --n 16777219 --runs 1000 \
      >> "$out/stress.log" 2>&1 || note "stress $target: FAILED"
  done
  for v in "10 packed-settle" "11 tuned" "11 bulk"; do
    set -- $v
    timeout 300 "$bin/scan_stress" --chapter "$1" --variant "$2" --type float --n 16777219 --runs 100 >> "$out/stress.log" 2>&1
  done
  grep "^scan_stress" "$out/stress.log" | tee -a "$summary"
fi
want huge || exit 0
# Beyond 2^31 elements (int32: 8 GiB in, 8 GiB out).
for target in "ch08_hierarchical --variant reduce-then-scan" "ch11_copy_ceiling --variant fastest" \
              "ch11_copy_ceiling --variant tuned" "ch12_segmented --variant direct"; do
  set -- $target
  run "huge-$1-${3}" 300 "$bin/$1" --n 2147483649 --reps 0 --variant "$3" --no-baselines --quiet
  grep -E "PASS|FAIL|SKIP" "$out/huge-$1-${3}.log" | tee -a "$summary"
done
run huge-ch12-bulk 300 "$bin/ch12_segmented" --n 2147483649 --reps 0 --variant bulk --segments 1G --no-baselines --quiet
grep -E "PASS|FAIL|SKIP" "$out/huge-ch12-bulk.log" | tee -a "$summary"
run huge-ch13 300 "$bin/ch13_applications" --n 2147483649 --app compact --reps 0 --no-baselines --quiet
grep -E "PASS|FAIL" "$out/huge-ch13.log" | tee -a "$summary"
run too-big 60 "$bin/ch08_hierarchical" --n 64G
tail -n 1 "$out/too-big.log" | tee -a "$summary"
