#!/usr/bin/env bash
# Makes a student folder for one chapter of the tutorial: the handout (the
# chapter's text without the code the student writes), the starter source
# (each marked region replaced by a stub and a TODO), the build files, the
# grader, and the reference solution as a compiled library (never as source).
#
#   scripts/assignment.sh NN DIR [--arch 90] [--jobs N]
#   scripts/assignment.sh --list
#
# Then, in DIR: ./grade. --arch names the GPU architecture the reference is
# compiled for (the class's GPUs; default 90, the H100). Instructors: see
# docs/instructors/kit.md. Exit codes: 0 done, 1 the build failed, 2 usage.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
kit="$root/scripts/kit/kit.py"
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

# The reference library: the chapter's own sources (the regions filled with
# the solution), compiled by the folder's own CMake with the chapter's
# namespace renamed, so that it links next to the student's.
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
python3 "$kit" fill "$chapter" reference "$scratch/reference"
echo "assignment.sh: compiling the reference solution for sm_$arch (a minute or two)..." >&2
if ! { cmake -S "$dir" -B "$scratch/build" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CUDA_ARCHITECTURES=$arch-real" \
         "-DKIT_REFERENCE_SOURCES=$scratch/reference" >"$scratch/log" 2>&1 &&
       cmake --build "$scratch/build" --target kit_reference -j "$jobs" >>"$scratch/log" 2>&1; }; then
  cat "$scratch/log" >&2
  echo "assignment.sh: the reference did not build" >&2
  exit 1
fi
cp "$scratch/build/libkit_reference.a" "$dir/reference/libkit_reference.a"
strip --strip-debug "$dir/reference/libkit_reference.a" 2>/dev/null || true
cat >"$dir/reference/README.md" <<TEXT
libkit_reference.a is the reference solution of chapter $chapter, compiled for
sm_$arch (namespace scan::ch${chapter}_reference). The grader times your code
against it in the same run. It is not source, and it runs on sm_$arch only.
TEXT
echo "assignment.sh: wrote $dir (the handout is $dir/README.md; grade with $dir/grade)"
