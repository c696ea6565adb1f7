#!/usr/bin/env bash
# Counts the SASS instructions of a CUDA kernel's inner loop, without a GPU (a developer tool, not part of CI).
#
#   scripts/gpu-sass-count.sh                        src/gpu/count.cu as the program builds it for boards 19 to
#                                                    24 wide (sm_90, NQ_UNROLL=16u on one sentinel of the
#                                                    whole word, NQ_NARROW, blocks of 128 threads, the
#                                                    look-ahead; --all has the square boards' and the other
#                                                    widths' builds)
#   scripts/gpu-sass-count.sh -D NQ_UNROLL=4u        the same with a switch of the kernel (as NQUEENS_GPU_DEFINES;
#                                                    -D NQ_PLAIN, without the look-ahead: 315 for sixteen
#                                                    turns, 165 for eight; -D NQ_PLAIN -D NQ_TURN_C: 325 for
#                                                    sixteen)
#   scripts/gpu-sass-count.sh --file K.cu [-D ...]   another kernel (e.g. a peer's), compiled the same way
#   scripts/gpu-sass-count.sh --ptx K.ptx            PTX made by NVRTC itself, as the program makes it:
#     NQUEENS_PTX_OUT=K.ptx LD_LIBRARY_PATH=<libnvrtc's folder> \
#       cargo test --profile test-release --features cuda --test gpu dump_ptx -- --ignored
#   scripts/gpu-sass-count.sh --all                  every variant the program builds or NQUEENS_GPU_DEFINES may
#                                                    ask for, each assembled (one that does not fails the
#                                                    script: hand-written PTX is checked only here without a
#                                                    GPU), its loop's shortest path, that a turn and
#                                                    that a node (the look-ahead, the default: 0.708 of a
#                                                    turn a node, its dead ends and last row taking none; a
#                                                    turn a node without it)
#   SASS_ARCH=sm_80 scripts/gpu-sass-count.sh        another architecture
#   SASS_DUMP=1 ...                                  also prints the loop's SASS
#   SASS_PIPES=1 ...                                 also prints the shortest path's instructions by the pipe
#                                                    that issues them on sm_90 (results/gpu.md, the nineteenth
#                                                    session): alu (integer logic, shifts, adds: 64 lanes a
#                                                    cycle a multiprocessor), fma (IMAD: 64), xu (POPC, FLO:
#                                                    16), lsu (shared and global memory), VIADD apart
#
# How: the kernel is compiled to PTX by nvcc's front end (NVVM, the compiler NVRTC wraps) with the options the
# program gives NVRTC at run time (src/gpu/cuda.rs: `--gpu-architecture` and the `NQ_*` defines),
# assembled by ptxas -O3 (what the driver's JIT does with the PTX) and read with nvdisasm. The search loop is
# the smallest loop (a backward branch) that loads from shared memory and counts bits (POPC); a kernel without
# one gives its largest innermost loop. It prints the loop's instructions and two paths from its head to its
# backward branch: the shortest (the common path when the rare cases, such as taking the next task, are
# branched off it) and the longest. A branch-free loop has all three equal: one turn, one node.
# It also prints the registers a thread uses, by ptxas (32 for the look-ahead's builds: far below the 102 that
# would cost blocks a multiprocessor; the shared memory bounds them).
#
# Tools: nvcc, ptxas and nvdisasm from $CUDA_BIN, else from PATH, else from /work/cuda-venv
# (`python3 -m venv /work/cuda-venv && /work/cuda-venv/bin/pip install nvidia-cuda-nvcc nvidia-cuda-nvdisasm`).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = --all ]; then
  # A turn is a node without the look-ahead (NQ_PLAIN); with it, the turns are 70.8% of the nodes at n = 19
  # (its dead ends and the last row's solutions take none; tests/gpu_ptx.rs, `instructions_a_node`,
  # results/gpu.md), 63.6% with the next row's frame (NQ_AHEAD_FRAME: 0.898 of the default's passes). (The
  # variants a GPU measured slower went from the kernel in the twenty-seventh and thirty-second sessions.)
  # "square": as the program builds the kernel for a square board (NQ_LAST_UNPUSHED); "narrow": boards to 24
  # wide (NQ_NARROW); "to-s32": the program's sentinels to the thirty-second session, in the words' top bits.
  printf '%-52s %8s %8s %8s\n' "variant (turns between tests, sentinels)" shortest "a turn" "a node"
  while read -r turns share label defines; do
    # shellcheck disable=SC2086 # the defines are words
    line=$("$0" $defines | tail -1) || { echo "$label: did not assemble" >&2; exit 1; }
    shortest=${line##*shortest }
    shortest=${shortest%%,*}
    printf '%-52s %8s %8s %8s\n' "$label" "$shortest" \
      "$(awk -v s="$shortest" -v t="$turns" 'BEGIN{printf "%.2f", s/t}')" \
      "$(awk -v s="$shortest" -v t="$turns" -v r="$share" 'BEGIN{printf "%.2f", s/t*r}')"
  done <<'LIST'
16 0.708 default,16,narrow(boards19-24) -D NQ_UNROLL=16u -D NQ_NARROW
16 0.708 default,16,narrow,square(n19-24) -D NQ_LAST_UNPUSHED -D NQ_UNROLL=16u -D NQ_NARROW
8 0.708 default,8,narrow(boards-to-18) -D NQ_UNROLL=8u -D NQ_NARROW
8 0.708 default,8,narrow,square(n-to-18) -D NQ_LAST_UNPUSHED -D NQ_UNROLL=8u -D NQ_NARROW
16 0.708 default,16,wide(boards25-28) -D NQ_UNROLL=16u
16 0.708 default,16,wide,square(n25-28) -D NQ_LAST_UNPUSHED -D NQ_UNROLL=16u
16 0.708 NQ_TURN_C,16,narrow -D NQ_TURN_C -D NQ_UNROLL=16u -D NQ_NARROW
16 0.708 NQ_UNCOUNTED,16,narrow -D NQ_UNCOUNTED -D NQ_UNROLL=16u -D NQ_NARROW
16 0.708 NQ_UNCOUNTED,16,narrow,square -D NQ_UNCOUNTED -D NQ_LAST_UNPUSHED -D NQ_UNROLL=16u -D NQ_NARROW
16 0.636 NQ_AHEAD_FRAME,16,narrow,square -D NQ_AHEAD_FRAME -D NQ_LAST_UNPUSHED -D NQ_UNROLL=16u -D NQ_NARROW
16 0.636 NQ_AHEAD_FRAME,16,wide,square -D NQ_AHEAD_FRAME -D NQ_LAST_UNPUSHED -D NQ_UNROLL=16u
8 0.636 NQ_AHEAD_FRAME,8,narrow,square -D NQ_AHEAD_FRAME -D NQ_LAST_UNPUSHED -D NQ_UNROLL=8u -D NQ_NARROW
16 0.636 NQ_AHEAD_FRAME+NQ_UNCOUNTED,16,narrow,square -D NQ_AHEAD_FRAME -D NQ_UNCOUNTED -D NQ_LAST_UNPUSHED -D NQ_UNROLL=16u -D NQ_NARROW
16 0.636 NQ_AHEAD_FRAME,16,narrow -D NQ_AHEAD_FRAME -D NQ_UNROLL=16u -D NQ_NARROW
16 1 NQ_PLAIN,16,narrow -D NQ_PLAIN -D NQ_UNROLL=16u -D NQ_NARROW
8 1 NQ_PLAIN,8,narrow -D NQ_PLAIN -D NQ_UNROLL=8u -D NQ_NARROW
16 1 NQ_PLAIN,16,wide -D NQ_PLAIN -D NQ_UNROLL=16u
16 1 NQ_PLAIN+NQ_TURN_C,16,narrow -D NQ_PLAIN -D NQ_TURN_C -D NQ_UNROLL=16u -D NQ_NARROW
16 0.708 to-s32:default,16,2x8,square(n19-24) -D NQ_LAST_UNPUSHED -D NQ_UNROLL=16u -D NQ_SENTINEL_SQUARES=8u
8 0.708 to-s32:default,8,2x4,square(n25-28) -D NQ_LAST_UNPUSHED -D NQ_UNROLL=8u -D NQ_SENTINEL_SQUARES=4u
LIST
  exit 0
fi
file=$root/src/gpu/count.cu
arch=${SASS_ARCH:-sm_90}
defines=()
extra=()
ptx=
while [ $# -gt 0 ]; do
  case "$1" in
  --file) file=$2; shift 2 ;;
  --ptx) ptx=$2; shift 2 ;;
  -D) defines+=("-D$2"); shift 2 ;;
  -D*) defines+=("$1"); shift ;;
  *) extra+=("$1"); shift ;;
  esac
