#!/usr/bin/env bash
# The measurements that wait for the GPU machine (an H100 with 16 CPU cores), in parts that each fit in one
# call of ten minutes, so that a session with the machine spends its minutes measuring (results/gpu.md and
# results/scaling.md say what each figure is for). A developer tool, not part of CI.
#
#   bash scripts/gpu-session.sh PART OUT [BINARY]
#
# PART    check | small | variants | peers | n22 | bench | cpu | all (all but n22); or lease: the most telling of
#         them in one call, within BUDGET seconds (for a lease of 15 minutes)
# OUT     a folder for the logs and reports (the device's $OUT); each part writes OUT/PART.txt
# BINARY  nqueens built on the development machine with `cargo build --release --features cuda` (generic
#         x86-64: the loops are picked at run time) and carried over; target/release/nqueens by default.
#
# `peers` needs ygch/n_queens beside the checkout: copy ../shared/peers to .peers/ (git ignores it) and carry it.
# `cpu` also runs target/release/examples/scaling_cost and plan_depth if they were built and carried.
set -uo pipefail
part=${1:?"part: check | small | variants | peers | n22 | bench | cpu | all | lease"}
out=${2:?"a folder for the figures"}
B=${3:-target/release/nqueens}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
[ -x "$B" ] || { echo "no nqueens binary at $B" >&2; exit 2; }

# Runs a command, printing it and its wall time (seconds) after its output.
timed() {
  echo "\$ $*"
  local t0 t1
  t0=$(date +%s.%N)
  "$@"
  local rc=$?
  t1=$(date +%s.%N)
  echo "wall $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}') s, exit $rc"
  echo
}

check() {
  nvidia-smi -L
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv
  lscpu | grep -E 'Model name|Thread|Core|Socket|MHz' || true
  "$B" --version
  # Every board against the published counts, then one GPU named twice (two host threads, one GPU).
  timed "$B" count 4..17 --backend gpu --check -q
  timed "$B" count 18 --backend gpu --gpus 0,0 --check -f json
  # A GPU shard merged with a CPU shard must give the exact total (merge checks it against the published one).
  local j
  j=$(mktemp -d)
  timed "$B" count 17 --backend gpu --shard 0/2 --checkpoint "$j/gpu.journal" -q
  timed "$B" count 17 --shard 1/2 --checkpoint "$j/cpu.journal" -q
  timed "$B" merge "$j/gpu.journal" "$j/cpu.journal"
  rm -rf "$j"
}

small() {
  # The fixed cost: first runs compile the kernel, second runs read the cache; the CPU alone for comparison.
  local cache
  cache=$(mktemp -d)
  for round in cold warm; do
    for n in 12 17 18 19; do
      echo "# $round cache"
      NQUEENS_CACHE_DIR=$cache timed "$B" count $n --backend gpu --check -q
    done
  done
  for n in 12 17 18; do timed "$B" count $n --check -q; done
  # Where the time goes, phase by phase (results/gpu.md).
  for n in 17 19; do NQUEENS_CACHE_DIR=$cache NQUEENS_GPU_VERBOSE=1 timed "$B" count $n --backend gpu -f json; done
  rm -rf "$cache"
}

variants() {
  # Entries stored only when a child is pushed (26.75 SASS instructions a node, 8.4 shared-memory wavefronts
  # a turn rather than 13), and the stack's words in arrays of their own (25.0 and 9): results/gpu.md; against
  # the default, at n = 20 and 21.
  for n in 20 21; do
    timed "$B" count $n --backend gpu --check -q
    NQUEENS_GPU_DEFINES="NQ_SAVE_ON_PUSH" timed "$B" count $n --backend gpu --check -q
    NQUEENS_GPU_DEFINES="NQ_SOA" timed "$B" count $n --backend gpu --check -q
  done
  # Turns between tests for a task's end (19.9, 20.5, 22.5 and 25 SASS instructions a node), and threads per
  # block.
  for unroll in 8u 4u 2u 1u; do
    NQUEENS_GPU_DEFINES="NQ_UNROLL=$unroll" NQUEENS_GPU_VERBOSE=1 timed "$B" count 20 --backend gpu --check -f json
  done
  # One instruction fewer a turn, more shared memory moved (results/gpu.md, k4: 3.56 s against 3.21 s at n = 20).
  NQUEENS_GPU_DEFINES="NQ_LOAD_EVERY_TURN" NQUEENS_GPU_VERBOSE=1 timed "$B" count 20 --backend gpu --check -f json
  for threads in 64 256; do
    NQUEENS_GPU_THREADS=$threads NQUEENS_GPU_VERBOSE=1 timed "$B" count 20 --backend gpu --check -f json
  done
}

