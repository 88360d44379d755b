#!/usr/bin/env bash
# Sets up, builds and runs the tour: every chapter's program at its default
# size, each printing its table. The build carries machine code for the T4
# (sm_75), the A100 (sm_80, which RTX 30 and 40 cards run as it is) and the
# H100 (sm_90), and PTX for newer GPUs (the `tour` preset). Without a usable GPU the GPU chapters say
# so and the tour goes on; on a GPU older than Hopper, chapters 11 to 14 say
# what they need and the tour goes on.
#
#   scripts/tour.sh               the `tour` preset: every GPU from sm_75 on
#   scripts/tour.sh tour-native   only the GPU in this machine (`native`:
#                                 one architecture instead of three; needs a GPU)
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-tour}
case $preset in
  tour|tour-native) ;;
  *) echo "usage: scripts/tour.sh [tour|tour-native]" >&2; exit 2 ;;
esac
scripts/install-deps.sh
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}"
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"

bin=build/$preset/bin
status=0
for program in $(ls "$bin" | grep -E '^ch[0-9]{2}_' | grep -v '^ch00_' | sort); do
  printf '\n==== %s ====\n' "$program"
  set +e
  "$bin/$program"
  code=$?
  set -e
  case $code in
    0) ;;
    3) echo "($program cannot run on this machine: its reason is above; going on)" ;;
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