done
# The turns between tests for a task's end and the sentinel, as the program picks them for boards 19 to 24
# wide (src/gpu/task.rs: sixteen turns, one sentinel of the whole word, the kernel's default, and NQ_NARROW),
# unless given; another kernel (--file) gets its own default.
if [ "$file" = "$root/src/gpu/count.cu" ] && [ -z "$ptx" ]; then
  if [[ " ${defines[*]:-} " != *" -DNQ_UNROLL="* ]] && [[ " ${defines[*]:-} " != *" -DNQ_SENTINEL_SQUARES="* ]]; then
    defines+=("-DNQ_UNROLL=16u" "-DNQ_NARROW")
  fi
  # The block's threads, which the program passes too (src/gpu/cuda.rs) and the kernel takes as a constant.
  if [[ " ${defines[*]:-} " != *" -DNQ_THREADS="* ]]; then
    defines+=("-DNQ_THREADS=128u")
  fi
fi

find_tool() {
  local t=$1
  if [ -n "${CUDA_BIN:-}" ] && [ -x "$CUDA_BIN/$t" ]; then echo "$CUDA_BIN/$t"; return; fi
  if command -v "$t" >/dev/null 2>&1; then command -v "$t"; return; fi
  local v
  for v in /work/cuda-venv/lib/python3*/site-packages/nvidia/cu*/bin/"$t"; do
    [ -x "$v" ] && { echo "$v"; return; }
  done
  echo "no $t: set CUDA_BIN or install nvidia-cuda-nvcc and nvidia-cuda-nvdisasm (see the top of $0)" >&2
  exit 1
}
nvcc=$(find_tool nvcc)
ptxas=$(find_tool ptxas)
nvdisasm=$(find_tool nvdisasm)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -n "$ptx" ]; then
  cp "$ptx" "$work/k.ptx"
  file=$ptx
