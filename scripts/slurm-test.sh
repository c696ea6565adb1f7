#!/usr/bin/env bash
# A real single-node Slurm cluster for the shard tests: munged, slurmctld and slurmd on 127.0.0.1, inside a
# fresh network namespace where one exists (so its ports meet nothing else on the machine), all state in a
# temporary folder that is removed afterwards. It runs a job array of nqueens shards, an srun step whose
# tasks read their shard from Slurm's environment, and merges both sets of journals.
#
#   scripts/slurm-test.sh [--install] [N] [SHARDS]     (defaults: N = 12, SHARDS = 4)
#
# NQUEENS names the binary (default target/release/nqueens). --install installs Debian's munge, slurmctld,
# slurmd and slurm-client with apt-get first. Exit codes: 0 passed, 77 skipped (the reason is printed: not
# root, packages missing), anything else failed.
set -euo pipefail
self=$(realpath "$0")
cd "$(dirname "$self")/.."

skip() {
  echo "slurm-test: skipped: $*" >&2
  exit 77
}

install=no
if [ "${1:-}" = "--install" ]; then
  install=yes
  shift
fi
n=${1:-12}
shards=${2:-4}
bin=$(realpath "${NQUEENS:-target/release/nqueens}")
[ -x "$bin" ] || { echo "slurm-test: no binary at $bin: build with cargo build --release" >&2; exit 1; }

[ "$(id -u)" = 0 ] || skip "slurmd and munged need root"
if [ "$install" = yes ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq munge slurmctld slurmd slurm-client iproute2 >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq munge slurmctld slurmd slurm-client iproute2 >/dev/null; } ||
    skip "apt-get could not install munge and slurm"
fi
for tool in munged slurmctld slurmd sbatch srun sinfo; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (apt-get install munge slurmctld slurmd slurm-client, or pass --install)"
done

# Into a network namespace of our own, once: only its loopback exists, so nothing outside can reach the daemons.
if [ -z "${NQUEENS_SLURM_NETNS:-}" ]; then
  if command -v unshare >/dev/null && command -v ip >/dev/null && unshare -n true 2>/dev/null; then
    NQUEENS_SLURM_NETNS=1 NQUEENS="$bin" exec unshare -n -- "$self" "$n" "$shards"
  fi
  echo "slurm-test: no network namespace here; using the host's loopback" >&2
else
  ip link set lo up
  # Slurm binds its ports through getaddrinfo with AI_ADDRCONFIG, which finds nothing where only a loopback
  # exists: a veth pair with a private address gives it one (no dummy driver is needed, and no route leaves).
  ip link add nqueens0 type veth peer name nqueens1
  ip addr add 10.254.254.1/24 dev nqueens0
  ip link set nqueens0 up
  ip link set nqueens1 up
fi

dir=$(mktemp -d /tmp/nqueens-slurm.XXXXXX)
chmod 755 "$dir"
cleanup() {
  for pidfile in "$dir"/slurmd.pid "$dir"/slurmctld.pid "$dir"/munged.pid; do
    [ -s "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true
  done
  sleep 0.5
  if [ "${NQUEENS_SLURM_KEEP:-}" = 1 ]; then echo "slurm-test: kept $dir" >&2; else rm -rf "$dir"; fi
}
trap cleanup EXIT
fail() {
  echo "slurm-test: FAILED: $*" >&2
  for log in "$dir"/*.log; do echo "--- $log" >&2; tail -n 20 "$log" >&2; done
  exit 1
}

# Ports chosen at random, in case there is no namespace and another cluster runs on the host.
ctld_port=$((20000 + RANDOM % 20000))
slurmd_port=$((ctld_port + 1))
mkdir -p "$dir"/state "$dir"/spool "$dir"/out
dd if=/dev/urandom of="$dir"/munge.key bs=1024 count=1 status=none
chmod 400 "$dir"/munge.key
munged --force --socket="$dir"/munge.sock --key-file="$dir"/munge.key --pid-file="$dir"/munged.pid \
  --log-file="$dir"/munged.log --seed-file="$dir"/munge.seed ||
  fail "munged did not start"

cpus=$(nproc)
cat >"$dir"/slurm.conf <<EOF
ClusterName=nqueens
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge.sock
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=localhost NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$dir"/slurm.conf
# Slurm reads the munge socket for clients from the same setting.
slurmctld -c -f "$SLURM_CONF" || fail "slurmctld did not start"
slurmd -N localhost -f "$SLURM_CONF" || fail "slurmd did not start"

for _ in $(seq 60); do
  state=$(timeout 5 sinfo -h -N -o %T 2>/dev/null | head -1 || true)
  case "$state" in idle*) break ;; esac
  sleep 0.5
done
case "${state:-}" in idle*) ;; *) fail "the node did not come up (state '${state:-none}')" ;; esac
echo "slurm-test: cluster up ($cpus CPUs); n = $n in $shards shards" >&2

# A job array, one shard a task, the way the README shows it.
cat >"$dir"/shards.sbatch <<EOF
#!/bin/bash
#SBATCH --array=0-$((shards - 1))
#SBATCH --cpus-per-task=1
#SBATCH --output=$dir/out/array-%a.log
"$bin" count $n --threads 1 --shard "\$SLURM_ARRAY_TASK_ID/$shards" \
  --checkpoint "$dir/out/array-\$SLURM_ARRAY_TASK_ID-of-$shards.journal" --quiet
EOF
timeout 120 sbatch --wait --chdir="$dir" "$dir"/shards.sbatch >/dev/null || fail "the job array failed"
"$bin" merge --quiet --format csv "$dir"/out/array-*-of-"$shards".journal >"$dir"/array.csv ||
  fail "merging the job array's journals: $(cat "$dir"/out/array-*.log)"

# An srun step: each task reads its shard from SLURM_PROCID and SLURM_NTASKS.
timeout 120 srun --ntasks=2 --cpus-per-task=1 --chdir="$dir" \
  "$bin" count "$n" --threads 1 --shard auto --checkpoint "$dir/out/srun-{k}-of-{m}.journal" --quiet \
  >/dev/null 2>"$dir"/srun.log || fail "the srun step failed: $(cat "$dir"/srun.log)"
"$bin" merge --quiet --format csv "$dir"/out/srun-*-of-2.journal >"$dir"/srun.csv || fail "merging the srun journals"

# A field of the first record of a CSV file, found by its header's name (columns may be added).
field() {
  awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) col = i }
    NR == 2 { if (col) print $col; exit }' "$1"
}
array_total=$(field "$dir"/array.csv total)
srun_total=$(field "$dir"/srun.csv total)
check=$(field "$dir"/array.csv check)
echo "slurm-test: job array of $shards: total $array_total ($check); srun of 2 tasks: total $srun_total" >&2
[ "$array_total" = "$srun_total" ] || fail "the job array and srun disagree"
[ "$check" = ok ] || fail "the merged total is not the published one"
echo "slurm-test: passed"
