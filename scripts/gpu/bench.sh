#!/usr/bin/env bash
# Measurements on a GPU machine: the scoreboard (every chapter against CUB
# and the copy), the chapters' extra sizes, the tuning sweeps, and ncu
# counters (bank conflicts, DRAM bytes). Writes into OUT.
#   scripts/gpu/bench.sh BIN_DIR OUT_DIR [PARTS]
# PARTS: any of scoreboard,glance,large,sweeps,blocks,ncu (default all but glance);
# glance is the scoreboard at 2^28 int32 only.
set -uo pipefail
bin=$1
out=$2
parts=${3:-scoreboard,large,sweeps,blocks,ncu}
want() { [[ ",$parts," == *",$1,"* ]]; }
mkdir -p "$out"
log() { echo "[$((SECONDS))s] $*" | tee -a "$out/bench-summary.txt"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$out/gpu.csv" 2>&1
if want glance; then
  "$bin/ch00_scoreboard" --types int32 --n-min 256M --n-max 256M --csv "$out/glance.csv" \
      > "$out/glance.txt" 2> "$out/glance.err"
  log "glance exit $?"
fi
if want scoreboard; then
  "$bin/ch00_scoreboard" --types int32,float --n-min 1K --n-max 256M --csv "$out/scoreboard.csv" \
      --json "$out/scoreboard.json" > "$out/scoreboard.txt" 2> "$out/scoreboard.err"
  log "scoreboard exit $?"
fi
# n = 2^30 for chapters 08-10. Chapter 09 runs only its 16k-tile variant:
# the others take seconds per call there (they are bound by the chain of tiles).
want large && for ch in 08_hierarchical 09_stream_scan 10_decoupled_lookback; do
  only=""
  [ "$ch" = 09_stream_scan ] && only="--variant chained-16k"
  for type in int32 float; do
    "$bin/ch$ch" --n 1G --type "$type" $only --csv > "$out/ch${ch%%_*}-1G-$type.csv" 2>> "$out/extra.err"
    log "ch$ch 2^30 $type exit $?"
  done
done
want sweeps && for ch in 07_coarsening 10_decoupled_lookback; do
  "$bin/ch$ch" --variant sweep --n 256M --csv > "$out/sweep-ch${ch%%_*}.csv" 2>> "$out/extra.err"
  log "sweep ch$ch exit $?"
done
want blocks && for ch in 02_naive_global 03_shared_memory 04_double_buffer 05_brent_kung 06_warp_shuffle; do
  for block in 128 256 512 1024; do
    "$bin/ch$ch" --n 256M --block "$block" --no-baselines --csv > "$out/block-ch${ch%%_*}-$block.csv" 2>> "$out/extra.err"
  done
  log "block sweep ch$ch"
done
want ncu || exit 0
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
metrics=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
for v in divergent contiguous two-per-thread blelloch padded; do
  "$ncu" --csv --metrics "$metrics" --kernel-name regex:'brent_kung|blelloch' --launch-count 1 \
      "$bin/ch05_brent_kung" --variant "$v" --n 1M --reps 0 --no-baselines > "$out/ncu-ch05-$v.csv" 2>&1
  log "ncu ch05 $v exit $?"
done
for target in "07_coarsening vectorized" "07_coarsening tile-only" "08_hierarchical scan-then-propagate" \
              "08_hierarchical reduce-then-scan" "08_hierarchical fixed-grid" "09_stream_scan chained" \
              "10_decoupled_lookback tuned"; do
  set -- $target
  "$ncu" --csv --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum \
      "$bin/ch$1" --variant "$2" --n 64M --reps 0 > "$out/ncu-dram-${1%%_*}-$2.csv" 2>&1
  log "ncu dram ch$1 $2 exit $?"
done
# Chapter 10: global load requests (the tile's own plus the look-back's
# status loads) with and without settling, at n = 2^28.
for v in tuned 128x32-warp-io-spin; do
  "$ncu" --csv --metrics l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,smsp__inst_executed.sum,gpu__time_duration.sum \
      --kernel-name regex:decoupled "$bin/ch10_decoupled_lookback" --variant "$v" --n 256M --reps 0 --no-baselines \
      > "$out/ncu-loads-10-$v.csv" 2>&1
  log "ncu loads ch10 $v exit $?"
done
