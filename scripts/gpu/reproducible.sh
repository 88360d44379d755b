#!/usr/bin/env bash
# The stress and bitwise runs of the recipes issue 30 changed, on a GPU
# machine (the full set is scripts/gpu/checks.sh's stress part):
#  - chapter 11's deterministic, float and double, compared bit for bit with
#    its first run (--identical): 20 runs at 2^28 and 200 on two streams at
#    2^24 + 3 (its rings), 200 on two streams at 2^23 + 3 (float: overlapped's
#    ring, on the H100 too), at 2^22 + 3 (float: the grouped walk per tile
#    launched early; double: its ring) and at 2^20 + 3 (the grouped walk per
#    tile);
#  - deterministic and fastest, int32, 1000 verified runs at 2^24 + 3,
#    2^23 + 3 and 2^20 + 3, exclusive on two streams at 2^22 + 1;
#  - chapter 12's bulk (its new default shape) over random segments of mean
#    length 1, 256 and one segment, 1000 verified runs at 2^24 + 3.
# Logs go to OUT/reproducible.log; one line per run is printed.
#   scripts/gpu/reproducible.sh BIN_DIR OUT_DIR
set -uo pipefail
bin=$1
out=$2
mkdir -p "$out"
log="$out/reproducible.log"
: > "$log"
failures=0
stress() {  # stress ARGS...: one scan_stress run, its last line printed
  local line
  timeout 300 "$bin/scan_stress" "$@" >> "$log" 2>&1
  local code=$?
  line=$(grep '^scan_stress' "$log" | tail -n 1)
  printf '%s  (exit %d: %s)\n' "$line" "$code" "$*"
  [ $code -eq 0 ] || failures=$((failures + 1))
}
for type in float double; do
  stress --chapter 11 --variant deterministic --type "$type" --identical --n 256M --runs 20
  stress --chapter 11 --variant deterministic --type "$type" --identical --n 16777219 --runs 200 --streams 2
  [ "$type" = float ] && stress --chapter 11 --variant deterministic --type float --identical --n 8388611 --runs 200 --streams 2
  stress --chapter 11 --variant deterministic --type "$type" --identical --n 4194307 --runs 200 --streams 2
  stress --chapter 11 --variant deterministic --type "$type" --identical --n 1048579 --runs 200 --streams 2
done
for variant in deterministic fastest; do
  stress --chapter 11 --variant "$variant" --n 16777219 --runs 1000
  stress --chapter 11 --variant "$variant" --n 8388611 --runs 1000
  stress --chapter 11 --variant "$variant" --n 1048579 --runs 1000
  stress --chapter 11 --variant "$variant" --n 4194305 --runs 200 --streams 2 --kind exclusive
done
for segments in 1 256 1G; do
  stress --chapter 12 --variant bulk --segments "$segments" --n 16777219 --runs 1000
done
echo "reproducible.sh: $failures failing run(s)"
[ $failures -eq 0 ]
