#!/usr/bin/env bash
# On the GPU machine: puts CCCL's CMake files (carried in .deps/cccl by
# scripts/gpu/deps.sh) where they find CCCL's headers, under the toolkit, and
# prints that prefix (for CCCL_DIR=PREFIX/lib/cmake/cccl or CCCL_ROOT=PREFIX).
set -euo pipefail
cd "$(dirname "$0")/../.."
# CCCL's CMake files find the headers relative to where they lie
# (PREFIX/lib/cmake/NAME finds PREFIX/include/cccl): put them there.
toolkit=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")
header=$(find -L "$toolkit" -path '*/include/cccl/cub/cub.cuh' -print -quit)
[ -n "$header" ] || { echo "cccl.sh: no include/cccl/cub/cub.cuh under $toolkit" >&2; exit 1; }
prefix=${header%/include/cccl/cub/cub.cuh}
mkdir -p "$prefix/lib/cmake"
cp -rn .deps/cccl/* "$prefix/lib/cmake/"
echo "$prefix"
