#!/usr/bin/env bash
# On the GPU machine: builds the test program, the stress program and every
# chapter's program into build/NAME for CUDA architectures ARCH, with the
# dependencies carried in .deps/ (scripts/gpu/deps.sh gathers them here).
#   scripts/gpu/build.sh NAME ARCH [TARGET ...]
set -euo pipefail
cd "$(dirname "$0")/../.."
name=$1
arch=$2
shift 2
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(scan_tests ch00_scoreboard)
# CCCL's CMake files find the headers relative to where they lie
# (PREFIX/lib/cmake/NAME finds PREFIX/include/cccl): put them there.
toolkit=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")
header=$(find -L "$toolkit" -path '*/include/cccl/cub/cub.cuh' -print -quit)
[ -n "$header" ] || { echo "build.sh: no include/cccl/cub/cub.cuh under $toolkit" >&2; exit 1; }
prefix=${header%/include/cccl/cub/cub.cuh}
mkdir -p "$prefix/lib/cmake"
cp -rn .deps/cccl/* "$prefix/lib/cmake/"
mkdir -p build
cmake -S . -B "build/$name" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CUDA_ARCHITECTURES=$arch" -DSCAN_BUILD_DOCS=OFF \
      "-DCMAKE_PREFIX_PATH=$PWD/.deps/usr" "-DCCCL_DIR=$prefix/lib/cmake/cccl" > "build/$name.configure.log" 2>&1 || { cat "build/$name.configure.log"; exit 1; }
grep "CUDA architectures" "build/$name.configure.log"
cmake --build "build/$name" -j "$(nproc)" --target "${targets[@]}" > "build/$name.build.log" 2>&1 ||
  { tail -n 40 "build/$name.build.log"; exit 1; }
echo "build/$name: $(ls "build/$name/bin" | wc -l) programs"
