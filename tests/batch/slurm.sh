#!/usr/bin/env bash
# rigfit batch on a real scheduler: a single-node Slurm cluster from Debian's packages (slurmctld,
# slurmd, slurm-client, munge), started as root without systemd in a temporary folder on free
# ports, runs a manifest as a job array with tools/slurm/batch-array.sh (the README's job script).
# 1. The array's outputs equal one plain `rigfit batch` run byte for byte.
# 2. In a fresh folder, one array task is cancelled mid-run (scancel); the same script submitted
#    again resumes it (--resume): complete, identical, no temporary files left. The task is held
#    mid-run by its third line, whose body mesh is then a named pipe: reading it waits until the
#    cancel, so the test does not depend on timing.
# The daemons it started are stopped on exit. It needs root (or sudo without a password, then it
# runs itself through sudo) and the packages (.ci/run installs them), and fails without them.
# usage: slurm.sh RIGFIT DATA SRC
set -euo pipefail
if [ "$(id -u)" != 0 ] && sudo -n true 2>/dev/null; then exec sudo -n bash "$0" "$@"; fi
RIGFIT=$(realpath "$1") DATA=$(realpath "$2") SRC=$(realpath "$3")
export PATH="$(dirname "$RIGFIT"):$PATH:/usr/sbin:/sbin"
fail() { echo "FAIL: $*"; exit 1; }
[ -f "$DATA/3dobjs/base.obj" ] || fail "MPFB data missing at $DATA"
[ "$(id -u)" = 0 ] || fail "needs root: the Slurm daemons run as root without systemd"
for b in munged slurmctld slurmd sbatch scancel scontrol sinfo; do
  command -v "$b" >/dev/null || fail "$b missing: apt-get install slurmctld slurmd slurm-client munge"
done
[ "$(basename "$(command -v rigfit)")" = rigfit ] && [ "$(command -v rigfit)" -ef "$RIGFIT" ] || fail "rigfit on the PATH is not $RIGFIT"
JOB_SCRIPT=$SRC/tools/slurm/batch-array.sh
# The README shows this job script as it is.
readme_script=$(awk -v m="<!-- slurm-job-script -->" '$0 == m {f = 1; next} f && /^```/ {if (in_b) exit; in_b = 1; next} in_b' "$SRC/README.md")
[ "$readme_script" = "$(cat "$JOB_SCRIPT")" ] || fail "the README's Slurm job script differs from $JOB_SCRIPT"

