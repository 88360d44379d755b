#!/usr/bin/env bash
# Correctness on a GPU machine: the whole test suite with SCAN_REQUIRE_GPU=1,
# the sanitizer sweep, the stress runs of the single-pass chapters, n beyond
# 2^31, and the out-of-memory message. Logs go to OUT; a summary is printed.
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
  note "$(printf '%-34s exit %3d  %4ds' "$name" "$code" $((SECONDS - start)))"
  return 0
}
nvidia-smi > "$out/nvidia-smi.txt" 2>&1
note "device: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null)"
if want tests; then
  run tests 900 env SCAN_REQUIRE_GPU=1 "$bin/scan_tests" --reporter compact
  tail -n 3 "$out/tests.log" | tee -a "$summary"
fi
if want sanitize; then
  run sanitize 900 scripts/sanitize.sh "$bin" 65539
  tail -n 1 "$out/sanitize.log" | tee -a "$summary"
fi
want stress && for target in "09 chained" "10 serial-lookback" "10 warp-lookback" "10 tuned"; do
  set -- $target
  run "stress-ch$1-$2" 300 "$bin/scan_stress" --chapter "$1" --variant "$2" --n 16777219 --runs 1000
  tail -n 1 "$out/stress-ch$1-$2.log" | tee -a "$summary"
  run "stress2-ch$1-$2" 300 "$bin/scan_stress" --chapter "$1" --variant "$2" --n 16777219 --runs 200 --streams 2 --kind exclusive
  tail -n 1 "$out/stress2-ch$1-$2.log" | tee -a "$summary"
  run "stress-big-ch$1-$2" 300 "$bin/scan_stress" --chapter "$1" --variant "$2" --n 256M --runs 10
  tail -n 1 "$out/stress-big-ch$1-$2.log" | tee -a "$summary"
done
# Beyond 2^31 elements (int32: 8 GiB in, 8 GiB out).
want huge || exit 0
run huge-ch08 900 "$bin/ch08_hierarchical" --n 2147483649 --reps 3 --warmup 1
run huge-ch10 600 "$bin/ch10_decoupled_lookback" --n 2147483649 --reps 3 --warmup 1 --variant tuned
grep -E "PASS|FAIL|SKIP" "$out/huge-ch08.log" "$out/huge-ch10.log" | tee -a "$summary"
run too-big 60 "$bin/ch08_hierarchical" --n 64G
tail -n 1 "$out/too-big.log" | tee -a "$summary"
