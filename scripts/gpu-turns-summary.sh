#!/usr/bin/env bash
# Sums up what part `turn` or `ahead` of scripts/gpu-session.sh printed (a developer tool, not part of CI):
# for each board and variant, each run's kernels' time and wall time, their means, and the kernels' mean
# against the default's (below 1: faster).
#
#   scripts/gpu-turns-summary.sh OUT/ahead.txt
set -euo pipefail
awk '
  /^# n = [0-9]+, defines: / {
    n = $4; sub(/,$/, "", n)
    d = $0; sub(/^# n = [0-9]+, defines: /, "", d)
    if (d ~ /^none/) d = "default"
    key = n SUBSEP d
    if (!(key in seen)) { seen[key] = 1; order[++count] = key }
    next
  }
  key != "" && / s of kernels/ {
    line = $0; sub(/ s of kernels.*/, "", line); k = line; sub(/.* /, "", k)
    kernels[key] = kernels[key] " " k; ksum[key] += k; kn[key]++
    next
  }
  key != "" && /^wall / {
    walls[key] = walls[key] " " $2; wsum[key] += $2; wn[key]++
    key = ""
  }
  END {
    printf "%-4s %-44s %-28s %-28s %s\n", "n", "variant", "kernels (s)", "wall (s)", "kernels / default'"'"'s"
    for (i = 1; i <= count; i++) {
      split(order[i], p, SUBSEP)
      base = p[1] SUBSEP "default"
      rel = (kn[order[i]] && kn[base]) ? sprintf("%.3f", (ksum[order[i]] / kn[order[i]]) / (ksum[base] / kn[base])) : "-"
      printf "%-4s %-44s %-28s %-28s %s\n", p[1], p[2], kernels[order[i]], walls[order[i]], rel
    }
  }
' "$@"
