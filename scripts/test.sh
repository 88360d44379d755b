#!/usr/bin/env bash
# Sets up, builds (warnings as errors, with the docs) and runs the tests.
# No GPU is needed: GPU tests are reported as skipped. This is what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}"
cmake --workflow --preset ci
