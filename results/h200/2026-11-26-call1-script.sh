#!/usr/bin/env bash
# One lease, parts in order of worth, each command capped by the time left (BUDGET seconds in all).
set -u
B=target/release/nqueens
O=${OUT:-/tmp/out}; mkdir -p "$O"
start=$(date +%s); deadline=$((start + ${BUDGET:-560}))
left() { echo $((deadline - $(date +%s))); }
T21=0
t() { # cap command...
  local cap=$1; shift; local l; l=$(left)
  if [ "$l" -lt 4 ]; then echo "SKIP (no time left) $*"; echo; return 99; fi
  [ "$cap" -gt "$l" ] && cap=$l
  echo "\$ $* (cap ${cap}s)"
  local t0 t1 rc; t0=$(date +%s.%N); timeout "$cap" "$@"; rc=$?; t1=$(date +%s.%N)
  LAST=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}')
  echo "wall $LAST s, exit $rc"; echo; return $rc
}
W=$(mktemp -d)
( cp .peers/ygch/src/*.cu .peers/ygch/src/*.cpp .peers/ygch/src/*.h "$W/" && cd "$W" && \
  nvcc -gencode arch=compute_90,code=sm_90 -O3 -Xcompiler -fopenmp -D_USE_CONFIG2_ \
   n_queens_cuda.cu n_queens.cpp utils.cpp main.cpp -o ygch ) > "$W/build.log" 2>&1 &
YB=$!
check() {
  date -u +%FT%TZ; hostname; nvidia-smi -L
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv
  lscpu | grep -E 'Model name|Thread|Core|Socket|MHz|NUMA' || true
  "$B" --version
  t 90 env NQUEENS_GPU_VERBOSE=1 "$B" count 12 --backend gpu --check -f json
  t 90 "$B" count 4..17 --backend gpu --check -q
  t 60 "$B" count 18 --backend gpu --gpus 0,0 --check -f json
  local j; j=$(mktemp -d)
  t 40 "$B" count 17 --backend gpu --shard 0/2 --checkpoint "$j/gpu.journal" -q
  t 40 "$B" count 17 --shard 1/2 --checkpoint "$j/cpu.journal" -q
  t 20 "$B" merge "$j/gpu.journal" "$j/cpu.journal"
}
small() {
  wait $YB; echo "ygch build: exit $?"; tail -3 "$W/build.log"
  local c; c=$(mktemp -d)
  for round in cold warm; do for n in 12 17 18 19; do
    echo "# $round cache"; t 60 env NQUEENS_CACHE_DIR=$c "$B" count $n --backend gpu --check -q
  done; done
  for n in 12 17 18; do t 30 "$B" count $n --check -q; done
  for n in 17 19; do t 60 env NQUEENS_CACHE_DIR=$c NQUEENS_GPU_VERBOSE=1 "$B" count $n --backend gpu -f json; done
}
peers() {
  for n in 17 19 20 21; do
    echo "## n=$n"
    [ -x "$W/ygch" ] && t 60 "$W/ygch" $n 6
    t 120 "$B" count $n --backend gpu --check
    [ $n = 21 ] && echo "$LAST" > "$W/t21"
  done
}
variants() {
  for u in 4u 2u 1u; do t 60 env NQUEENS_GPU_DEFINES="NQ_UNROLL=$u" "$B" count 20 --backend gpu --check -q; done
  t 60 env NQUEENS_GPU_DEFINES="NQ_LOAD_EVERY_TURN" "$B" count 20 --backend gpu --check -q
  for th in 64 256; do t 60 env NQUEENS_GPU_THREADS=$th "$B" count 20 --backend gpu --check -q; done
}
bench() { t 90 "$B" bench --backend gpu --n 19 --runs 3 --export-json "$O/bench-gpu-n19.json"; }
n22() {
  T21=$(cat "$W/t21" 2>/dev/null || echo 0); local want; want=$(awk -v t="$T21" 'BEGIN{printf "%d", t*8.5+15}')
  echo "n21 took $T21 s; n22 predicted about $want s; $(left) s left"
  if [ "$T21" != 0 ] && [ "$want" -lt $(( $(left) - 60 )) ]; then t 500 "$B" count 22 --backend gpu --check -f json
  else echo "n22 skipped for the cpu part; run it alone"; fi
}
cpu() {
  lscpu -e=CPU,CORE,SOCKET,MAXMHZ 2>/dev/null | head -20
  t 45 taskset -c 2 "$B" count 18 -t 1 -q
  for _ in 1 2 3; do t 15 "$B" count 18 -t 16 -q; done
  t 15 "$B" count 18 -t 16 --progress-every 1h -o /dev/null
  t 15 "$B" count 18 -t 16 --progress-every 0 -o /dev/null
  t 15 "$B" count 18 -t 16 --split-depth 2 -q
  t 30 "$B" estimate 18 -t 16
  t 45 taskset -c 2 "$B" count 18 -t 1 --kernel avx2 -q
  t 15 "$B" count 18 -t 16 --kernel avx2 -q
}
for p in check small peers variants bench n22 cpu; do
  echo "######## $p ($(left) s left)"; $p 2>&1 | tee "$O/$p.txt"
done
