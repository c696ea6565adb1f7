#!/usr/bin/env bash
# Seventeenth session's third device call (one-off): the GPU's clock through small runs; a warm-up kernel, eight
# batches in flight and a smaller first batch, each against the default, interleaved. Writes as it goes.
set -u
OUT=$1
N=target/release/nqueens-s17c
run() { # LABEL N [ENV...]: one verbose run, its lines kept
  local label=$1 n=$2; shift 2
  local t0 t1
  t0=$(date +%s.%N)
  env "$@" NQUEENS_GPU_VERBOSE=1 timeout 30 $N count $n --backend gpu --check -q > "$OUT/run.log" 2>&1
  t1=$(date +%s.%N)
  local wall
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}')
  { echo "## $label n=$n: wall $wall s (start $t0)"; cat "$OUT/run.log"; } >> "$OUT/verbose.txt"
  echo "$label n=$n: wall $wall s; $(grep -E "^ +$n " "$OUT/run.log" | awk '{print $4, "s,", $10}')"
}
nvidia-smi --query-gpu=timestamp,clocks.sm,utilization.gpu,power.draw --format=csv,noheader -lms 5 \
  > "$OUT/clocks.txt" 2>&1 &
smi=$!
sleep 0.5
{
  run base 19
  sleep 1
  run warm200 19 NQUEENS_GPU_WARM_UP_MS=200
  sleep 1
  run base 19
} >> "$OUT/summary.txt"
kill $smi
for i in 1 2; do
  run base 19
  run warm200 19 NQUEENS_GPU_WARM_UP_MS=200
  run streams8 19 NQUEENS_GPU_STREAMS=8
  run base 17
  run warm200 17 NQUEENS_GPU_WARM_UP_MS=200
  run first512k 17 NQUEENS_GPU_FIRST_BATCH_TASKS=524288
done >> "$OUT/summary.txt"
rm -f "$OUT/run.log"
cat "$OUT/summary.txt"
