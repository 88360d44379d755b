#!/usr/bin/env bash
# Chapter 14 on a machine with two GPUs (and NCCL): its tests in both launch
# modes, memcheck on each rank, and the measurements: n = 2^32 in both
# modes next to one GPU, weak scaling (n/P fixed), and an n that does not
# fit one GPU.
#   scripts/gpu/multi.sh BIN_DIR OUT_DIR
# NCCL comes from the toolkit, or from Python's nvidia-nccl package.
set -uo pipefail
bin=$1
out=$2
mkdir -p "$out"
summary="$out/multi-summary.txt"
: > "$summary"
note() { echo "[$SECONDS s] $*" | tee -a "$summary"; }
export NCCL_NVLS_ENABLE=0  # NVLink multicast stays off on these machines
nccl_lib=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(nvidia.nccl.__path__[0], "lib"))' 2>/dev/null)
[ -n "$nccl_lib" ] && export LD_LIBRARY_PATH="$nccl_lib:${LD_LIBRARY_PATH:-}"
note "GPUs: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tr '\n' ';')"
note "NCCL from: ${nccl_lib:-the system}"
timeout 300 env SCAN_REQUIRE_GPU=1 SCAN_REQUIRE_GPUS=2 "$bin/scan_tests" "[ch14]" --reporter compact > "$out/tests-ch14.log" 2>&1
note "tests [ch14] exit $?: $(tail -n 1 "$out/tests-ch14.log")"
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
id="/tmp/scan-nccl-id-sanitize-$$"
for r in 0 1; do
  # --report-api-errors no: NCCL's set-up probes kernels built for other GPUs
  # and handles the cudaErrorNoKernelImageForDevice it gets; memcheck would
  # count each probe as an error (8 per rank on the H200s), none of them ours.
  SCAN_RANK=$r SCAN_RANKS=2 SCAN_NCCL_ID_FILE=$id timeout 200 "$cs" --tool memcheck --report-api-errors no --error-exitcode 99 \
    "$bin/ch14_multi_gpu" --mode ranks --gpus 2 --n 65539 --reps 0 --quiet > "$out/memcheck-rank$r.log" 2>&1 &
done
wait
for r in 0 1; do note "memcheck rank $r: $(grep 'ERROR SUMMARY' "$out/memcheck-rank$r.log" | tail -n 1)"; done
rm -f "$id"
body() { grep -v '^#\|^program'; }
{
  timeout 300 "$bin/ch14_multi_gpu" --n 4G --gpus 2 --csv --quiet
  timeout 300 "$bin/ch14_multi_gpu" --n 4G --gpus 2 --mode ranks --csv --quiet | body
  timeout 300 "$bin/ch14_multi_gpu" --n 2G --gpus 1 --no-compare --csv --quiet | body
  timeout 300 "$bin/ch14_multi_gpu" --n 18G --gpus 2 --no-compare --reps 3 --warmup 1 --csv --quiet | body
} > "$out/ch14-h200x2.csv" 2> "$out/ch14.err"
note "ch14 measurements exit $?"
cat "$out/ch14-h200x2.csv" | tee -a "$summary"