peers() {
  [ -f "$root/.peers/gpu-side-by-side.sh" ] || { echo "copy ../shared/peers to .peers/ and carry it"; return 1; }
  for n in 20 21; do timed bash "$root/.peers/gpu-side-by-side.sh" $n "$B"; done
}

n22() {
  # The target is 85 s (ygch: 256 s on this card); a timeout leaves the figure as "more than".
  timed timeout 560 "$B" count 22 --backend gpu --check -f json
}

bench() {
  timed "$B" bench --backend gpu --n 19 --runs 3 --export-json "$out/bench-gpu-n19.json" \
    --export-markdown "$out/bench-gpu-n19.md"
}

cpu() {
  # Issue 20's target: the whole 16-thread command at least 12 times a pinned core (results/scaling.md).
  # Cores or hardware threads: 16 threads on 8 cores cannot make 12 times.
  lscpu | grep -E 'Model name|Thread|Core|Socket|MHz|NUMA' || true
  lscpu -e=CPU,CORE,SOCKET,MAXMHZ 2> /dev/null || true
  local perf=(perf stat -e task-clock,cycles)
  command -v perf > /dev/null || perf=()
  timed "${perf[@]}" taskset -c 2 "$B" count 18 -t 1 -q
  timed "${perf[@]}" taskset -c 2 "$B" count 18 -t 1 -q
  for _ in 1 2 3; do timed "${perf[@]}" "$B" count 18 -t 16 -q; done
  timed "${perf[@]}" "$B" count 18 -t 16 --split-depth 2 -q
  # The progress lines' tally, kept where stderr is not a terminal (here), against none.
  for _ in 1 2; do
    timed "${perf[@]}" "$B" count 18 -t 16 --progress-every 1h -o /dev/null
    timed "${perf[@]}" "$B" count 18 -t 16 --progress-every 0 -o /dev/null
  done
  # A busy core's clock may drop under AVX-512 more than under AVX2: cycles over task-clock say so.
  timed "${perf[@]}" taskset -c 2 "$B" count 18 -t 1 --kernel avx2 -q
  timed "${perf[@]}" "$B" count 18 -t 16 --kernel avx2 -q
  local examples=target/release/examples
  [ -x $examples/scaling_cost ] && timed $examples/scaling_cost 18 1 16
  [ -x $examples/plan_depth ] && timed $examples/plan_depth 18 3 5
  timed "$B" bench --export-json "$out/bench-cpu-n18.json" --export-markdown "$out/bench-cpu-n18.md"
}

