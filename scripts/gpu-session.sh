#!/usr/bin/env bash
# The measurements that wait for the GPU machine (an H100 with 16 CPU cores), in parts that each fit in one
# call of ten minutes, so that a session with the machine spends its minutes measuring (results/gpu.md and
# results/scaling.md say what each figure is for). A developer tool, not part of CI.
#
#   bash scripts/gpu-session.sh PART OUT [BINARY]
#
# PART    check | small | variants | peers | n22 | bench | cpu | all (all but n22); variant (a variant of the
#         kernel against the default, VARIANT=its defines); lease: the most telling of them in one call,
#         within BUDGET seconds (for a lease of 15 minutes); or one question each (the fourteenth session's):
#         timeline (where a small run's time goes, main's stamps against the shell's), threads (64, 96 and
#         128 a block), targets
#         (the issue's boards once each, n = 22 capped at CAP22 seconds); ab (the fifteenth and sixteenth
#         sessions': this binary against BASE, an older one carried beside it, and sixteen turns against eight);
#         stragglers (the seventeenth's: n = 19 with smaller blocks and fewer batches); turn (the eighteenth's:
#         kernels' variants side by side, TURNS=their defines, exact first),
#         start (the driver's start, context and exit with fewer hardware queues); ahead (the nineteenth's:
#         the look-ahead, the default since the twenty-second session, against its variants and the loop
#         without it); queues (the twenty-second's: the program's two hardware queues a GPU against the
#         driver's eight, small and large boards); profile (the twenty-second's: what binds the look-ahead's
#         loop, fewer blocks a multiprocessor and Nsight Compute); launches (the twenty-fifth's: launches with
#         a budget, as a GPU that drives a display gets them, exact and what they cost); next (the thirty-second's
#         plan for the next GPU: targets, peers, ahead without n = 22 and profile, in one call); rows (the
#         thirty-fourth's: n = 22 in tasks a row shorter, for a sixth block a multiprocessor); trial (the
#         thirty-fifth's: the kernel's two loops timed on the same sample by the program's own trial, n = 19
#         to 21); estimate (the thirty-seventh's: `estimate --backend gpu` of n = 22 and the frontier)
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
# A `cargo build --release` without `--features cuda` after the GPU build (or, before the tests had a profile
# of their own, a `cargo test --release`) replaces the binary with one without the backend: every count of
# a lease would then end at once with exit code 2 (the fourteenth session lost its H100 call so). Fail first.
if [[ "$("$B" count 1 --backend gpu -q 2>&1)" == *"built without the GPU backend"* ]]; then
  echo "$B was built without the GPU backend: cargo build --release --features cuda --bins" >&2
  exit 2
fi

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

# Runs a command, stops it with SIGINT after 3 s, and prints how long it took to leave and its exit code.
interrupted() {
  local pid rc t0 t1
  "$@" &
  pid=$!
  sleep 3
  t0=$(date +%s.%N)
  kill -INT $pid
  wait $pid
  rc=$?
  t1=$(date +%s.%N)
  echo "wound down in $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}') s, exit $rc (130 expected)"
}