T=$(mktemp -d)
chmod 755 "$T"
PIDS=()
cleanup() {
  if [ ${#PIDS[@]} -ge 3 ]; then  # the daemons were started: end the jobs before them
    timeout 20 scancel --quiet --user=root 2>/dev/null || true
    for i in $(seq 100); do [ -z "$(timeout 5 squeue -h 2>/dev/null)" ] && break; sleep 0.1; done
  fi
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$T"
}
trap cleanup EXIT
dump_logs() {
  for f in "$T"/log/*.log "$T"/run*/slurm-*.out; do [ -f "$f" ] && { echo "== $f"; tail -n 30 "$f"; }; done
  true
}

# Free TCP ports for slurmctld and slurmd (several clusters may run on one machine).
read -r CTLD_PORT SLURMD_PORT < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')

mkdir -p "$T/munge" "$T/log" "$T/state" "$T/spool"
chmod 700 "$T/munge"
dd if=/dev/urandom of="$T/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$T/munge/munge.key"
munged --foreground --force --socket="$T/munge/munge.socket" --key-file="$T/munge/munge.key" \
  --pid-file="$T/munge/munged.pid" --seed-file="$T/munge/munged.seed" --log-file="$T/log/munged.log" >"$T/log/munged.out" 2>&1 &
PIDS+=($!)

NODE=$(slurmd -C | head -n 1 | sed 's/ UpTime=.*//')  # NodeName=HOST CPUs=... as slurmd sees this machine
HOST=$(hostname -s)
export SLURM_CONF=$T/slurm.conf
cat >"$SLURM_CONF" <<CONF
ClusterName=rigfit-test
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/munge/munge.socket
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
KillWait=5
$NODE NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=batch Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF

for i in $(seq 100); do [ -S "$T/munge/munge.socket" ] && break; sleep 0.1; done
slurmctld -D -f "$SLURM_CONF" >"$T/log/slurmctld.out" 2>&1 &
PIDS+=($!)
slurmd -D -f "$SLURM_CONF" >"$T/log/slurmd.out" 2>&1 &
PIDS+=($!)
idle=""
for i in $(seq 300); do
  idle=$(sinfo -h -o %T 2>/dev/null || true)
  [ "$idle" = idle ] && break
  sleep 0.2
done
[ "$idle" = idle ] || { dump_logs; fail "the node did not come up (state: '$idle')"; }
echo "slurm up: $NODE, ports $CTLD_PORT/$SLURMD_PORT"

# Sixteen characters, four per shard: rigs, formats (a .gltf writes a .bin beside it) and shapes;
# line 10 (shard 1's third) reads its body mesh from held.obj in the folder it runs in.
MANIFEST=$T/characters.jsonl
python3 - "$MANIFEST" <<'PY'
import json, sys
rigs = ["game_engine", "cmu_mb", "mixamo", "openpose"]
formats = ["glb", "g4b", "gltf", "glb"]
with open(sys.argv[1], "w") as f:
    for i in range(16):
        line = {"name": f"c{i:02d}", "rig": rigs[i % 4], "format": formats[i // 4],
                "shape": {"macros": {"gender": (i % 3) / 2, "muscle": (i % 5) / 4, "weight": (i % 7) / 6}, "ground": True}}
        if i == 9: line["mesh"] = "held.obj"
        f.write(json.dumps(line) + "\n")
PY
export RIGFIT_DATA=$DATA
mkdir -p "$T/run1" "$T/run2"
for d in "$T/run1" "$T/run2"; do cp "$MANIFEST" "$d/characters.jsonl"; done
for d in "$T" "$T/run1"; do cp "$DATA/3dobjs/base.obj" "$d/held.obj"; done
mkfifo "$T/run2/held.obj"
(cd "$T" && rigfit batch characters.jsonl --out-dir ref --jobs 2)
REF_FILES=$(cd "$T/ref" && ls | sort)
[ "$(echo "$REF_FILES" | wc -l)" = 20 ] || fail "reference run: $(echo "$REF_FILES" | tr '\n' ' ')"

# The characters in DIR equal the reference run's; every shard's summary is complete.
check_run() {
  local dir=$1 got
  got=$(cd "$dir/out" && ls | grep -v '^summary\.' | sort)
  [ "$got" = "$REF_FILES" ] || fail "$dir: outputs $(echo "$got" | tr '\n' ' ')"
  for f in $REF_FILES; do cmp "$T/ref/$f" "$dir/out/$f" || fail "$dir/out/$f differs from one plain run"; done
  ! find "$dir/out" -name '.*.rigfit-tmp-*' | grep . || fail "$dir: temporary files left"
  python3 - "$dir/out" <<'PY'
import json, sys
out = sys.argv[1]
seen = []
for i in range(4):
    s = json.load(open(f"{out}/summary.{i}.json"))
    assert s["shard"] == {"index": i, "count": 4} and s["totals"]["failed"] == 0 and s["totals"]["ok"] == 4, s["totals"]
    seen += [l["name"] for l in s["lines"] if l["status"] == "ok"]
assert sorted(seen) == [f"c{i:02d}" for i in range(16)], seen
PY
}

# Submits the job script as an array of four tasks from DIR and waits for it to end.
submit() { (cd "$1" && sbatch --array=0-3 --wait "$JOB_SCRIPT"); }

# 1. One array run: the same files as one plain run.
submit "$T/run1" || { dump_logs; fail "the job array failed"; }
check_run "$T/run1"
echo "array run: the same 20 files as one plain run"

# 2. Task 1 cancelled while its third line waits on the named pipe (its first two recorded);
# the script submitted again, with a mesh in the pipe's place, resumes it.
JOURNAL=$T/run2/out/.rigfit-batch.characters.jsonl.1-of-4.journal
submit "$T/run2" &
SUBMIT=$!
for i in $(seq 3000); do
  [ -f "$JOURNAL" ] && [ "$(wc -l <"$JOURNAL")" = 3 ] && break  # the header and two characters
  sleep 0.1
done
[ -f "$JOURNAL" ] && [ "$(wc -l <"$JOURNAL")" = 3 ] || { dump_logs; fail "task 1 did not reach its third line"; }
JOB=$(squeue -h -o %F | sort -u)  # the array's job id: the only job of this cluster
[ -n "$JOB" ] && [ "$(echo "$JOB" | wc -l)" = 1 ] || fail "job id: '$JOB'"
scancel "${JOB}_1"
wait "$SUBMIT" && fail "the array succeeded although task 1 was cancelled"
[ ! -e "$T/run2/out/summary.1.json" ] || fail "task 1 finished although it was cancelled"
[ "$(wc -l <"$JOURNAL")" = 3 ] || fail "task 1 recorded more than two characters"
rm "$T/run2/held.obj"
cp "$DATA/3dobjs/base.obj" "$T/run2/held.obj"
submit "$T/run2" || { dump_logs; fail "the resubmitted job array failed"; }
check_run "$T/run2"
python3 - "$T/run2/out" <<'PY'
import json, sys
out = sys.argv[1]
for i in range(4):
    s = json.load(open(f"{out}/summary.{i}.json"))
    skipped = [l["name"] for l in s["lines"] if l["skipped"]]
    assert len(skipped) == s["totals"]["skipped"] and skipped == (["c01", "c05"] if i == 1 else [l["name"] for l in s["lines"]]), (i, skipped)
print("resubmitted: task 1 skipped c01 and c05 and made c09 and c13; the other tasks skipped all")
PY
echo "ok"
