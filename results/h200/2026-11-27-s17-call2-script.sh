#!/usr/bin/env bash
# Seventeenth session's second device call (one-off; not in the repository): sixteen turns on boards 19 to 24
# (nqueens-s17) against the session's start (nqueens-4509390), interleaved; per-batch kernel lines.
set -u
OUT=$1
N=target/release/nqueens-s17
H=target/release/nqueens-4509390
timed() {
  local t0 t1 rc
  t0=$(date +%s.%N); "$@"; rc=$?; t1=$(date +%s.%N)
  echo "wall $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}') s, exit $rc"
}
{
  nvidia-smi --query-gpu=name,driver_version,persistence_mode,clocks.sm,clocks.max.sm,clocks.applications.graphics --format=csv
  echo "# exactness: 8 turns to 18, 16 turns on 19 and 20, one GPU named twice"
  timed $N count 4..18 --backend gpu --check -q
  timed $N count 19..20 --backend gpu --check -q
  timed $N count 19 --backend gpu --gpus 0,0 --check -q
} > "$OUT/check.txt" 2>&1
for n in 19 19 19 20 20 21 21 22; do
  for b in $H $N; do
    if [ $n = 22 ] && [ $b = $H ]; then continue; fi
    echo "# $b n=$n"
    NQUEENS_GPU_VERBOSE=1 timed timeout 120 $b count $n --backend gpu --check -q > "$OUT/run.log" 2>&1
    grep -E "^gpu 0|^ +$n |^wall" "$OUT/run.log"
    if [ $b = $N ]; then { echo "## $b n=$n"; cat "$OUT/run.log"; } >> "$OUT/verbose-s17.txt"; fi
  done
done > "$OUT/ab.txt" 2>&1
echo "# $H n=22 (NQ_UNROLL=8u through the new binary is the same kernel)" >> "$OUT/ab.txt"
NQUEENS_GPU_DEFINES=NQ_UNROLL=8u NQUEENS_GPU_VERBOSE=1 timed timeout 120 $N count 22 --backend gpu --check -q \
  > "$OUT/run.log" 2>&1
grep -E "^gpu 0|^ +22 |^wall" "$OUT/run.log" >> "$OUT/ab.txt"
{ echo "## n=22 8u"; cat "$OUT/run.log"; } >> "$OUT/verbose-s17.txt"
rm -f "$OUT/run.log"
cat "$OUT/check.txt"; grep -E "^#|^wall|^ +[12][0-9] " "$OUT/ab.txt"