check() {
  nvidia-smi -L
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv
  lscpu | grep -E 'Model name|Thread|Core|Socket|MHz' || true
  "$B" --version
  # Every board against the published counts, then one GPU named twice (two host threads, one GPU): each
  # one's share on standard error and in the JSON `gpu` record (`gpus`, the fortieth session's).
  timed "$B" count 4..17 --backend gpu --check -q
  timed "$B" count 18 --backend gpu --gpus 0,0 --check -f json
  # A GPU the driver does not have is refused before anything is counted (exit code 1, at once).
  timed "$B" count 19 --backend gpu --gpus 0,$(nvidia-smi -L | wc -l) --check
  # A GPU shard merged with a CPU shard must give the exact total (merge checks it against the published one).
  local j
  j=$(mktemp -d)
  timed "$B" count 17 --backend gpu --shard 0/2 --checkpoint "$j/gpu.journal" -q
  timed "$B" count 17 --shard 1/2 --checkpoint "$j/cpu.journal" -q
  timed "$B" merge "$j/gpu.journal" "$j/cpu.journal"
  # A checkpointed GPU run stopped by SIGINT (the forty-second session's grace): it waits for its batches in
  # flight (25 s at most), records them, says each GPU's share, exits with 130 and names --backend gpu in the
  # resume command; resumed, it gives the exact total. The seconds from the signal to the exit are the
  # wind-down's.
  # Then with no grace (`--stop-grace 0`): the process leaves while the GPUs still count, which must neither
  # hang nor crash (`timeout` ends a hang with 124).
  local grace
  for grace in 25s 0; do
    echo "\$ $B count 21 --backend gpu --gpus 0,0 --checkpoint $j/stop.journal --stop-grace $grace, SIGINT after 3 s"
    interrupted timeout 90 "$B" count 21 --backend gpu --gpus 0,0 --checkpoint "$j/stop.journal" --stop-grace $grace
    echo "units recorded: $(($(wc -l < "$j/stop.journal") - 1))"
  done
  timed "$B" count 21 --backend gpu --checkpoint "$j/stop.journal" --check -q
  # The watchdog (the forty-seventh and forty-eighth sessions'), seen on hardware: with bounds this low every
  # opening is said and then its end, and each batch that takes more than half its GPU's pace is said and then
  # its return; the count must stay exact. Then the same bounds while a checkpointed run is stopped: it must
  # still leave within its grace (25 s), with its journal, and resume to the exact total.
  NQUEENS_GPU_OPEN_SECONDS=0 NQUEENS_GPU_STALL_SECONDS=0 NQUEENS_GPU_STALL_PACES=0.5 \
    timed "$B" count 19 --backend gpu --gpus 0,0 --check 2>&1 | grep -vE '^\s*$' | head -40
  echo "\$ (the same bounds) $B count 21 --backend gpu --checkpoint $j/stall.journal, SIGINT after 3 s"
  NQUEENS_GPU_OPEN_SECONDS=0 NQUEENS_GPU_STALL_SECONDS=0 NQUEENS_GPU_STALL_PACES=0.5 \
    interrupted timeout 90 "$B" count 21 --backend gpu --checkpoint "$j/stall.journal" 2> "$j/stall.err"
  grep -E 'hung|opened|came back|stopp|resume' "$j/stall.err" | head -20
  timed "$B" count 21 --backend gpu --checkpoint "$j/stall.journal" --check -q
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
  # Turns between tests for a task's end, and threads per block. (The stack's layouts this part once weighed,
  # NQ_SOA and NQ_AOS, were measured slower and went from the kernel in the twenty-seventh session.)
  for unroll in 8u 4u 2u 1u; do
    NQUEENS_GPU_DEFINES="NQ_UNROLL=$unroll" NQUEENS_GPU_VERBOSE=1 timed "$B" count 20 --backend gpu --check -f json
  done
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
  # The GPU's standard workload (n = 21 since the thirty-ninth session: a warm-up and three runs, about 30 s on
  # an H200), then --quick (n = 19).
  timed "$B" bench --backend gpu --export-json "$out/bench-gpu.json" --export-markdown "$out/bench-gpu.md"
  timed "$B" bench --backend gpu --quick --export-json "$out/bench-gpu-quick.json"
  # The sweep of the GPUs (1, then 2): on one GPU, GPU 0 named twice, so the two runs share it.
  timed "$B" bench --backend gpu --quick --gpus 0,0 --runs 2 --export-json "$out/bench-gpu-sweep.json"
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
# `BUDGET=500 bash scripts/gpu-session.sh lease "$OUT"` with a call limit a little above BUDGET.
#
# What it asks (after the thirteenth session, results/gpu.md): the stack's two pairs of words (the default since
# then: 21.75 SASS instructions a node, n = 21 in 10.24 s and n = 22 in 86.3 s on an H200) on the card at hand,
# against issue 16's targets for an H100 and beside ygch. Threads a block (64 and 256 made no difference on the
# H200 with the four words apart). How many tasks small runs aim for, and where n = 17 and 19 spend their time.
# A large unit of n = 26, cut 6 rows below it since the thirteenth session. The host's cut alone on 1, 2 and 16
# cores, if target/release/examples/gpu_cut_time is carried too (n = 19 on the H200's 16 cores: 0.161 s).
lease() {
  local deadline=$(($(date +%s) + ${BUDGET:-540}))
  capped() { # CAP COMMAND...: runs it for at most CAP seconds and what is left, timed
    local left=$((deadline - $(date +%s))) cap=$1
    shift
    if [ "$left" -lt 5 ]; then echo "skipped, no time left: $*"; return 99; fi
    [ "$cap" -gt "$left" ] && cap=$left
    timed timeout "$cap" "$@"
  }
  local ygch=
  if [ -d "$root/.peers/ygch/src" ] && command -v nvcc > /dev/null; then
    ygch=$(mktemp -d)
    cp "$root"/.peers/ygch/src/*.cu "$root"/.peers/ygch/src/*.cpp "$root"/.peers/ygch/src/*.h "$ygch/"
    (cd "$ygch" && nvcc -gencode arch=compute_90,code=sm_90 -O3 -Xcompiler -fopenmp -D_USE_CONFIG2_ \
      n_queens_cuda.cu n_queens.cpp utils.cpp main.cpp -o ygch > build.log 2>&1) &
  fi
  nvidia-smi -L
  "$B" --version
  # Exact first: every board to 17, one GPU named twice, the widest lines against the CPU's totals.
  capped 60 "$B" count 4..17 --backend gpu --check -q
  capped 60 "$B" count 18 --backend gpu --gpus 0,0 --check -q
  capped 60 "$B" count 25x9 26x9 27x8 28x8 --backend gpu -f csv -o "$out/wide-gpu.csv"
  capped 60 "$B" count 25x9 26x9 27x8 28x8 -f csv -o "$out/wide-cpu.csv"
  if [ -s "$out/wide-gpu.csv" ] && [ -s "$out/wide-cpu.csv" ] &&
    cmp <(cut -d, -f1,2 "$out/wide-gpu.csv") <(cut -d, -f1,2 "$out/wide-cpu.csv"); then
    echo "wide lines: the GPU's totals are the CPU's"
  else
    echo "WIDE LINES: THE GPU'S TOTALS DIFFER FROM THE CPU'S"
  fi
  # Threads a block at n = 21 (the default, 128, twice).
  local t
  for t in 128 64 256 128; do
    echo "# $t threads a block"
    NQUEENS_GPU_THREADS=$t NQUEENS_GPU_VERBOSE=1 capped 60 "$B" count 21 --backend gpu --check -q 2>&1 |
      grep -v "^gpu: [0-9]* tasks"
  done
  # How many tasks small runs aim for: sqrt(nodes * balance), 1,800 by default, which assumed 100 ns a task
  # of the host's cut on a core where the eleventh session's H100 machine took 740 (n = 19: 0.87 s cutting,
  # the kernels waiting on it).
  local b
  for n in 17 19 20; do
    for b in 1800 450 112; do
      echo "# task balance $b"
      NQUEENS_GPU_TASK_BALANCE=$b NQUEENS_GPU_VERBOSE=1 capped 30 "$B" count $n --backend gpu --check -q 2>&1 |
        grep -v "^gpu: [0-9]* tasks"
    done
  done
  # The host's cut alone on 1, 2 and 16 cores (n = 19: 0.87 s on 16 cores in the eleventh session, no faster
  # than on 2; cut in two passes into reused memory since, 0.46 s on the 2-core development machine).
  if [ -x target/release/examples/gpu_cut_time ]; then
    for t in 1 2 16; do
      echo "# the cut alone, $t cores"
      RAYON_NUM_THREADS=$t capped 30 target/release/examples/gpu_cut_time 19 3
    done
  fi
  # What n = 17 does outside its count (the eleventh session: 0.13 s of its 0.47 s wall were before the
  # count's clock started or after it stopped): the process's system calls, timed.
  if command -v strace > /dev/null; then
    capped 30 strace -f -tt -e trace=execve,write,exit_group -o "$out/strace-n17.txt" \
      "$B" count 17 --backend gpu -q
    grep -E 'execve|write\(1|exit_group|\+\+\+ exited' "$out/strace-n17.txt" | head -20
  fi
  # The same without the C library's exit handlers (the CUDA driver's teardown), interleaved.
  local q
  for q in 0 1 0 1 0 1; do
    echo "# NQUEENS_QUICK_EXIT=$q"
    NQUEENS_QUICK_EXIT=$q capped 30 "$B" count 17 --backend gpu -q
  done
  # Where the host's time goes at n = 19 on 16 cores (its cut took 0.87 s there, 1.0 s on 2 cores).
  if command -v perf > /dev/null; then
    capped 30 perf record -g -o "$out/perf-n19.data" "$B" count 19 --backend gpu -q
    perf report -i "$out/perf-n19.data" --no-children --stdio 2> /dev/null | grep -E '^ +[0-9]+\.[0-9]+%' | head -40
    rm -f "$out/perf-n19.data"
  fi
  # Side by side with ygch, phase by phase.
  wait
  local n
  for n in 17 19 21; do
    [ -x "$ygch/ygch" ] && capped 60 "$ygch/ygch" $n 6
    NQUEENS_GPU_VERBOSE=1 capped 60 "$B" count $n --backend gpu --check -q
  done
  # The first unit of n = 26, phase by phase: cut no finer than a batch holds since the twelfth session (6
  # rows below it, 8.3 M tasks; before, 518 M tasks, 57 s of one core's cut). About 6.5e13 nodes (846,188
  # tasks of 7.7e7 nodes each on average, 300 of them counted on the host in the thirteenth session, whose
  # lease gave units 0 to 3 90 s, too few): about 75 s on an H200.
  local j
  j=$(mktemp -d)
  NQUEENS_GPU_VERBOSE=1 capped 120 "$B" count 26 --backend gpu --units 0 --checkpoint "$j/n26.journal" -f json
  rm -rf "$j"
  # Last, what is left: n = 22 (target 85 s on an H100; 92.9 s there in the eleventh session, ygch 256 s; 86.3 s
  # on an H200 in the thirteenth).
  capped 300 "$B" count 22 --backend gpu --check -q
}

# A variant of the kernel against the default (VARIANT: its NQUEENS_GPU_DEFINES, NQ_PLAIN by default), in one
# call of about three minutes: exact first, then n = 20 and 21 interleaved, threads a block, then n = 17, 19
# and 22. (The thirteenth session ran it with the stack's two pairs as the variant, before they were the
# default.)
variant() {
  local L=${VARIANT:-NQ_PLAIN}
  nvidia-smi -L
  "$B" --version
  NQUEENS_GPU_DEFINES=$L timed timeout 60 "$B" count 4..18 --backend gpu --check -q
  NQUEENS_GPU_DEFINES=$L timed timeout 60 "$B" count 25x9 26x9 27x8 28x8 --backend gpu -f csv \
    -o "$out/wide-variant.csv"
  timed timeout 60 "$B" count 25x9 26x9 27x8 28x8 -f csv -o "$out/wide-cpu.csv"
  if [ -s "$out/wide-variant.csv" ] &&
    cmp <(cut -d, -f1,2 "$out/wide-variant.csv") <(cut -d, -f1,2 "$out/wide-cpu.csv"); then
    echo "wide lines: the GPU's totals are the CPU's"
  else
    echo "WIDE LINES: THE GPU'S TOTALS DIFFER FROM THE CPU'S"
  fi
  local d n
  for d in "" $L "" $L "$L NQ_UNROLL=4u"; do
    echo "# defines: ${d:-none}"
    NQUEENS_GPU_DEFINES=$d NQUEENS_GPU_VERBOSE=1 timed timeout 60 "$B" count 20 --backend gpu --check -q 2>&1 |
      grep -E "^gpu 0|^ +20 |^wall"
  done
  local t
  for t in 64 256; do
    echo "# defines: $L, $t threads a block"
    NQUEENS_GPU_THREADS=$t NQUEENS_GPU_DEFINES=$L NQUEENS_GPU_VERBOSE=1 timed timeout 60 "$B" count 20 \
      --backend gpu --check -q 2>&1 | grep -E "^gpu 0|^ +20 |^wall|blocks a multi" | tail -5
  done
  for d in $L "" $L; do
    echo "# defines: ${d:-none}"
    NQUEENS_GPU_DEFINES=$d NQUEENS_GPU_VERBOSE=1 timed timeout 60 "$B" count 21 --backend gpu --check -q 2>&1 |
      grep -E "^gpu 0|^ +21 |^wall"
  done
  for n in 17 19 17 19; do NQUEENS_GPU_DEFINES=$L timed timeout 60 "$B" count $n --backend gpu --check -q; done
  NQUEENS_GPU_DEFINES=$L timed timeout 150 "$B" count 22 --backend gpu --check -q
}

# profile_batch SECONDS: Nsight Compute (`--set full`) on the third batch of n = 20, where it is installed.
profile_batch() {
  local ncu
  ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  if [ -n "$ncu" ]; then
    echo "# Nsight Compute: the third batch of n = 20"
    timeout "$1" "$ncu" --set full --launch-skip 2 --launch-count 1 -k count_tasks "$B" count 20 --backend gpu \
      -q 2>&1 | grep -vE "^==PROF==|^ *$" | head -400
    # Each SASS instruction's counters (the thirty-first session's profile found 21% of the shared memory's
    # wavefronts excessive, without saying which accesses make them): whole, to its own file.
    echo "# Nsight Compute, each instruction's counters: $out/profile-source.txt"
    timeout $(($1 / 2)) "$ncu" --section SourceCounters --page source --print-source sass --csv --launch-skip 2 \
      --launch-count 1 -k count_tasks "$B" count 20 --backend gpu -q > "$out/profile-source.txt" 2>&1
    grep -c . "$out/profile-source.txt"
  else
    echo "# no ncu"
  fi
}

timeline() {
  # Where a small run's time goes outside the count's clock: the epoch before and after the command, and
  # main's own stamps (NQUEENS_GPU_VERBOSE=1), with the GPU's closing and the freeing of the task buffers.
  nvidia-smi -L
  local n q
  for n in 17 19 17 19 17; do
    for q in 0 1; do
      echo "# n = $n, NQUEENS_QUICK_EXIT=$q"
      echo "shell: before at $(date +%s.%N)"
      NQUEENS_QUICK_EXIT=$q NQUEENS_GPU_VERBOSE=1 timed timeout 60 "$B" count $n --backend gpu --check -q 2>&1 |
        grep -vE "blocks a multi"
      echo "shell: after at $(date +%s.%N)"
    done
  done
}

threads() {
  # Threads a block at n = 21 (interleaved), then n = 22 with the default and with the faster of the others.
  nvidia-smi -L
  local t k best=128 bestk=999
  for t in 128 64 96 128 64 96; do
    echo "# n = 21, $t threads a block"
    NQUEENS_GPU_THREADS=$t NQUEENS_GPU_VERBOSE=1 timed timeout 60 "$B" count 21 --backend gpu --check -q 2>&1 |
      grep -E "^gpu 0|^ +21 |^wall|blocks a multi" | sed -E 's/^gpu: [0-9]+ tasks, /gpu: tasks, /' | sort |
      uniq -c | sort -rn | head -6 | tee "$out/t.txt"
    k=$(grep -o '[0-9.]* s of kernels' "$out/t.txt" | cut -d' ' -f1)
    if [ "$t" != 128 ] && [ -n "$k" ] && awk -v a="$k" -v b="$bestk" 'BEGIN{exit !(a<b)}'; then
      best=$t
      bestk=$k
    fi
  done
  rm -f "$out/t.txt"
  for t in 128 $best; do
    echo "# n = 22, $t threads a block"
    NQUEENS_GPU_THREADS=$t NQUEENS_GPU_VERBOSE=1 timed timeout 150 "$B" count 22 --backend gpu --check -q 2>&1 |
      grep -E "^gpu 0|^ +22 |^wall"
  done
}

targets() {
  # The issue's boards once each, the largest last and capped (for a short lease on another card).
  nvidia-smi -L
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv
  local n
  for n in 17 19 17 19 21; do
    NQUEENS_GPU_VERBOSE=1 timed timeout 60 "$B" count $n --backend gpu --check -q 2>&1 |
      grep -E "^gpu 0|^ +$n |^wall"
  done
  # n = 17 three times in one process: the first board's kernels run on a new context, the others' on one
  # that has launched. Their "s of kernels" say whether n = 17's 0.024 s is mostly a cost of the context's
  # first launch (the forty-third session's fit of n = 17, 19 and 21: about 16 ms fixed, results/gpu.md),
  # which a launch made as the GPU opens, beside the plan, would take off the count.
  NQUEENS_GPU_VERBOSE=1 timed timeout 60 "$B" count 17 17 17 --backend gpu --check -q 2>&1 |
    grep -E "^gpu 0|^ +17 |^wall"
  # That launch, made (NQUEENS_GPU_WARM_LAUNCH=1: an empty launch of the kernel as the GPU opens), against
  # none, interleaved: the verbose line's "launched empty by" says what it cost the opening, the "s of
  # kernels" and the wall what it saved.
  local w
  for w in 1 0 1 0 1 0; do
    echo "# NQUEENS_GPU_WARM_LAUNCH=$w"
    NQUEENS_GPU_WARM_LAUNCH=$w NQUEENS_GPU_VERBOSE=1 timed timeout 60 "$B" count 17 --backend gpu --check -q \
      2>&1 | grep -E "^gpu 0|^ +17 |^wall"
  done
  NQUEENS_GPU_VERBOSE=1 timed timeout "${CAP22:-100}" "$B" count 22 --backend gpu --check -q 2>&1 |
    grep -E "^gpu 0|^ +22 |^wall"
}

ab() {
  # The fifteenth and sixteenth sessions' changes (tasks of 16 bytes, one cut; the next batch cut on a thread
  # of its own while the last is copied, a lone GPU's first batch small) against binaries built before them
  # and carried (BASE: one or more, space-separated, e.g. "target/release/nqueens-378e320
  # target/release/nqueens-d5f6d8d" for the commits before each session), interleaved: n = 17 and 19 say
  # whether the first batch goes sooner and the host keeps the GPU fed ("first batch sent", "cutting",
  # "waiting for them", "waiting for results"); then sixteen turns between tests (the default on boards 19 to
  # 24 wide since the seventeenth session: 21.0 SASS instructions a node) against eight (21.75; results/gpu.md).
  local bases bin n d
  read -r -a bases <<<"${BASE:?"BASE: the binaries to compare against"}"
  for bin in "${bases[@]}"; do
    [ -x "$bin" ] || { echo "no binary at $bin" >&2; return 2; }
  done
  nvidia-smi -L
  for n in 17 19 17 19 21; do
    for bin in "${bases[@]}" "$B"; do
      echo "# $bin"
      NQUEENS_GPU_VERBOSE=1 timed timeout 60 "$bin" count $n --backend gpu --check -q 2>&1 |
        grep -E "^gpu 0|^ +$n |^wall"
    done
  done
  for n in 20 21; do
    for d in "" NQ_UNROLL=8u "" NQ_UNROLL=8u; do
      echo "# defines: ${d:-none}"
      NQUEENS_GPU_DEFINES=$d NQUEENS_GPU_VERBOSE=1 timed timeout 60 "$B" count $n --backend gpu --check -q 2>&1 |
        grep -E "^gpu 0|^ +$n |^wall"
    done
  done
}

stragglers() {
  # The seventeenth session's hypothesis (results/gpu.md): at n = 19 a batch's end waits for its slowest tasks
  # (13 to 30 ms, as long as a batch), each holding its block's shared memory, so that the kernels count a
  # quarter slower than a large run's. Smaller blocks leave fewer threads waiting; fewer batches, fewer ends.
  # Interleaved, each run's kernels' time and wall; n = 21 for what it costs a large run.
  nvidia-smi -L
  local n t b
  for n in 19 19 19; do
    for t in 128 64 32; do
      echo "# $t threads a block"
      NQUEENS_GPU_THREADS=$t NQUEENS_GPU_VERBOSE=1 timed timeout 60 "$B" count $n --backend gpu --check -q 2>&1 |
        grep -E "^gpu 0|^ +$n |^wall|blocks a multiprocessor" | sort -u | head -4
    done
    for b in 4 2; do
      echo "# at least $b batches"
      NQUEENS_GPU_BATCHES=$b NQUEENS_GPU_VERBOSE=1 timed timeout 60 "$B" count $n --backend gpu --check -q 2>&1 |
        grep -E "^gpu 0|^ +$n |^wall"
    done
  done
  for t in 128 32; do
    echo "# $t threads a block"
    NQUEENS_GPU_THREADS=$t NQUEENS_GPU_VERBOSE=1 timed timeout 60 "$B" count 21 --backend gpu --check -q 2>&1 |
      grep -E "^gpu 0|^ +21 |^wall"
  done
}

turn() {
  # Kernels' variants side by side (TURNS: their defines, a variant's joined with commas; the eighteenth
  # session's turns by default: the look-ahead, the loop without it, and that with its turn in C). Exactness
  # on the GPU first (every board 4 to 18; rectangles of eight and sixteen turns against the CPU, and their
  # nodes against the default's), then interleaved, each run's kernels' time and wall; n = 22 once each (CAP22
  # seconds, 150 by default; 0 leaves it out). The rectangles' files go to a folder of their own, not OUT:
  # the device brings back only a few files.
  nvidia-smi -L
  "$B" --version
  # A variant of several defines joins them with commas (NQ_PLAIN,NQ_TURN_C).
  local d n turns rect
  read -r -a turns <<<"${TURNS:-default NQ_PLAIN NQ_PLAIN,NQ_TURN_C}"
  rect=$(mktemp -d)
  for d in "${turns[@]}"; do
    [ "$d" = default ] && d=
    NQUEENS_GPU_DEFINES=${d//,/ } timed timeout 60 "$B" count 4..18 --backend gpu --check -q
    # (A file's name joins the defines with '-', for '=' too: such signs may not come back from the device.)
    NQUEENS_GPU_DEFINES=${d//,/ } timed timeout 60 "$B" count 23x9 22x10 20x12 26x7 --backend gpu -f csv \
      -o "$rect/rect-$(echo "${d:-default}" | tr ,= --).csv"
  done
  timed timeout 60 "$B" count 23x9 22x10 20x12 26x7 -f csv -o "$rect/rect-cpu.csv"
  local f
  for d in "${turns[@]}"; do
    f=$rect/rect-$(echo "$d" | tr ,= --).csv
    if [ -s "$f" ] && cmp <(cut -d, -f1,2 "$f") <(cut -d, -f1,2 "$rect/rect-cpu.csv"); then
      echo "rectangles, $d: the GPU's totals are the CPU's"
    else
      echo "RECTANGLES, $d: THE GPU'S TOTALS DIFFER FROM THE CPU'S"
    fi
    # The nodes too, against the default's (the same plan on the same backend: the same units).
    if [ -s "$f" ] && cmp <(cut -d, -f1,2,10 "$f") <(cut -d, -f1,2,10 "$rect/rect-default.csv"); then
      echo "rectangles, $d: the default's nodes"
    else
      echo "RECTANGLES, $d: NODES DIFFER FROM THE DEFAULT'S"
    fi
  done
  for n in 20 21 20 21 19 19; do
    for d in "${turns[@]}"; do
      [ "$d" = default ] && d=
      d=${d//,/ }
      echo "# n = $n, defines: ${d:-none (the default)}"
      NQUEENS_GPU_DEFINES=$d NQUEENS_GPU_VERBOSE=1 timed timeout 60 "$B" count $n --backend gpu --check -q 2>&1 |
        grep -E "^gpu 0|^ +$n |^wall"
    done
  done
  [ "${CAP22:-150}" -gt 0 ] || return 0
  for d in "${turns[@]}"; do
    [ "$d" = default ] && d=
    d=${d//,/ }
    echo "# n = 22, defines: ${d:-none (the default)}"
    NQUEENS_GPU_DEFINES=$d timed timeout "${CAP22:-150}" "$B" count 22 --backend gpu --check -q
  done
}

ahead() {
  # The look-ahead (a dead end counted without a turn of its own; the nineteenth session's NQ_AHEAD, the default
  # since the twenty-second, in the form the thirty-first timed fastest on an H200 and the thirty-second made the
  # default: the row ahead one column over, the nodes counted as each turn's children, the last row closed
  # without a turn, the push's step last; 476 SASS instructions for sixteen turns, 70.8% of the nodes as turns),
  # as part `turn` measures turns: exactness (boards 4 to 18, rectangles; the nodes against the default's), then
  # n = 20, 21 and 19 interleaved, n = 22 once each (CAP22=0 leaves it out: about 30 s a kernel). Against it:
  # NQ_UNCOUNTED (474: the kernel of --uncounted-nodes; it reports no node, so its rectangles' nodes differ from
  # the default's, as they must), the loop without the look-ahead (NQ_PLAIN, 315; 13 to 14% slower than the
  # look-ahead's first form on an H200 in the twenty-second session, in its turn in C), and the thirty-second
  # session's NQ_AHEAD_FRAME (the next row taken with its frame, one load from the table more; since the
  # thirty-third a solution a turn on the last row without a population count: 500 for sixteen turns on a square
  # board, 0.898 of the default's turns at n = 19, so 19.9 instructions a node where the default takes 21.1, and
  # as many wavefronts a node: whether it is faster, only a GPU says), and that uncounted (477, 19.0 a node: the
  # issue's 20 with room, if leaving the nodes uncounted pays).
  TURNS=${TURNS:-default NQ_AHEAD_FRAME NQ_AHEAD_FRAME,NQ_UNCOUNTED NQ_UNCOUNTED NQ_PLAIN} turn
}

launches() {
  # The twenty-fifth session's launches with a budget (count.cu's `budget`; src/gpu/cuda.rs launches a batch
  # again while tasks are left), as a GPU that drives a display gets them (half a second each), forced here by
  # NQUEENS_GPU_LAUNCH_SECONDS: exactness with launches of 2 ms (every board 4 to 18, rectangles against the
  # CPU), then n = 20 and 21 with launches of 0.5 s against none, interleaved: what launching again costs.
  # About 40 seconds.
  nvidia-smi -L
  nvidia-smi --query-gpu=name,display_mode,display_active --format=csv || true
  local rect
  rect=$(mktemp -d)
  NQUEENS_GPU_LAUNCH_SECONDS=0.002 timed timeout 60 "$B" count 4..18 --backend gpu --check -q
  NQUEENS_GPU_LAUNCH_SECONDS=0.002 NQUEENS_GPU_VERBOSE=1 timed timeout 60 "$B" count 18 --backend gpu --check -q \
    2>&1 | grep -E "launches of a budget|^ +18 |^wall" | sort | uniq -c | sort -rn | head -8
  NQUEENS_GPU_LAUNCH_SECONDS=0.002 timed timeout 60 "$B" count 23x9 22x10 20x12 --backend gpu -f csv \
    -o "$rect/rect-launches.csv"
  timed timeout 60 "$B" count 23x9 22x10 20x12 -f csv -o "$rect/rect-cpu.csv"
  if [ -s "$rect/rect-launches.csv" ] && cmp <(cut -d, -f1,2 "$rect/rect-launches.csv") <(cut -d, -f1,2 "$rect/rect-cpu.csv"); then
    echo "rectangles, launches of 2 ms: the GPU's totals are the CPU's"
  else
    echo "RECTANGLES, LAUNCHES OF 2 MS: THE GPU'S TOTALS DIFFER FROM THE CPU'S"
  fi
  local n s
  for n in 20 21 20; do
    for s in none 0.5; do
      echo "# n = $n, launches of: $s"
      (
        if [ "$s" != none ]; then export NQUEENS_GPU_LAUNCH_SECONDS=$s; fi
        NQUEENS_GPU_VERBOSE=1 timed timeout 60 "$B" count $n --backend gpu --check -q 2>&1
      ) | grep -E "^gpu 0:.*waiting|^ +$n |^wall|launches of a budget" | sort | uniq -c | sort -rn | head -6
    done
  done
}

queues() {
  # The program opens two hardware queues a GPU (CUDA_DEVICE_MAX_CONNECTIONS=2, set by main unless the user
  # set it) where the driver opens eight: on an H200 (the twenty-second session, without the look-ahead) n = 17
  # took 0.32 to 0.35 s rather than 0.40 to 0.42, n = 19 0.53 to 0.54 rather than 0.59 to 0.61. Its four
  # streams then share the two: does that cost the large boards anything? n = 17, 19 and 21, the program's two
  # against eight and four, interleaved: wall and the kernels' time. About 1.5 minutes.
  with_queues "17 19 21 17 19 21" "program 8 4" "^gpu 0:.*waiting"
}

# with_queues BOARDS QUEUES LINES: each board of BOARDS with each number of hardware queues of QUEUES
# (`program`: the program's own), interleaved, keeping the count's line, the wall time and the verbose LINES.
with_queues() {
  # Persistence mode keeps the driver loaded between processes: off, each process pays for loading it.
  nvidia-smi --query-gpu=name,persistence_mode,driver_version,clocks.max.sm --format=csv
  local n c
  for n in $1; do
    for c in $2; do
      echo "# n = $n, CUDA_DEVICE_MAX_CONNECTIONS=$c"
      (
        if [ "$c" != program ]; then export CUDA_DEVICE_MAX_CONNECTIONS=$c; fi
        NQUEENS_GPU_VERBOSE=1 timed timeout 60 "$B" count "$n" --backend gpu --check -q 2>&1
      ) | grep -E "$3|^ +$n |^wall"
    done
  done
}

profile() {
  # What binds the look-ahead's loop (the default since the twenty-second session): 0.74 T turns/s at n = 22 on
  # an H200, 80% of what its nine wavefronts a turn allow, where the loop without it ran at 98%; about 11.3
  # cycles of a multiprocessor a warp's turn, more than any one pipe needs (results/gpu.md). If warps wait on
  # latency, more of them would help and fewer would hurt: at most 5, 4 and 3 blocks a multiprocessor at
  # n = 20 and 4 at n = 21 rather than all that fit (NQUEENS_GPU_MOST_BLOCKS: shared memory padded so that no
  # more fit, whatever the kernel's bytes a thread; the fourteenth session's pads, without the look-ahead, cost
  # 6% for 4 blocks and 27% for 3), interleaved. With the stack without a level for the last row (the
  # twenty-sixth session's, the default on a square board since the thirty-second) and one sentinel of the
  # whole word (the thirty-third's) 6 fit at n = 20 and 21 (n = 21 held 5 before): at n = 21 at most 5 and 4
  # timed beside, what a sixth block is worth. n = 21 also in blocks of 64 and 96 threads. Then Nsight Systems
  # on n = 19 (its batches' copies and kernels) and Nsight Compute on n = 20's third batch (stall reasons, issue
  # slots, the pipes' use). About 3 minutes.
  nvidia-smi -L
  local n most round=0 runs=()
  for n in 20 21 20 21; do
    if [ "$n" = 20 ]; then
      runs=(all 5 4 3)
    else
      round=$((round + 1))
      # Blocks of 64 and 96 threads: smaller blocks, nearly as many warps (at n = 21's 296 bytes a thread,
      # 128 a block hold 24 warps a multiprocessor, 96 hold 21 and 64 hold 22).
      if [ "$round" = 1 ]; then runs=(all 5 4 t64 t96); else runs=(all 5 t64); fi
    fi
    for most in "${runs[@]}"; do
      case "$most" in
        t*) echo "# n = $n, blocks a multiprocessor: all, ${most#t} threads a block" ;;
        *) echo "# n = $n, blocks a multiprocessor: $most" ;;
      esac
      (
        case "$most" in
          all) ;;
          t*) export NQUEENS_GPU_THREADS=${most#t} ;;
          *) export NQUEENS_GPU_MOST_BLOCKS=$most ;;
        esac
        NQUEENS_GPU_VERBOSE=1 timed timeout 60 "$B" count $n --backend gpu --check -q 2>&1
      ) | grep -E "^gpu 0:.*waiting|^ +$n |^wall|blocks a multi" |
        sed -E 's/^gpu: [0-9]+ tasks, /gpu: tasks, /; s/; tasks copied in.*//' | sort -u
    done
  done
  timeline_n19
  profile_batch 200
}

# Nsight Systems on n = 19, where installed: each batch's copies and kernels on the GPU's clock, and the driver
# calls' time (the twenty-fifth session's: n = 19's kernels count about a quarter slower than a large run's,
# and nothing yet says where that goes).
timeline_n19() {
  local nsys d
  nsys=$(command -v nsys || ls /usr/local/cuda*/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1)
  if [ -z "$nsys" ]; then
    echo "# no nsys"
    return 0
  fi
  d=$(mktemp -d)
  echo "# Nsight Systems: n = 19"
  timeout 60 "$nsys" profile -o "$d/n19" --force-overwrite true "$B" count 19 --backend gpu --check -q 2>&1 |
    grep -vE "^ *$" | tail -5
  timeout 60 "$nsys" stats --report cuda_gpu_trace,cuda_api_sum --format csv "$d/n19.nsys-rep" 2>&1 |
    grep -vE "^ *$" | head -150
  rm -rf "$d"
}

rows() {
  # The thirty-fourth session's: a sixth block at n = 22 from tasks a row shorter. n = 22's tasks have 16 rows
  # (MAX_TASK_ROWS): 316 bytes of shared memory a thread, five blocks of 128 threads a multiprocessor. With 15
  # (NQUEENS_GPU_TASK_ROWS=15, for measuring) 296 bytes, six blocks, for 5.7 times the tasks (592 million
  # rather than 105: 21 s of cutting on the 2-core development machine rather than 9.5 s, on a thread of
  # their own beside the kernels). If part `profile` finds a sixth block worth more than the cut costs, the
  # program's bound on a task's rows should follow the blocks. Both interleaved, once each: about 2.5 minutes.
  nvidia-smi -L
  local r
  for r in 15 16; do
    echo "# n = 22, tasks of at most $r rows"
    NQUEENS_GPU_TASK_ROWS=$r NQUEENS_GPU_VERBOSE=1 timed timeout 150 "$B" count 22 --backend gpu --check -q 2>&1 |
      grep -E "^gpu 0:.*waiting|^gpu 0: the kernel's loops|^ +22 |^wall|blocks a multi|cut planned" |
      sed -E 's/^gpu: [0-9]+ tasks, /gpu: tasks, /; s/; tasks copied in.*//' | sort -u
  done
}

trial() {
  # The thirty-fifth session's: a run asked for it (NQUEENS_GPU_TRIAL; the program's choice for runs of 2^26
  # tasks a GPU until the thirty-eighth session, which found its sample's time to be its largest task's) times
  # the kernel's two loops, the program's and NQ_AHEAD_FRAME, on every eighth task of a batch, and counts the
  # rest with the faster (src/gpu/trial.rs). Here the trial is asked of n = 19 to 21, on
  # each batch (NQUEENS_GPU_TRIAL=2), the first of up to 2^23 tasks (NQUEENS_GPU_FIRST_BATCH_TASKS), so that
  # each batch says both loops' seconds for the same sample: the frame against the default where it holds as
  # many blocks (n = 19, 20) and one fewer (21). About 30 s.
  nvidia-smi -L
  local n
  for n in 19 20 21 21; do
    NQUEENS_GPU_TRIAL=2 NQUEENS_GPU_FIRST_BATCH_TASKS=8388608 NQUEENS_GPU_VERBOSE=1 \
      timed timeout 60 "$B" count $n --backend gpu --check -q 2>&1 |
      grep -E "^gpu 0: the kernel's loops|^gpu: [0-9]+ tasks, .*blocks a multi|^ +$n |^wall" |
      sed -E 's/; tasks copied in.*//' | sort -u
  done
  # The thirty-sixth session's parts of units too large for a batch (n = 27 and 28 have them; a GPU session
  # cannot count those): n = 16 with a unit's bound lowered to 4,096 tasks, its units in parts from 4 rows
  # below them, must give the published count. About 2 s.
  NQUEENS_GPU_UNIT_TASKS=4096 NQUEENS_GPU_VERBOSE=1 \
    timed timeout 60 "$B" count 16 --backend gpu --check --split-depth 0 -q 2>&1 |
    grep -E "^gpu: cut planned|^ +16 |^wall|rror"
}

estimate() {
  # The thirty-seventh session's `estimate --backend gpu`: the GPU counts samples of a run's own tasks (drawn
  # uniformly from its units, cut as the run cuts them) and the time to count is the board's nodes over its
  # rate. n = 22 against its count in `targets` (66.1 s on the H200 in the thirty-eighth session, whose
  # estimate forecast 67.0 s with batches of the run's size), and the frontier on this GPU: n = 26, 27 and 28
  # (never counted on it; n = 28 not yet sampled: its batches are about 15 s each). About 3 minutes.
  nvidia-smi -L
  timed timeout 240 "$B" estimate 22 26 27 28 --backend gpu --sample 4s -f json -o "$out/estimate.json"
  [ -f "$out/estimate.json" ] && grep -E '"(n|nodes|nodes_per_second|seconds|tasks|task_rows|loop|trial)"' "$out/estimate.json"
}

start() {
  # The driver's part of a small run (about 0.32 s of n = 17's 0.36 s on the H200, the seventeenth session): its
  # start, the context and the process's exit. A context opens a hardware queue for each of up to
  # CUDA_DEVICE_MAX_CONNECTIONS streams (8 by the driver's default; the program uses 4 a GPU): fewer open and
  # close faster. Interleaved, n = 17 and 19 with 1, 2 and 4 queues and the program's (2 since the
  # twenty-second session, which measured this: results/gpu.md); wall and the driver's stamps. About 1 minute.
  with_queues "17 19 17 19 17 19" "program 1 2 4" "GPUs found by|context made|opened at"
}

run_part() {
  echo "## $1 ($(date -u +%FT%TZ), $(hostname))"
  "$1"
}

case "$part" in
  check | small | variants | peers | n22 | bench | cpu | lease | variant | timeline | threads | targets | ab | stragglers | turn | ahead | launches | queues | profile | rows | trial | start | estimate)
    run_part "$part" 2>&1 | tee "$out/$part.txt" ;;
  all)
    for p in check small variants peers bench cpu; do run_part $p 2>&1 | tee "$out/$p.txt"; done
    ;;
  next)
    # What the next session with a GPU runs first (the thirty-second session's plan), in one call of five to
    # nine minutes: the issue's boards with the kernel's new default (targets: n = 17 and 19 twice, 21, n = 17
    # three times in one process, and 22 capped at 100 s; about 1.5 minutes), the loops' trial at n = 19 to 21
    # (trial, the thirty-fifth session's; 30 s), the GPU's estimate of n = 22 and 26 to 28 (estimate, the
    # thirty-seventh's; 3 minutes), the default against NQ_AHEAD_FRAME, the nodes uncounted and the loop
    # without the look-ahead at n = 19 to 21 (ahead without n = 22; about 2 minutes), ygch side by side at
    # n = 20 and 21 (peers: copy ../shared/peers to .peers/ and carry it; about 1 minute), then profile (up to
    # 4 minutes), then rows (n = 22's tasks a row shorter for a sixth block; 2.5 minutes), each to its own
    # file. A part is not begun once NEXT_BUDGET seconds (420) have gone: 240 leaves out the profile where the
    # first three took longer than planned. `scripts/gpu-turns-summary.sh OUT/ahead.txt` sums up ahead.
    cap=${CAP22:-}
    for p in targets trial estimate ahead peers profile rows; do
      if [ "$p" = targets ]; then export CAP22=${cap:-100}; else export CAP22=${cap:-0}; fi
      if [ "$SECONDS" -gt "${NEXT_BUDGET:-420}" ]; then
        echo "# $p not begun: ${NEXT_BUDGET:-420} s have gone" | tee "$out/$p.txt"
        continue
      fi
      run_part $p 2>&1 | tee "$out/$p.txt"
    done
    ;;
  *) echo "unknown part '$part'" >&2; exit 2 ;;
esac
