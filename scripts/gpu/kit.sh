#!/usr/bin/env bash
# On the GPU machine: builds the graders of the classroom kit's GPU check
# for each chapter (kit/gpu/prepare-gpu.sh, with the dependencies carried in
# .deps/), the chapters side by side into DIR/NN, then grades them one
# chapter after another (kit/gpu/grade-gpu.sh: the references are timed)
# into LOGDIR/NN.
#   scripts/gpu/kit.sh DIR LOGDIR "CHAPTERS" [ARCH]
set -uo pipefail
cd "$(dirname "$0")/../.."
dir=$1 logdir=$2 chapters=$3 arch=${4:-90}
prefix=$(scripts/gpu/cccl.sh) || exit 1
export CMAKE_PREFIX_PATH="$PWD/.deps/usr" CCCL_ROOT="$prefix"
count=$(wc -w <<<"$chapters")
jobs=$(( ($(nproc) + count - 1) / count ))
mkdir -p "$logdir"
start=$SECONDS
for ch in $chapters; do
  mkdir -p "$logdir/$ch"
  kit/gpu/prepare-gpu.sh "$dir/$ch" --chapters "$ch" --arch "$arch" --jobs "$jobs" --no-pack \
    >"$logdir/$ch/prepare.log" 2>&1 &
done
wait
echo "kit.sh: built the graders of chapters $chapters in $((SECONDS - start)) s ($jobs jobs each)"
for ch in $chapters; do
  [ -f "$dir/$ch/kit/$ch/grade_reference" ] || { echo "kit.sh: chapter $ch did not build:"; tail -n 20 "$logdir/$ch/prepare.log"; continue; }
  kit/gpu/grade-gpu.sh "$dir/$ch" "$logdir/$ch" --jobs 4
done
