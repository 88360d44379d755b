#!/usr/bin/env bash
# Sets up, builds and runs the tour: every chapter's program at its default
# size, each printing its table. Without a usable GPU the GPU chapters say so
# and the tour goes on.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}"
cmake --preset tour >/dev/null
cmake --build --preset tour

bin=build/tour/bin
status=0
for program in $(ls "$bin" | grep -E '^ch[0-9]{2}_' | grep -v '^ch00_' | sort); do
  printf '\n==== %s ====\n' "$program"
  set +e
  "$bin/$program"
  code=$?
  set -e
  case $code in
    0) ;;
    3) echo "($program needs a usable CUDA GPU; going on)" ;;
    *) echo "($program exited with $code)"; status=1 ;;
  esac
done
if [ -x "$bin/ch00_scoreboard" ]; then
  printf '\n==== the scoreboard ====\n'
  set +e
  "$bin/ch00_scoreboard" --tour
  code=$?
  set -e
  [ $code -eq 0 ] || [ $code -eq 3 ] || status=1
fi
exit $status
