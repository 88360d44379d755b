#!/usr/bin/env bash
# On the GPU machine: builds every grader of the classroom kit's GPU check
# (kit/gpu/prepare-gpu.sh, with the dependencies carried in .deps/) into
# build/kit-gpu, unpacked, for kit/gpu/grade-gpu.sh build/kit-gpu LOGDIR.
#   scripts/gpu/kit.sh [ARCH] [prepare-gpu.sh options...]
set -euo pipefail
cd "$(dirname "$0")/../.."
arch=${1:-90}
shift || true
prefix=$(scripts/gpu/cccl.sh)
export CMAKE_PREFIX_PATH="$PWD/.deps/usr" CCCL_ROOT="$prefix"
kit/gpu/prepare-gpu.sh build/kit-gpu --arch "$arch" --jobs "$(nproc)" --no-pack "$@"
