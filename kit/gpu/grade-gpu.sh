#!/usr/bin/env bash
# Grades, on a GPU machine, every build kit/gpu/prepare-gpu.sh made: the
# reference solution of each chapter must score full marks (correctness and
# speed), the stub and every planted bug zero for correctness, and every
# planted correct-but-slow solution full correctness and under half the
# speed marks.
#
#   grade-gpu.sh KITDIR LOGDIR [--jobs N] [--time-limit S] [--chapters "03 05"]
#
# KITDIR holds kit.tar.xz (unpacked into a temporary folder) or the
# unpacked kit/. LOGDIR receives two files: kit-gpu.log (one line per build:
# chapter, solution, correctness, sanitizer verdict, perf ratio, total,
# seconds, verdict) and builds.tar.xz (each build's table and results.json).
# References and slow solutions are graded one at a time (they are timed);
# the stubs and bugs (never timed: they are not correct) several at a time;
# the stubs without compute-sanitizer (their suite fails anyway, and it
# saves minutes).
# Exit codes: 0 every expectation held, 1 one did not, 2 usage, 3 no GPU.
set -uo pipefail
[ $# -ge 2 ] || { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2; exit 2; }
kitdir="$1"; logdir="$2"; shift 2
jobs=3
limit=180
only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --jobs) jobs="$2"; shift 2 ;;
    --time-limit) limit="$2"; shift 2 ;;
    --chapters) only="$2"; shift 2 ;;
    *) echo "grade-gpu: unknown option $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$logdir"
logdir="$(cd "$logdir" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/builds"
if [ -f "$kitdir/kit.tar.xz" ]; then
  # tar's xz, or Python's lzma where xz is not installed.
  tar -C "$work" -xJf "$kitdir/kit.tar.xz" 2>/dev/null ||
    python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$kitdir/kit.tar.xz" "$work" ||
    exit 2
  kit="$work/kit"
elif [ -f "$kitdir/manifest.txt" ]; then
  kit="$(cd "$kitdir" && pwd)"
elif [ -f "$kitdir/kit/manifest.txt" ]; then
  kit="$(cd "$kitdir/kit" && pwd)"
else
  echo "grade-gpu: no kit.tar.xz or manifest.txt in $kitdir" >&2
  exit 2
fi
log="$logdir/kit-gpu.log"
{
  echo "# kit-gpu.log: the classroom kit's graders on a GPU, $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "# $(head -n 1 "$kit/manifest.txt" | sed 's/^# //')"
  echo "# GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo unknown)"
  san="$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || true)"
  echo "# compute-sanitizer: ${san:-not found} $( [ -n "$san" ] && "$san" --version 2>/dev/null | grep -o 'Version [^ ]*' | head -n 1)"
  echo "# grader options: --quick (memcheck, racecheck, synccheck) --time-limit $limit --jobs 6 (references timed alone, with one run past 32-bit indices per variant where kit.json sets large_n; slow solutions timed alone with --no-large; stubs and bugs with --no-timing --no-large, $jobs at a time; stubs with --sanitizer off)"
  printf '# %-8s %-28s %-9s %-13s %-40s %-12s %-13s %6s  %s\n' chapter solution expect correctness sanitizer perf total time verdict
} >"$log"

run_one() {  # run_one CHAPTER FILL EXPECT [VARIANTS...]: prints one log line
  local ch=$1 fill=$2 expect=$3
  shift 3
  local args=(--reference "$kit/$ch/grade_reference" --quick --time-limit "$limit" --jobs 6
              --json "$work/builds/$ch-$fill.json")
  local v
  for v in "$@"; do args+=(--variant "$v"); done
  case "$expect" in
    full) ;;
    slow) args+=(--no-large) ;;  # timed, like the reference
    *) args+=(--no-timing --no-large) ;;
  esac
  [ "$fill" != stub ] || args+=(--sanitizer off)
  local out code start=$SECONDS
  out=$("$kit/$ch/grade_$fill" "${args[@]}" 2>&1)
  code=$?
  local secs=$((SECONDS - start))
  printf '%s\n' "$out" >"$work/builds/$ch-$fill.txt"
  local summary
  summary=$(printf '%s\n' "$out" | grep '^kit-summary' | tail -n 1)
  field() { printf '%s\n' "$summary" | tr ' ' '\n' | grep "^$1=" | cut -d= -f2-; }
  local correctness sanitizer perf total verdict=FAIL
  correctness=$(field correctness); sanitizer=$(field sanitizer); perf=$(field perf); total=$(field total)
  if [ $code -eq 3 ]; then
    verdict="NO-GPU"
  elif [ -n "$summary" ]; then
    local got=${correctness%%/*} max=${correctness##*/} tgot=${total%%/*} tmax=${total##*/}
    case "$expect" in
      full) [ "$got" = "$max" ] && [ "$tgot" = "$tmax" ] && verdict=ok ;;
      zero) [ "$got" = "0.0" ] && verdict=ok ;;
      slow)  # full correctness, and the speed part (total - correctness) under half its maximum
        awk -v g="$got" -v m="$max" -v tg="$tgot" -v tm="$tmax" \
            'BEGIN { exit !(g == m && tm > m && (tg - g) < 0.5 * (tm - m)) }' && verdict=ok ;;
    esac
  fi
  printf '  %-8s %-28s %-9s %-13s %-40s %-12s %-13s %5ss  %s\n' "$ch" "$fill" "$expect" "${correctness:--}" \
         "${sanitizer:--}" "${perf:--}" "${total:--}" "$secs" "$verdict (exit $code)"
}
export -f run_one
export kit work limit

if ! nvidia-smi -L >/dev/null 2>&1; then echo "grade-gpu: nvidia-smi sees no GPU" >&2; fi
manifest="$work/manifest.txt"
grep -v '^#' "$kit/manifest.txt" | while read -r ch rest; do
  if [ -z "$only" ] || [[ " $only " == *" $ch "* ]]; then echo "$ch $rest"; fi
done >"$manifest"
# References and slow solutions first, alone: they are timed.
awk '$3 == "full" || $3 == "slow"' "$manifest" | while read -r ch fill expect variants; do
  # shellcheck disable=SC2086
  run_one "$ch" "$fill" "$expect" $variants | tee -a "$log"
done
# Stubs and planted bugs, several at a time.
awk '$3 != "full" && $3 != "slow"' "$manifest" |
  xargs -P "$jobs" -L 1 bash -c 'run_one "$@"' _ | sort | tee -a "$log"

tar -C "$work" -cJf "$logdir/builds.tar.xz" builds 2>/dev/null ||
  python3 -c 'import sys, tarfile; t = tarfile.open(sys.argv[1], "w:xz"); t.add(sys.argv[2], "builds"); t.close()' \
    "$logdir/builds.tar.xz" "$work/builds"
failed=$(grep -v '^#' "$log" | grep -vc ' ok (exit 0)$')
nogpu=$(grep -c 'NO-GPU' "$log")
echo "# $(grep -vc '^#' "$log") builds, $failed not as expected" >>"$log"
echo "grade-gpu: $(grep -vc '^#' "$log") builds graded, $failed not as expected; log: $log" >&2
[ "$nogpu" -eq 0 ] || exit 3
[ "$failed" -eq 0 ]
