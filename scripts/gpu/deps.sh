#!/usr/bin/env bash
# Gathers, from this machine's Debian packages and CUDA toolkit, what the GPU
# machine lacks to build the project there: Catch2 3 (static), CLI11,
# nlohmann-json and CCCL's CMake configuration files, into .deps/ (ignored
# by git; carry it, then run scripts/gpu/build.sh there).
set -euo pipefail
cd "$(dirname "$0")/../.."
rm -rf .deps
mkdir -p .deps/usr/include .deps/usr/lib/cmake .deps/usr/share/cmake .deps/cccl
cp -r /usr/include/catch2 /usr/include/CLI /usr/include/nlohmann .deps/usr/include/
cp /usr/lib/libCatch2.a /usr/lib/libCatch2Main.a .deps/usr/lib/
cp -r /usr/lib/cmake/Catch2 .deps/usr/lib/cmake/
cp -r /usr/share/cmake/CLI11 /usr/share/cmake/nlohmann_json .deps/usr/share/cmake/
toolkit=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")")
cp -r "$toolkit"/targets/x86_64-linux/lib/cmake/* .deps/cccl/
grep -qx '/.deps/' .git/info/exclude 2>/dev/null || echo '/.deps/' >> .git/info/exclude
du -sh .deps
