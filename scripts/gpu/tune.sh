#!/usr/bin/env bash
# The tuning runs of issue 30 (every fast path on both GPUs), on a GPU
# machine, into OUT (CSV files; TAG names the GPU: h100, h200). Each run
# times CUB and the copy in the same process as the candidates.
#   scripts/gpu/tune.sh BIN_DIR OUT_DIR TAG [PARTS]
# PARTS: any of wide,affine,small,ch12,pertile,final,final-ch12 (default all but
# the two final parts).
#   wide    deterministic 8-byte sums at 2^28 and 2^27: the variants and the
#           sweep points in overlapped's shape for 8-byte types (four and two
#           groups per trip)
#   affine  the affine operator at 2^28 in every grouped recipe, with the int32 sum
#   small   grouped (deterministic) recipes at n = 2^16 ... 2^30, int32 (three
#           runs) and float (one)
#   pertile the grouped walk in chapter 10's kernel (one block per tile) at
#           n = 2^16 ... 2^26, int32 (three runs) and float (one); overlapped
#           with the prefetch of deterministic at 2^28, int32 and affine
#   final   the issue's checks of chapter 11 on the final code, five runs each:
#           deterministic, fastest and tuned for int64 and double at 2^28;
#           deterministic for the int32 sum and the affine operator at 2^28
#   final-ch12  the same for chapter 12: bulk and direct at the six segment
#           lengths, five runs each
#   ch12    chapter 12's bulk variant and its refill-in-look-back sweep points at
#           the six mean segment lengths of the chapter's table
set -uo pipefail
bin=$1
out=$2
tag=$3
parts=${4:-wide,affine,small,ch12,pertile}
want() { [[ ",$parts," == *",$1,"* ]]; }
mkdir -p "$out"
log() { echo "[$((SECONDS))s] $*" | tee -a "$out/tune-summary-$tag.txt"; }
body() { grep -v '^#\|^program'; }
with_columns() {
  awk -v names="$1" -v values="$2" -v header="$3" \
    '/^#/ { if (header == 1) print; next } /^program,/ { if (header == 1) print names "," $0; next } { print values "," $0 }'
}
ch11=$bin/ch11_copy_ceiling
if want wide; then
  wide=deterministic,overlapped,tuned,bulk-128x18-s3-refill-in-look-back-grouped-wide4-spin
  wide+=,bulk-128x18-s4-refill-in-look-back-grouped-wide4-spin,bulk-128x22-s3-refill-in-look-back-grouped-wide4-spin
  wide+=,bulk-128x14-s4-refill-in-look-back-grouped-wide4-spin
  wide+=,bulk-128x18-s3-refill-in-look-back-grouped-wide4-spin-ahead2M
  wide+=,bulk-128x36-s3-refill-in-look-back-grouped-wide4-spin-ahead2M
  wide+=,bulk-128x18-s3-refill-in-look-back-grouped-wide2-spin-ahead2M
  {
    header=1
    for n in 256M 128M; do
      for type in int64 double; do
        "$ch11" --n $n --type $type --variant "$wide" --csv --quiet | with_columns run 1 $header
        header=0
      done
    done
  } > "$out/tune-wide-$tag.csv" 2>> "$out/tune.err"
  log "wide exit $?"
fi
if want affine; then
  {
    "$ch11" --n 256M --variant deterministic,overlapped,tuned,fastest --csv --quiet
    "$ch11" --n 256M --op affine --type uint32 --variant deterministic,overlapped,tuned,fastest --csv --quiet | body
  } > "$out/tune-affine-$tag.csv" 2>> "$out/tune.err"
  log "affine exit $?"
fi
if want small; then
  small=deterministic,overlapped,fastest,bulk-128x16-s6-grouped-wide4-spin,bulk-128x28-s3-grouped-wide4-spin
  small+=,bulk-128x20-s3-refill-in-look-back-grouped-wide4-spin,bulk-128x12-s3-refill-in-look-back-grouped-wide4-spin
  small+=,bulk-128x32-s3-grouped-wide4-spin
  {
    header=1
    for e in 16 18 20 22 24 26 28 30; do
      for run in 1 2 3; do
        "$ch11" --n $((1 << e)) --variant "$small" --csv --quiet | with_columns run "$run" $header
        header=0
      done
      "$ch11" --n $((1 << e)) --type float --variant "$small" --csv --quiet | with_columns run 1 0
    done
  } > "$out/tune-small-$tag.csv" 2>> "$out/tune.err"
  log "small exit $?"
