#!/usr/bin/env bash
# Regenerates the tables (scripts/docs/results.py) and the two plots of the
# Results page from docs/results/*.csv, with gnuplot (scripts/install-deps.sh
# installs gnuplot-nox).
#   scripts/docs/plots.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 scripts/docs/results.py
cd docs/results
gnuplot plots.gp
echo "plots.sh: docs/results/throughput.svg and progression.svg"
