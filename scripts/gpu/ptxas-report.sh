#!/usr/bin/env bash
# The compiler's resource report (registers, spills, shared memory) for the
# kernels of one source file, from the build's compile_commands.json:
#   scripts/gpu/ptxas-report.sh chapters/07_coarsening/coarsening.cu [BUILD_DIR] [FILTER]
# No GPU needed. FILTER is a grep pattern on the kernel's mangled name. A
# build for several architectures reports each kernel once per architecture.
set -euo pipefail
source_file=$(realpath "$1")
build=${2:-build/ci}
filter=${3:-.}
command=$(python3 - "$build/compile_commands.json" "$source_file" <<'PY'
import json, sys
for entry in json.load(open(sys.argv[1])):
    if entry["file"] == sys.argv[2]:
        print(entry["command"]); break
PY
)
[ -n "$command" ] || { echo "ptxas-report.sh: $1 is not in $build/compile_commands.json" >&2; exit 2; }
directory=$(python3 -c "import json,sys; print(next(e['directory'] for e in json.load(open(sys.argv[1])) if e['file']==sys.argv[2]))" "$build/compile_commands.json" "$source_file")
report=$(cd "$directory" && eval "${command/ -c / -Xptxas=-v -c } -o /tmp/ptxas-report.o" 2>&1)
printf '%s\n' "$report" | grep -E "Compiling entry|Used|spill" | paste - - - | grep -E "$filter" |
  sed -E "s/ptxas info +: Compiling entry function '([^']*)' for '(sm_[0-9a-z]+)'/\1 (\2):/; s/ptxas info +: //g; s/\t/ /g"
