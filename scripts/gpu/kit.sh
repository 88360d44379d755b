#!/usr/bin/env bash
# On the GPU machine: builds graders of the classroom kit's GPU check
# (kit/gpu/prepare-gpu.sh, with the dependencies carried in .deps/) into
# DIR, unpacked, and grades them (kit/gpu/grade-gpu.sh) into LOGDIR.
#   scripts/gpu/kit.sh DIR LOGDIR "CHAPTERS" [ARCH]
set -uo pipefail
cd "$(dirname "$0")/../.."
dir=$1 logdir=$2 chapters=$3 arch=${4:-90}
prefix=$(scripts/gpu/cccl.sh) || exit 1
export CMAKE_PREFIX_PATH="$PWD/.deps/usr" CCCL_ROOT="$prefix"
mkdir -p "$logdir"
start=$SECONDS
kit/gpu/prepare-gpu.sh "$dir" --chapters "$chapters" --arch "$arch" --jobs "$(nproc)" --no-pack \
  >"$logdir/prepare.log" 2>&1 || { tail -n 40 "$logdir/prepare.log"; exit 1; }
echo "kit.sh: built the graders of chapters $chapters in $((SECONDS - start)) s"
kit/gpu/grade-gpu.sh "$dir" "$logdir"
