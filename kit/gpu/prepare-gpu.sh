#!/usr/bin/env bash
# Builds, here (no GPU needed), every grader the GPU check of the classroom
# kit runs, and packs them for a GPU machine:
#
#   kit/gpu/prepare-gpu.sh OUTDIR [--chapters "02 03 04 05 06 07 08 09 10 12 13 15"] [--arch 90] [--jobs N]
#                          [--no-pack]
#
# For each chapter: a student folder made by kit.py with every fill (the
# stub, the reference, each planted solution of kit/bugs/NN: the wrong ones
# and the right-but-slow ones), and a grader built on each; grade_reference
# is also the reference program the others are timed against. Each grader
# stripped. Writes
# OUTDIR/kit/ (graders, manifest.txt, grade-gpu.sh) and OUTDIR/kit.tar.xz
# (not with --no-pack: built on the GPU machine itself).
# On the GPU machine: kit/gpu/grade-gpu.sh KITDIR LOGDIR (KITDIR holds
# kit.tar.xz or its unpacked kit/). Exit codes: 0 done, 1 a build failed, 2 usage.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
kit="$root/kit/kit.py"
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2; exit 2; }  # the header above
[ $# -ge 1 ] || usage
out="$1"; shift
chapters="02 03 04 05 06 07 08 09 10 12 13 15"  # every GPU starter with planted bugs
arch=90
jobs="$(nproc 2>/dev/null || echo 2)"
pack=1
while [ $# -gt 0 ]; do
  case "$1" in
    --chapters) chapters="${2:?}"; shift 2 ;;
    --arch) arch="${2:?}"; shift 2 ;;
    --jobs) jobs="${2:?}"; shift 2 ;;
    --no-pack) pack=0; shift ;;
    *) usage ;;
  esac
done
mkdir -p "$out"
out="$(cd "$out" && pwd)"
rm -rf "$out/src" "$out/kit" "$out/kit.tar.xz"
mkdir -p "$out/src" "$out/build" "$out/kit"
manifest="$out/kit/manifest.txt"
{
  echo "# chapter fill expect [variants...]   (made by prepare-gpu.sh, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown))"
} >"$manifest"

for ch in $chapters; do
  src="$out/src/$ch"
  echo "prepare-gpu: chapter $ch" >&2
  python3 "$kit" starter "$ch" "$src" --fills all --arch "$arch"
  fills="stub;reference"
  targets="grade_stub grade_reference"
  python3 "$kit" fill "$ch" stub "$src/fills/stub"
  while read -r bug _expect _variants; do
    [ -n "$bug" ] || continue
    fills="$fills;$bug"
    targets="$targets grade_$bug"
  done < <(python3 "$kit" bugs "$ch")
  cmake -S "$src" -B "$out/build/$ch" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CUDA_ARCHITECTURES=$arch-real" \
        "-DKIT_FILLS=$fills" >"$out/build/$ch.log" 2>&1 ||
    { cat "$out/build/$ch.log" >&2; exit 1; }
  # shellcheck disable=SC2086
  cmake --build "$out/build/$ch" -j "$jobs" --target $targets >>"$out/build/$ch.log" 2>&1 ||
    { tail -n 60 "$out/build/$ch.log" >&2; echo "prepare-gpu: chapter $ch did not build" >&2; exit 1; }
  mkdir -p "$out/kit/$ch"
  for t in $targets; do
    cp "$out/build/$ch/bin/$t" "$out/kit/$ch/$t"
    strip "$out/kit/$ch/$t"
  done
  echo "$ch stub zero" >>"$manifest"
  echo "$ch reference full" >>"$manifest"
  python3 "$kit" bugs "$ch" | sed "s/^/$ch /" >>"$manifest"  # chapter, bug, zero or slow, variants
done
cp "$root/kit/gpu/grade-gpu.sh" "$out/kit/grade-gpu.sh"
if [ "$pack" = 0 ]; then
  echo "prepare-gpu: $(du -sh "$out/kit" | cut -f1) of graders in $out/kit" >&2
  exit 0
fi
(cd "$out" && tar -cf - kit | xz -9e -T1 >kit.tar.xz)
echo "prepare-gpu: $(du -sh "$out/kit" | cut -f1) of graders, packed: $(stat -c %s "$out/kit.tar.xz") bytes in $out/kit.tar.xz" >&2
