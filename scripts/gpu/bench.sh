#!/usr/bin/env bash
# Measurements on a GPU machine, into OUT (CSV files named as docs/results/
# keeps them; TAG names the GPU in the file names: h100, h200).
#   scripts/gpu/bench.sh BIN_DIR OUT_DIR TAG [PARTS]
# PARTS: any of scoreboard,large,ch11,sizes,sweeps,ch12,ch13 (default all).
#   scoreboard  every chapter against CUB and the copy, int32, n = 1K ... 256M
#   large       chapter 10 at n = 2^30, int32 and float (the 2^30 column of its table)
#   ch11        chapter 11's steps at 2^28 (4-byte types) and 2^27 (8-byte), with CUB and the copy;
#               and the other operators
#   sizes       chapter 11's fastest, deterministic and CUB at n = 2^16 ... 2^30, int32 and float,
#               five runs each (the spread)
#   sweeps      chapter 11's tuning points, int32 at 2^28 and int64 at 2^27
#   ch12        chapter 12 for mean segment lengths 1, 8, 256, 65536 and one segment; its
#               tuning points at lengths 1, 256 and one segment
#   ch13        chapter 13's applications at 2^28 (the sort at 2^26)
#   ch15        chapter 15's sort against CUB: uint32 keys and pairs at 2^16 ... 2^30; int32,
#               float, uint64 at 2^24; the skewed inputs at 2^24; digits of 1, 4 and 8 bits at 2^24
set -uo pipefail
bin=$1
out=$2
tag=$3
parts=${4:-scoreboard,large,ch11,sizes,sweeps,ch12,ch13,ch15}
want() { [[ ",$parts," == *",$1,"* ]]; }
mkdir -p "$out"
log() { echo "[$((SECONDS))s] $*" | tee -a "$out/bench-summary-$tag.txt"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$out/gpu-$tag.csv" 2>&1
body() { grep -v '^#\|^program'; }  # a CSV without its header, to append
# with_columns NAMES VALUES HEADER: prefixes every data row with VALUES (and the
# header row with NAMES, printed with the device line only when HEADER is 1).
with_columns() {
  awk -v names="$1" -v values="$2" -v header="$3" \
    '/^#/ { if (header == 1) print; next } /^program,/ { if (header == 1) print names "," $0; next } { print values "," $0 }'
}
if want scoreboard; then
  "$bin/ch00_scoreboard" --types int32 --n-min 1K --n-max 256M --csv "$out/scoreboard.csv" \
      --json "$out/scoreboard.json" --quiet > "$out/scoreboard.txt" 2> "$out/scoreboard.err"
  log "scoreboard exit $?"
fi
if want large; then
  for type in int32 float; do
    "$bin/ch10_decoupled_lookback" --n 1G --type "$type" --csv --quiet > "$out/ch10-1G-$type.csv" 2>> "$out/bench.err"
    log "ch10 2^30 $type exit $?"
  done
fi
if want ch11; then
  {
    "$bin/ch11_copy_ceiling" --n 256M --csv --quiet
    "$bin/ch11_copy_ceiling" --n 256M --type float --csv --quiet | body
    "$bin/ch11_copy_ceiling" --n 128M --type int64 --csv --quiet | body
    "$bin/ch11_copy_ceiling" --n 128M --type double --csv --quiet | body
  } > "$out/ch11-steps-$tag.csv" 2>> "$out/bench.err"
  log "ch11 steps exit $?"
  {
    "$bin/ch11_copy_ceiling" --n 256M --variant fastest --csv --quiet
    for op in max min; do "$bin/ch11_copy_ceiling" --n 256M --variant fastest --op $op --csv --quiet | body; done
    "$bin/ch11_copy_ceiling" --n 256M --variant fastest --op affine --csv --quiet | body
  } > "$out/ch11-ops-$tag.csv" 2>> "$out/bench.err"
  log "ch11 ops exit $?"
fi
if want sizes; then
  {
    header=1
    for type in int32 float; do
      for e in 16 18 20 22 24 26 28 30; do
        for run in 1 2 3 4 5; do
          "$bin/ch11_copy_ceiling" --n $((1 << e)) --type $type --variant fastest,deterministic --csv --quiet |
            with_columns run "$run" $header
          header=0
        done
      done
    done
  } > "$out/ch11-sizes-$tag.csv" 2>> "$out/bench.err"
  log "ch11 sizes exit $?"
fi
if want sweeps; then
  "$bin/ch11_copy_ceiling" --variant sweep --n 256M --csv --quiet > "$out/sweep-ch11-$tag.csv" 2>> "$out/bench.err"
  "$bin/ch11_copy_ceiling" --variant sweep --n 128M --type int64 --csv --quiet | body >> "$out/sweep-ch11-$tag.csv" 2>> "$out/bench.err"
  log "ch11 sweeps exit $?"
fi
if want ch12; then
  {
    header=1
    for case in "1 random" "8 random" "256 random" "256 fixed" "65536 random" "1G random"; do
      set -- $case
      "$bin/ch12_segmented" --n 256M --segments $1 --lengths $2 --csv --quiet | with_columns segments,lengths "$1,$2" $header
      header=0
    done
  } > "$out/ch12-lengths-$tag.csv" 2>> "$out/bench.err"
  log "ch12 exit $?"
  {
    header=1
    for case in "1 random" "256 random" "1G random"; do
      set -- $case
      "$bin/ch12_segmented" --n 256M --segments $1 --lengths $2 --variant sweep --csv --quiet |
        with_columns segments,lengths "$1,$2" $header
      header=0
    done
  } > "$out/sweep-ch12-$tag.csv" 2>> "$out/bench.err"
  log "ch12 sweep exit $?"
fi
if want ch13; then
  {
    "$bin/ch13_applications" --n 256M --app compact --select 0.01 --csv --quiet
    for f in 0.5 0.99; do "$bin/ch13_applications" --n 256M --app compact --select $f --csv --quiet | body; done
    "$bin/ch13_applications" --n 256M --app split --csv --quiet | body
    "$bin/ch13_applications" --n 64M --app sort --reps 5 --csv --quiet | body
    "$bin/ch13_applications" --n 256M --app recurrence --reps 10 --csv --quiet | body
  } > "$out/ch13-$tag.csv" 2>> "$out/bench.err"
  log "ch13 exit $?"
fi
if want ch15; then
  {
    first=1
    run_sort() {  # one run's CSV, its header only the first time
      if [ $first = 1 ]; then "$bin/ch15_radix_sort" --csv --quiet "$@"; first=0
      else "$bin/ch15_radix_sort" --csv --quiet "$@" | body; fi
    }
    for n in 64K 1M 4M 16M 256M 1G; do run_sort --n $n; run_sort --n $n --pairs; done
    for type in int32 float uint64; do run_sort --n 16M --type $type; run_sort --n 16M --type $type --pairs; done
    for dist in few equal sorted; do run_sort --n 16M --dist $dist; run_sort --n 16M --dist $dist --pairs; done
    run_sort --n 16M --bits 1,4,8
  } > "$out/ch15-$tag.csv" 2>> "$out/bench.err"
  log "ch15 exit $?"
fi