else
  "$nvcc" --ptx -arch="compute_${arch#sm_}" -I"$(dirname "$file")" \
    "${defines[@]}" "${extra[@]}" -o "$work/k.ptx" -x cu "$file"
fi
# -v: the registers a thread uses (a multiprocessor's 65,536 give 640 threads, five blocks of 128, at most 102).
"$ptxas" -v -O3 -arch="$arch" -o "$work/k.cubin" "$work/k.ptx" 2>"$work/ptxas.txt" || {
  cat "$work/ptxas.txt" >&2
  exit 1
}
"$nvdisasm" -c "$work/k.cubin" >"$work/k.sass"

echo "kernel: ${file#"$root"/} ${defines[*]:-} ($arch; $("$nvcc" --version | grep -o 'release [0-9.]*'))"
grep -o 'Used [0-9]* registers' "$work/ptxas.txt" | head -1 || true
python3 - "$work/k.sass" "${SASS_DUMP:-0}" "${SASS_PIPES:-0}" <<'EOF'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
dump = sys.argv[2] == "1"
pipes = sys.argv[3] == "1"
ins, labels = [], {}
for line in lines:
    m = re.match(r"\s*(\.L_x_\d+|[A-Za-z_]\w*):\s*$", line)
    if m:
        labels[m.group(1)] = len(ins)
        continue
    m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;?\s*$", line)
    if m:
        ins.append(m.group(2).rstrip(" ;"))
