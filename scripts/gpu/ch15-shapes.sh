#!/usr/bin/env bash
# Chapter 15's pass shapes, for tuning: builds ch15_radix_sort once per shape
# (here, no GPU needed) and, on a GPU machine, times them.
#   scripts/gpu/ch15-shapes.sh build BUILD_DIR OUT_BIN_DIR SHAPE...
#   scripts/gpu/ch15-shapes.sh time  BIN_DIR OUT_DIR TAG
# SHAPE is THREADSxITEMSxMINBLOCKS for 4-byte keys, e.g. 512x16x2 (the
# chapter's for keys alone; 384x24x2 its pairs'), one shape for keys and
# pairs in each binary ch15_shape_THREADSxITEMSxMINBLOCKS; 8-byte keys take
# half the items. The build edits a copy of radix_sort.cu's PassShape
# and links it with BUILD_DIR's other objects (configure and build
# ch15_radix_sort there first). `time` runs every ch15_shape_* in BIN_DIR on
# uint32 keys and pairs at 2^20, 2^24, 2^28 and the few-digits input at
# 2^24, after BIN_DIR/ch15_radix_sort (the chapter's build) with CUB and the
# copy, run first so that CUB's rows are there if time runs out, into OUT_DIR/ch15-shapes-TAG.csv.
set -euo pipefail
mode=$1
if [ "$mode" = build ]; then
  build=$(realpath "$2"); out=$(realpath -m "$3"); shift 3
  mkdir -p "$out"
  here=$(cd "$(dirname "$0")/../.." && pwd)
  dir=$build/chapters/15_radix_sort
  obj=$dir/CMakeFiles/scan_ch15.dir
  flags=$(sed -n 's/^CUDA_FLAGS = //p' "$obj/flags.make")
  defines=$(sed -n 's/^CUDA_DEFINES = //p' "$obj/flags.make")
  work=$(mktemp -d)
  for shape in "$@"; do
    IFS=x read -r threads items blocks <<< "$shape"
    sed -e "s/kThreads = kPairs ? 384 : 512;/kThreads = $threads;/" \
        -e "s/kItemsOf4Bytes = kPairs ? 24 : 16;/kItemsOf4Bytes = $items;/" \
        -e "s/kMinBlocks = 2;/kMinBlocks = $blocks;/" \
        "$here/chapters/15_radix_sort/radix_sort.cu" > "$work/radix_sort_$shape.cu"
    grep -q "kThreads = $threads;" "$work/radix_sort_$shape.cu"  # the edit took
    (cd "$obj" && /usr/local/cuda/bin/nvcc $defines --options-file includes_CUDA.rsp -I"$here/chapters/15_radix_sort" \
        $flags -c "$work/radix_sort_$shape.cu" -o "$work/radix_sort_$shape.o")
    ar qc "$work/libscan_ch15_$shape.a" "$work/radix_sort_$shape.o" "$obj/sort_program.cu.o"
    link=$(cat "$dir/CMakeFiles/ch15_radix_sort.dir/link.txt")
    link=${link/libscan_ch15.a/$work/libscan_ch15_$shape.a}
    link=${link/..\/..\/bin\/ch15_radix_sort/$out/ch15_shape_$shape}
    (cd "$dir" && eval "$link")
    echo "built $out/ch15_shape_$shape"
  done
  rm -rf "$work"
  exit 0
fi
[ "$mode" = time ] || { echo "usage: ch15-shapes.sh build|time ..." >&2; exit 2; }
bin=$2; out=$3; tag=$4
mkdir -p "$out"
csv=$out/ch15-shapes-$tag.csv
first=1
run() {  # run PROGRAM SHAPE ARGS...: one CSV, a shape column in front, the header once
  local program=$1 shape=$2; shift 2
  "$program" --csv --quiet "$@" | awk -v shape="$shape" -v header=$first \
    '/^#/ { if (header == 1) print; next } /^program,/ { if (header == 1) print "shape," $0; next } { print shape "," $0 }' >> "$csv" ||
    echo "[$SECONDS s] $shape $* failed" >&2
  first=0
}
for n in 1M 16M 256M; do
  run "$bin/ch15_radix_sort" chapter --n $n
  run "$bin/ch15_radix_sort" chapter --n $n --pairs
done
echo "[$SECONDS s] chapter's build with CUB done"
for program in "$bin"/ch15_shape_*; do
  shape=${program##*ch15_shape_}
  for n in 1M 16M 256M; do
    run "$program" "$shape" --n $n --no-baselines
    run "$program" "$shape" --n $n --pairs --no-baselines
  done
  run "$program" "$shape" --n 16M --dist few --no-baselines
  run "$program" "$shape" --n 16M --dist few --pairs --no-baselines
  echo "[$SECONDS s] $shape done"
done
