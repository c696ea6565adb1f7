#!/usr/bin/env bash
# The second call: the kernel that takes a lane's next task inside its search loop, and coarser units.
set -u
B=target/release/nqueens
O=${OUT:-/tmp/out}; mkdir -p "$O"
t() { local cap=$1; shift; echo "\$ $* (cap ${cap}s)"; local t0 t1; t0=$(date +%s.%N); timeout "$cap" "$@"; local rc=$?; t1=$(date +%s.%N); echo "wall $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}') s, exit $rc"; echo; }
{
date -u +%FT%TZ; nvidia-smi -L
t 30 "$B" count 4..17 --backend gpu --check -q
for n in 17 19; do
  t 20 env NQUEENS_GPU_VERBOSE=1 "$B" count $n --backend gpu --check -q
  t 20 env NQUEENS_GPU_VERBOSE=1 "$B" count $n --backend gpu --split-depth 2 --check -q
done
t 20 env NQUEENS_GPU_VERBOSE=1 "$B" count 20 --backend gpu --check -q
t 20 env NQUEENS_GPU_THREADS=64 "$B" count 20 --backend gpu --check -q
t 40 "$B" count 21 --backend gpu --check -q
t 110 "$B" count 22 --backend gpu --check -q
} 2>&1 | tee "$O/lease2.txt"