# The whole of a short lease (15 minutes of device time, a few of them spent starting the machine) in one call,
# most telling first, every command capped by the time left of BUDGET seconds (540 by default): run it as
# `BUDGET=360 bash scripts/gpu-session.sh lease "$OUT"` with a call limit a little above BUDGET.
#
# What it decides (the eleventh session): the stack's layout. The words in arrays of their own (NQ_SOA, the
# default since that session: 25.0 SASS instructions a node, 9 wavefronts of shared memory a turn) against one
# exchange for a push and a pop (NQ_EXCH: 30.1 and 5) and the 16-byte entries before (NQ_AOS: 19.9 and 13);
# n = 22 then runs with the faster of the first two at n = 21.
lease() {
  local deadline=$(($(date +%s) + ${BUDGET:-540}))
  capped() { # CAP COMMAND...: runs it for at most CAP seconds and what is left, timed; its wall in $wall
    local left=$((deadline - $(date +%s))) cap=$1
    shift
    if [ "$left" -lt 5 ]; then echo "skipped, no time left: $*"; wall=999999; return 99; fi
    [ "$cap" -gt "$left" ] && cap=$left
    local t0 t1
    t0=$(date +%s.%N)
    timed timeout "$cap" "$@"
    local rc=$?
    t1=$(date +%s.%N)
    wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}')
    [ $rc -eq 0 ] || wall=999999
    return $rc
  }
  # Each line says which kernel ran: `timed` prints only the command.
  variant() { # DEFINES CAP COMMAND...
    local d=$1
    shift
    echo "# kernel: ${d:-default (NQ_SOA)}"
    NQUEENS_GPU_DEFINES="$d" capped "$@"
  }
  local ygch= wall=0
  if [ -d "$root/.peers/ygch/src" ] && command -v nvcc > /dev/null; then
    ygch=$(mktemp -d)
    cp "$root"/.peers/ygch/src/*.cu "$root"/.peers/ygch/src/*.cpp "$root"/.peers/ygch/src/*.h "$ygch/"
    (cd "$ygch" && nvcc -gencode arch=compute_90,code=sm_90 -O3 -Xcompiler -fopenmp -D_USE_CONFIG2_ \
      n_queens_cuda.cu n_queens.cpp utils.cpp main.cpp -o ygch > build.log 2>&1) &
  fi
  nvidia-smi -L
  "$B" --version
  # Exact first: every board to 17 with each kernel, one GPU named twice, the widest lines against the CPU.
  local d
  for d in "" NQ_EXCH; do variant "$d" 30 "$B" count 4..17 --backend gpu --check -q; done
  variant NQ_EXCH 60 "$B" count 18 --backend gpu --gpus 0,0 --check -q
  variant NQ_EXCH 60 "$B" count 25x9 26x9 27x8 28x8 --backend gpu -f csv -o "$out/wide-exch.csv"
  capped 60 "$B" count 25x9 26x9 27x8 28x8 -f csv -o "$out/wide-cpu.csv"
  if cmp <(cut -d, -f1,2 "$out/wide-exch.csv") <(cut -d, -f1,2 "$out/wide-cpu.csv"); then
    echo "wide lines: NQ_EXCH's totals are the CPU's"
  else
    echo "WIDE LINES: NQ_EXCH'S TOTALS DIFFER FROM THE CPU'S"
  fi
  # The decision: n = 21 twice with each of the two, once with the 16-byte entries; n = 20 once each.
  local soa=0 exch=0
  for _ in 1 2; do
    variant "" 60 "$B" count 21 --backend gpu --check -q
    soa=$(awk -v a="$soa" -v b="$wall" 'BEGIN{print a + b}')
    variant NQ_EXCH 60 "$B" count 21 --backend gpu --check -q
    exch=$(awk -v a="$exch" -v b="$wall" 'BEGIN{print a + b}')
  done
  variant NQ_AOS 60 "$B" count 21 --backend gpu --check -q
  for d in "" NQ_EXCH NQ_AOS; do variant "$d" 30 "$B" count 20 --backend gpu --check -q; done
  echo "n = 21, two runs each: NQ_SOA $soa s, NQ_EXCH $exch s"
  # What bounds each (Nsight Compute, if at hand): shared memory's wavefronts, instructions, the pipes' load
  # and the warps' stalls, on one batch of n = 19.
  local ncu
  ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2> /dev/null | head -1)
  if [ -n "$ncu" ]; then
    for d in "" NQ_EXCH; do
      variant "$d" 40 "$ncu" --kernel-name count_tasks --launch-skip 2 --launch-count 1 \
        --section SpeedOfLight --section WarpStateStats --section ComputeWorkloadAnalysis \
        --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed.sum,sm__cycles_active.avg,smsp__thread_inst_executed_per_inst_executed.ratio,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum \
        "$B" count 19 --backend gpu -q
    done
  else
    echo "no Nsight Compute (ncu): the kernels' bounds stay a model"
  fi
  # Side by side with ygch.
  wait
  for n in 17 19 21; do
    [ -x "$ygch/ygch" ] && capped 60 "$ygch/ygch" $n 6
    NQUEENS_GPU_VERBOSE=1 capped 60 "$B" count $n --backend gpu --check -q
  done
  # Last, what is left: n = 22 (target 85 s, ygch about 250 s) with the faster, stopped at the deadline.
  local best=""
  awk -v a="$exch" -v b="$soa" 'BEGIN{exit !(a < b)}' && best=NQ_EXCH
  variant "$best" 300 "$B" count 22 --backend gpu --check -q
}

run_part() {
  echo "## $1 ($(date -u +%FT%TZ), $(hostname))"
  "$1"
}

case "$part" in
  check | small | variants | peers | n22 | bench | cpu | lease) run_part "$part" 2>&1 | tee "$out/$part.txt" ;;
  all)
    for p in check small variants peers bench cpu; do run_part $p 2>&1 | tee "$out/$p.txt"; done
    ;;
  *) echo "unknown part '$part'" >&2; exit 2 ;;
esac
