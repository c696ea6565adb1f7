#!/usr/bin/env bash
# Measures what checkpoints cost (wall and CPU time, as other work on the machine skews the wall time) and that killed runs resume exactly (results/checkpoint.md).
#   scripts/measure-checkpoint.sh overhead [N] [RUNS]   n = 17 with and without --checkpoint, interleaved
#   scripts/measure-checkpoint.sh kills N TRIALS SECONDS  kill -9 at a random moment in (0, SECONDS), resume, check
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${NQUEENS:-target/release/nqueens}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

seconds_of() { # prints the wall time and the CPU time (user + system) of a command, in seconds
  local TIMEFORMAT='%R %U %S' t
  t=$( { time "$@" >/dev/null 2>&1; } 2>&1 )
  echo "$t" | awk '{ printf "wall %.2f s cpu %.2f s", $1, $2 + $3 }'
}

case "${1:-}" in
overhead)
  n=${2:-17}
  runs=${3:-5}
  for i in $(seq "$runs"); do
    plain=$(seconds_of "$bin" count "$n" --split-depth 2 -q)
    rm -f "$work/j"
    journal=$(seconds_of "$bin" count "$n" --split-depth 2 -q --checkpoint "$work/j")
    echo "run $i: without: $plain; with checkpoint: $journal ($(wc -l <"$work/j") journal lines, $(du -k "$work/j" | cut -f1) KiB)"
  done
  ;;
kills)
  n=$2 trials=$3 span=$4
  for i in $(seq "$trials"); do
    rm -f "$work/j"
    delay=$(awk -v s="$RANDOM" -v span="$span" 'BEGIN { srand(s); printf "%.3f", 0.05 + rand() * span }')
    "$bin" count "$n" -q --checkpoint "$work/j" >/dev/null 2>&1 &
    pid=$!
    sleep "$delay"
    if kill -9 "$pid" 2>/dev/null; then killed=yes; else killed=no; fi
    wait "$pid" 2>/dev/null || true
    # A kill before the journal was created leaves none: the resume starts afresh.
    before=0
    [ -f "$work/j" ] && before=$(($(wc -l <"$work/j") - 1))
    out=$("$bin" count "$n" --check --format csv -q --checkpoint "$work/j")
    total=$(echo "$out" | sed -n 2p | cut -d, -f2)
    check=$(echo "$out" | sed -n 2p | cut -d, -f12)
    units=$(($(wc -l <"$work/j") - 1))
    distinct=$(grep -o '"unit":[0-9]*' "$work/j" | sort -u | wc -l)
    echo "trial $i: kill -9 at ${delay}s (landed: $killed), $before units saved, resumed: total $total $check, $units journal lines, $distinct distinct"
  done
  ;;
*)
  echo "usage: $0 overhead [N] [RUNS] | kills N TRIALS SECONDS" >&2
  exit 2
  ;;
esac
