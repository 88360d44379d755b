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
prefix=$(scripts/gpu/cccl.sh)
mkdir -p build
cmake -S . -B "build/$name" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CUDA_ARCHITECTURES=$arch" -DSCAN_BUILD_DOCS=OFF \
      "-DCMAKE_PREFIX_PATH=$PWD/.deps/usr" "-DCCCL_DIR=$prefix/lib/cmake/cccl" > "build/$name.configure.log" 2>&1 || { cat "build/$name.configure.log"; exit 1; }
grep "CUDA architectures" "build/$name.configure.log"
cmake --build "build/$name" -j "$(nproc)" --target "${targets[@]}" > "build/$name.build.log" 2>&1 ||
  { tail -n 40 "build/$name.build.log"; exit 1; }
echo "build/$name: $(ls "build/$name/bin" | wc -l) programs"
