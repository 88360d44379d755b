#!/usr/bin/env bash
# Makes a student folder for one chapter of the tutorial: the handout (the
# chapter's text without the code the student writes), the starter source
# (each marked region replaced by a stub and a TODO), the build files, the
# grader, and the reference solution as a compiled program of its own
# (never as source, never as a library the student's code could call).
#
#   kit/assignment.sh NN DIR [--arch 90] [--jobs N]
#   kit/assignment.sh --list
#
# Then, in DIR: ./grade. --arch names the GPU architecture the reference is
# compiled for (the class's GPUs; default 90, the H100). Instructors: see
# kit/README.md. Exit codes: 0 done, 1 the build failed, 2 usage.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
kit="$root/kit/kit.py"
usage() { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

if [ "${1:-}" = "--list" ]; then exec python3 "$kit" list; fi
[ $# -ge 2 ] || usage
chapter="$1"; dir="$2"; shift 2
arch=90
jobs="$(nproc 2>/dev/null || echo 2)"
while [ $# -gt 0 ]; do
  case "$1" in
    --arch) arch="${2:?--arch needs a value}"; shift 2 ;;
    --jobs) jobs="${2:?--jobs needs a value}"; shift 2 ;;
    *) echo "assignment.sh: unknown option '$1'" >&2; usage ;;
  esac
done
case "$chapter" in [0-9][0-9]) ;; *) echo "assignment.sh: the chapter is two digits, e.g. 05" >&2; exit 2 ;; esac

python3 "$kit" starter "$chapter" "$dir" --arch "$arch" || exit 2

# The reference program: the grader built on the chapter's own sources (the
# regions filled with the solution) by the folder's own CMake.
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
python3 "$kit" fill "$chapter" reference "$scratch/fills/reference"
echo "assignment.sh: compiling the reference solution for sm_$arch (a minute or two)..." >&2
if ! { cmake -S "$dir" -B "$scratch/build" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CUDA_ARCHITECTURES=$arch-real" \
         -DKIT_FILLS=reference "-DKIT_FILLS_DIR=$scratch/fills" >"$scratch/log" 2>&1 &&
       cmake --build "$scratch/build" --target grade_reference -j "$jobs" >>"$scratch/log" 2>&1; }; then
  cat "$scratch/log" >&2
  echo "assignment.sh: the reference did not build" >&2
  exit 1
fi
cp "$scratch/build/bin/grade_reference" "$dir/reference/grade-reference"
strip --strip-debug "$dir/reference/grade-reference" 2>/dev/null || true
cat >"$dir/reference/README.md" <<TEXT
grade-reference is the reference solution of chapter $chapter inside the grader,
compiled for sm_$arch. ./grade times your code against it, in turns, in the
same run. It is a program, not source or a library: your code cannot call it.
It runs on sm_$arch only.
TEXT
echo "assignment.sh: wrote $dir (the handout is $dir/README.md; grade with $dir/grade)"