fi
if want ch12; then
  refill=bulk-128x28-s3-refill-in-look-back,bulk-128x28-s4-refill-in-look-back,bulk-128x20-s3-refill-in-look-back
  refill+=,bulk-128x28-s3-wide4-refill-in-look-back,bulk-256x16-s3-refill-in-look-back,bulk-128x28-s3
  {
    header=1
    for case in "1 random" "8 random" "256 random" "256 fixed" "65536 random" "1G random"; do
      set -- $case
      "$bin/ch12_segmented" --n 256M --segments $1 --lengths $2 --variant "direct,bulk,$refill" --csv --quiet |
        with_columns segments,lengths "$1,$2" $header
      header=0
    done
  } > "$out/tune-ch12-$tag.csv" 2>> "$out/tune.err"
  log "ch12 exit $?"
fi
if want pertile; then
  pertile=deterministic,fastest,128x32-warp-io-grouped-wide4-settle3000-ahead4M,128x32-warp-io-grouped-wide4-settle3000
  pertile+=,128x32-warp-io-grouped-wide4-spin,256x32-warp-io-grouped-wide4-spin,128x16-warp-io-grouped-wide2-spin
  pertile+=,256x32-warp-io-grouped-spin
  {
    header=1
    for e in 16 18 20 21 22 23 24 25 26; do
      for run in 1 2 3; do
        "$ch11" --n $((1 << e)) --variant "$pertile" --csv --quiet | with_columns run "$run" $header
        header=0
      done
      "$ch11" --n $((1 << e)) --type float --variant "$pertile" --csv --quiet | with_columns run 1 0
    done
  } > "$out/tune-pertile-$tag.csv" 2>> "$out/tune.err"
  log "pertile exit $?"
  ahead=deterministic,overlapped,bulk-128x36-s3-refill-in-look-back-grouped-wide4-spin-ahead2M
  {
    "$ch11" --n 256M --variant "$ahead" --csv --quiet
    "$ch11" --n 256M --type float --variant "$ahead" --csv --quiet | body
    "$ch11" --n 256M --op affine --type uint32 --variant "$ahead" --csv --quiet | body
  } > "$out/tune-ahead-$tag.csv" 2>> "$out/tune.err"
  log "ahead exit $?"
fi
if want final; then
  {
    header=1
    for run in 1 2 3 4 5; do
      for type in int64 double; do
        "$ch11" --n 256M --type $type --variant deterministic,fastest,tuned --csv --quiet | with_columns run $run $header
        header=0
      done
    done
  } > "$out/issue30-wide-$tag.csv" 2>> "$out/tune.err"
  log "final wide exit $?"
  {
    header=1
    for run in 1 2 3 4 5; do
      "$ch11" --n 256M --variant deterministic,fastest --csv --quiet | with_columns run $run $header
      header=0
      "$ch11" --n 256M --op affine --type uint32 --variant deterministic,fastest --csv --quiet | with_columns run $run 0
    done
  } > "$out/issue30-affine-$tag.csv" 2>> "$out/tune.err"
  log "final affine exit $?"
fi
if want final-ch12; then
  {
    header=1
    for run in 1 2 3 4 5; do
      for case in "1 random" "8 random" "256 random" "256 fixed" "65536 random" "1G random"; do
        set -- $case
        "$bin/ch12_segmented" --n 256M --segments $1 --lengths $2 --variant bulk,direct --csv --quiet |
          with_columns run,segments,lengths "$run,$1,$2" $header
        header=0
      done
    done
  } > "$out/issue30-ch12-$tag.csv" 2>> "$out/tune.err"
  log "final ch12 exit $?"
fi
