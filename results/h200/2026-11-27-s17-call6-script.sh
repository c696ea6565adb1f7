#!/usr/bin/env bash
# Seventeenth session's sixth device call (one-off): NQ_PREFETCH (the next task taken and loaded as a thread
# begins one) against the default, interleaved, kernels' time and wall. Writes as it goes.
set -u
OUT=$1
N=target/release/nqueens-s17d
run() { # LABEL N [ENV...]
  local label=$1 n=$2; shift 2
  local t0 t1
  t0=$(date +%s.%N)
  env "$@" NQUEENS_GPU_VERBOSE=1 timeout 40 $N count $n --backend gpu --check -q > "$OUT/run.log" 2>&1
  t1=$(date +%s.%N)
  { echo "## $label n=$n"; cat "$OUT/run.log"; } >> "$OUT/verbose.txt"
  echo "$label n=$n: wall $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}') s; kernels $(grep -o '[0-9.]* s of kernels' "$OUT/run.log"); $(grep -E "^ +$n " "$OUT/run.log" | awk '{print $4, "s,", $9, $10}')" >> "$OUT/summary.txt"
}
# First runs compile each kernel (16 turns at n = 19 to 21, 8 at n = 17) into the cache.
run warm-base 19
run warm-prefetch 19 NQUEENS_GPU_DEFINES=NQ_PREFETCH
run warm-base 17
run warm-prefetch 17 NQUEENS_GPU_DEFINES=NQ_PREFETCH
for i in 1 2 3; do
  run base 19
  run prefetch 19 NQUEENS_GPU_DEFINES=NQ_PREFETCH
done
for i in 1 2; do
  run base 17
  run prefetch 17 NQUEENS_GPU_DEFINES=NQ_PREFETCH
done
run base 20
run prefetch 20 NQUEENS_GPU_DEFINES=NQ_PREFETCH
run prefetch 21 NQUEENS_GPU_DEFINES=NQ_PREFETCH
run base 21
rm -f "$OUT/run.log"
cat "$OUT/summary.txt"
