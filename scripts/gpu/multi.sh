#!/usr/bin/env bash
# Chapter 14 on a machine with P GPUs (and NCCL), into OUT:
#   tests    its tests (two GPUs, and three and four where there are), both
#            launch modes, the carry applied and deferred
#   sanitize memcheck, racecheck and synccheck of each of two ranks at a
#            small n, both carries (the GPUs of CUDA_VISIBLE_DEVICES)
#   measure  n = 2^32 and 2^30 on P GPUs next to the best one-GPU scan
#            (chapter 11's fastest, same process), in one process and one
#            rank per GPU, the carry applied and deferred; one GPU running
#            the phases on n/P (weak scaling); with BIG, an n past one GPU's
#            memory. Writes OUT/ch14-TAGxP.csv.
#   scripts/gpu/multi.sh BIN_DIR OUT_DIR TAG P [PARTS] [BIG]
# PARTS: tests,sanitize,measure (default all); TAG names the GPU (h200, h100).
# NCCL comes from the toolkit, or from Python's nvidia-nccl package.
set -uo pipefail
bin=$1
out=$2
tag=$3
gpus=$4
parts=${5:-tests,sanitize,measure}
big=${6:-}
want() { [[ ",$parts," == *",$1,"* ]]; }
mkdir -p "$out"
summary="$out/multi-summary-x$gpus.txt"
note() { echo "[$SECONDS s] $*" | tee -a "$summary"; }
export NCCL_NVLS_ENABLE=0  # NVLink multicast stays off on these machines
nccl_lib=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(nvidia.nccl.__path__[0], "lib"))' 2>/dev/null)
[ -n "$nccl_lib" ] && export LD_LIBRARY_PATH="$nccl_lib:${LD_LIBRARY_PATH:-}"
note "GPUs: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tr '\n' ';')"
note "NCCL from: ${nccl_lib:-the system}"
if want tests; then
  timeout 580 env SCAN_REQUIRE_GPU=1 SCAN_REQUIRE_GPUS=2 "$bin/scan_tests" "[ch14]" --reporter compact \
    > "$out/tests-ch14-x$gpus.log" 2>&1
  note "tests [ch14] exit $?: $(tail -n 1 "$out/tests-ch14-x$gpus.log")"
fi
if want sanitize; then
  cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  ranks=2  # every rank runs the same kernels on its shard: two show the exchange and both sides of a carry
  for tool in memcheck racecheck synccheck; do
    for carry in applied deferred; do
      id="/tmp/scan-nccl-id-$tool-$carry-$$"
      for ((r = 0; r < ranks; r++)); do
        # --report-api-errors no: NCCL's set-up probes kernels built for other
        # GPUs and handles the cudaErrorNoKernelImageForDevice it gets; the
        # sanitizer would count each probe as an error, none of them ours.
        SCAN_RANK=$r SCAN_RANKS=$ranks SCAN_NCCL_ID_FILE=$id timeout 300 "$cs" --tool "$tool" --report-api-errors no \
          --error-exitcode 99 "$bin/ch14_multi_gpu" --mode ranks --gpus "$ranks" --n 65539 --carry "$carry" \
          --reps 0 --quiet > "$out/$tool-$carry-rank$r.log" 2>&1 &
      done
      wait
      for ((r = 0; r < ranks; r++)); do
        note "$tool, carry $carry, rank $r: $(grep 'ERROR SUMMARY\|RACECHECK SUMMARY' "$out/$tool-$carry-rank$r.log" | tail -n 1); $(grep -c PASS "$out/$tool-$carry-rank$r.log") PASS"
      done
      rm -f "$id"
    done
  done
fi
if want measure; then
  body() { grep -v '^#\|^program'; }
  csv="$out/ch14-${tag}x$gpus.csv"
  {
    timeout 300 "$bin/ch14_multi_gpu" --n 4G --gpus "$gpus" --csv --quiet
    timeout 300 "$bin/ch14_multi_gpu" --n 4G --gpus "$gpus" --mode ranks --csv --quiet | body
    timeout 300 "$bin/ch14_multi_gpu" --n 4G --gpus "$gpus" --carry deferred --no-compare --csv --quiet | body
    timeout 300 "$bin/ch14_multi_gpu" --n "$((4096 / gpus))M" --gpus 1 --no-compare --csv --quiet | body
    timeout 300 "$bin/ch14_multi_gpu" --n 1G --gpus "$gpus" --csv --quiet | body
    timeout 300 "$bin/ch14_multi_gpu" --n 1G --gpus "$gpus" --carry deferred --no-compare --csv --quiet | body
    if [ -n "$big" ]; then
      timeout 400 "$bin/ch14_multi_gpu" --n "$big" --gpus "$gpus" --no-compare --reps 3 --warmup 1 --csv --quiet | body
    fi
  } > "$csv" 2> "$out/ch14-x$gpus.err"
  note "ch14 measurements on $gpus GPUs exit $?"
  tee -a "$summary" < "$csv"
fi