def target(text):
    m = re.search(r"BRA\b.*`\((\.L_x_\d+)\)", text)
    return labels.get(m.group(1)) if m else None
loops = [(target(t), i) for i, t in enumerate(ins) if target(t) is not None and target(t) <= i]
if not loops:
    sys.exit("no loop found")
inner = [l for l in loops if not any(o != l and l[0] <= o[0] and o[1] <= l[1] for o in loops)]
# The search counts a row's free columns (POPC) and loads its stack from shared memory (LDS) in every turn: take
# the smallest loop that does both (it may hold smaller loops, such as a task's set-up in a loop that takes the
# next task without leaving the search); else the largest innermost loop.
def loads_entries(l):
    body = [re.sub(r"^@!?U?P[T0-9]+\s+", "", ins[i]) for i in range(l[0], l[1] + 1)]
    return any(b.startswith("LDS") for b in body) and any(b.startswith("POPC") for b in body)
searching = [l for l in loops if loads_entries(l)]
head, back = min(searching, key=lambda l: l[1] - l[0]) if searching else max(inner, key=lambda l: l[1] - l[0])
# Basic blocks of the span: successors of each instruction inside [head, back].
def succ(i):
    t, out = ins[i], []
    tgt = target(t)
    uncond = re.match(r"(BRA|EXIT|RET)\b", t) is not None
    if tgt is not None and head <= tgt <= back and i != back:
        out.append(tgt)
    if not uncond and i < back:
        out.append(i + 1)
    if re.match(r"@!?U?P\w+\s+(EXIT|RET)", t) and i < back:
        out = [i + 1]
    return out
import heapq
def shortest():
    dist, q, prev = {head: 1}, [(1, head)], {}
    while q:
        d, i = heapq.heappop(q)
        if i == back:
            path = [i]
            while path[-1] != head:
                path.append(prev[path[-1]])
            shortest.path = path[::-1]
            return d
        if d > dist.get(i, 1 << 30):
            continue
        for j in succ(i):
            if d + 1 < dist.get(j, 1 << 30):
                dist[j] = d + 1
                prev[j] = i
                heapq.heappush(q, (d + 1, j))
def longest():
    # Forward edges only (the span is acyclic once its own back edge is cut).
    best = {head: 1}
    for i in range(head, back + 1):
        if i not in best:
            continue
        for j in succ(i):
            if j > i:
                best[j] = max(best.get(j, 0), best[i] + 1)
    return best.get(back)
span = back - head + 1
short = shortest()
if pipes:
    # Which pipe of an sm_90 multiprocessor issues each instruction of the shortest path (Nsight Compute's
    # names; VIADD, new with sm_90, is counted apart: its pipe is not documented).
    def pipe(text):
        op = re.sub(r"^@!?U?P\w+\s+", "", text).split()[0].split(".")[0]
        if op in ("LOP3", "SHF", "IADD3", "LEA", "ISETP", "SEL", "PRMT", "PLOP3", "IMNMX", "IABS"):
            return "alu"
        if op in ("IMAD", "IMUL", "FFMA", "FADD", "FMUL", "HFMA2"):
            return "fma"
        if op in ("POPC", "FLO", "BREV", "MUFU"):
            return "xu"
        if op in ("LDS", "STS", "LDG", "STG", "ATOMS", "ATOMG", "RED", "REDG", "LD", "ST"):
            return "lsu"
        return "viadd" if op == "VIADD" else "other"
    counts = {}
    for i in shortest.path:
        counts[pipe(ins[i])] = counts.get(pipe(ins[i]), 0) + 1
    print("shortest path by pipe: " + ", ".join(f"{k} {counts.get(k, 0)}" for k in ("alu", "fma", "xu", "lsu", "viadd", "other")))
print(f"search loop: {span} instructions in its body; head to back edge: shortest {short}, longest {longest()}")
if dump:
    for i in range(head, back + 1):
        print(f"  {i - head:3d}  {ins[i]}")
EOF
