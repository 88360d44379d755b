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
# CCCL's CMake files find the headers relative to where they lie: put them
# beside the toolkit's own libraries.
toolkit=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")
cp -rn .deps/cccl/* "$toolkit"/targets/x86_64-linux/lib/cmake/ 2>/dev/null || {
  mkdir -p "$toolkit"/targets/x86_64-linux/lib/cmake && cp -rn .deps/cccl/* "$toolkit"/targets/x86_64-linux/lib/cmake/; }
cmake -S . -B "build/$name" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CUDA_ARCHITECTURES=$arch" -DSCAN_BUILD_DOCS=OFF \
      "-DCMAKE_PREFIX_PATH=$PWD/.deps/usr" > "build/$name.configure.log" 2>&1 || { cat "build/$name.configure.log"; exit 1; }
grep "CUDA architectures" "build/$name.configure.log"
cmake --build "build/$name" -j "$(nproc)" --target "${targets[@]}" > "build/$name.build.log" 2>&1 ||
  { tail -n 40 "build/$name.build.log"; exit 1; }
echo "build/$name: $(ls "build/$name/bin" | wc -l) programs"
