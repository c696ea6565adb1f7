#!/usr/bin/env bash
# Seventeenth session's device call (one-off; not in the repository).
set -u
OUT=$1
W=$(mktemp -d)
cp .peers/ygch/src/*.cu .peers/ygch/src/*.cpp .peers/ygch/src/*.h "$W/"
(cd "$W" && nvcc -gencode arch=compute_90,code=sm_90 -O3 -Xcompiler -fopenmp -D_USE_CONFIG2_ \
  n_queens_cuda.cu n_queens.cpp utils.cpp main.cpp -o ygch > build.log 2>&1; echo "ygch build rc=$?" > build.rc) &
BASE="target/release/nqueens-378e320 target/release/nqueens-d5f6d8d target/release/nqueens-mergeready" \
  bash scripts/gpu-session.sh ab "$OUT" > /dev/null 2>&1
# Whole verbose lines of a small run, this binary and the merging branch.
for b in target/release/nqueens target/release/nqueens-mergeready; do
  for n in 17 19; do
    echo "## $b n=$n"
    t0=$(date +%s.%N)
    NQUEENS_GPU_VERBOSE=1 "$b" count $n --backend gpu --check -q 2>&1
    t1=$(date +%s.%N)
    echo "wall $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}') s"
  done
done > "$OUT/verbose-small.txt" 2>&1
CAP22=110 bash scripts/gpu-session.sh targets "$OUT" > /dev/null 2>&1
wait
cat "$W/build.rc" "$W/build.log" > "$OUT/ygch.txt" 2>&1
if [ -x "$W/ygch" ]; then
  for n in 17 19 17 19 21; do
    t0=$(date +%s.%N); "$W/ygch" $n 6 | tail -1; t1=$(date +%s.%N)
    echo "ygch n=$n: $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}') s wall"
  done >> "$OUT/ygch.txt" 2>&1
fi
tail -c 6000 "$OUT/ab.txt"; tail -c 2500 "$OUT/targets.txt"; tail -8 "$OUT/ygch.txt"
