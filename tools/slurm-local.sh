#!/usr/bin/env bash
# slurm-local.sh: the Slurm jobs of docs/distributed.md, as they are written there, on a real
# one-node cluster.
#   - Installs Debian's slurm-wlm and munge when a command of theirs is missing (apt-get).
#   - Starts munged, slurmctld and slurmd bound to 127.0.0.1 on free ports, with the munge key
#     and socket, slurm.conf, state, spool, logs and pid files in one temporary folder
#     (SLURM_CONF points there: no system file is read or changed).
#   - Saves each block marked `<!-- slurm-local: FILE -->` in docs/distributed.md as FILE in a
#     folder holding the checkout's assets/, runs submit.sh there (the cost table, the sweep
#     array, the merge after it, the thumbnail array) and waits for every job.
#   - Checks: every slice and the merge ended COMPLETED with exit 0; each sweep slice's log names
#     its slice, says the points run in other slices are run there (never "failed (0 runs)"),
#     and draws no frontier and no recommendation; the merged sweep equals the sweep job run
#     once unsharded (the same points and runs; decodes, placeholder frames, hitches, frames and
#     logical bytes equal run by run; peak resident within 10 %; the same recommendation); the
#     thumbnail slices made every file once, and their outputs are byte for byte those of the
#     thumbnail job run once unsliced; submitted again, each slice writes all its files from its
#     own cache, the same bytes.
# An unsharded run is the job script itself run by bash outside Slurm: no SLURM_ARRAY_*
# variable, and `$SLURM_ARRAY_TASK_ID` in its file names replaced by `whole`.
# A trap cancels the jobs, stops the daemons this run started (by their pid files, each pid
# checked to be that daemon of this run, so a stale pid file stops nothing else) and removes
# the folder, on success, failure or Ctrl-C; KEEP=1 keeps the folder (logs, outputs).
# RETENTION=PATH uses a binary already built (otherwise `swift build -c release` makes one).
# SLURM_LOCAL_TIMEOUT bounds each wait (default 600 s). Prints a short report; exit 0 when
# every check holds, 1 at the first that does not (one line naming it, then the log it
# concerns). About 2 minutes on 2 cores with the binary built.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH=$PATH:/usr/sbin:/sbin
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
  export PATH=/opt/swift/usr/bin:$PATH
fi
started=$(date +%s)
timeout=${SLURM_LOCAL_TIMEOUT:-600}
docs=$root/docs/distributed.md
work=""

say() { echo "slurm-local: $*"; }

# fail MESSAGE [FILE...]: one line naming what failed, then the last lines of each FILE.
fail() {
  local message=$1 file
  shift
  echo "slurm-local: FAILED: $message" >&2
  for file in "$@"; do
    if [ -s "$file" ]; then
      echo "  --- last lines of $file ---" >&2
      tail -n 25 "$file" | sed 's/^/  | /' >&2
    else
      echo "  --- $file: missing or empty ---" >&2
    fi
  done
  exit 1
}

# is_ours PID NAME: PID is a live NAME process of this run (its command line names this run's
# folder). A pid file left by a daemon that died names a pid that is gone or reused: not ours.
is_ours() {
  local pid=$1 name=$2 command
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  command=$(tr '\0' ' ' 2>/dev/null < "/proc/$pid/cmdline") || return 1
  [ "$(basename "${command%% *}")" = "$name" ] && [[ $command == *"$work/"* ]]
}

# pid_of PIDFILE NAME: the pid in PIDFILE if it is this run's NAME, else nothing.
pid_of() {
  local pid
  pid=$(head -n 1 "$1" 2>/dev/null | tr -dc '0-9') || true
  if [ -n "$pid" ] && is_ours "$pid" "$2"; then echo "$pid"; fi
}

# stop_daemon NAME PIDFILE: TERM, then KILL after 10 s, only if the pid file names ours.
stop_daemon() {
  local name=$1 pid i
  pid=$(pid_of "$2" "$name")
  [ -n "$pid" ] || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 50); do
    is_ours "$pid" "$name" || return 0
    sleep 0.2
  done
  echo "slurm-local: $name (pid $pid) did not stop on TERM within 10 s: KILL" >&2
  kill -KILL "$pid" 2>/dev/null || true
}

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  if [ -n "$work" ] && [ -d "$work" ]; then
    if [ -n "$(pid_of "$work/slurm/slurmctld.pid" slurmctld)" ]; then
      local jobs
      jobs=$(timeout 20 squeue -h -o %A 2>/dev/null | sort -u | tr '\n' ' ') || true
      if [ -n "${jobs// /}" ]; then
        echo "slurm-local: cancelling jobs $jobs" >&2
        # shellcheck disable=SC2086
        timeout 20 scancel $jobs 2>/dev/null || true
        local i
        for i in $(seq 30); do
          [ -z "$(timeout 10 squeue -h -o %A 2>/dev/null)" ] && break
          sleep 0.5
        done
      fi
    fi
    stop_daemon slurmd "$work/slurm/slurmd.pid"
    stop_daemon slurmctld "$work/slurm/slurmctld.pid"
    stop_daemon munged "$work/munge/munged.pid"
    if [ "${KEEP:-0}" = 1 ]; then
      echo "slurm-local: kept $work (KEEP=1)" >&2
    else
      rm -rf "$work"
    fi
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

work=$(mktemp -d "${TMPDIR:-/tmp}/slurm-local.XXXXXX")
# munged refuses a socket in a folder that not everyone may enter.
chmod 755 "$work"
mkdir -p "$work/munge" "$work/slurm/state" "$work/slurm/spool" "$work/bin" "$work/jobs" "$work/whole"

# --- packages -----------------------------------------------------------------------------
# With systemd running and no policy-rc.d, installing also starts Debian's own munge and slurm
# services on their default socket and ports; this run uses neither.
for command in munged munge unmunge slurmctld slurmd sbatch scontrol squeue sinfo scancel; do
  if ! command -v "$command" >/dev/null 2>&1; then
    say "installing slurm-wlm and munge ($command is missing)"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge; } \
      > "$work/apt.log" 2>&1 || fail "apt-get install slurm-wlm munge failed" "$work/apt.log"
    break
  fi
done
slurm_version=$(slurmctld -V 2>&1 | head -n 1)
munge_version=$(munged -V 2>&1 | head -n 1 | cut -d' ' -f1)

# Daemons of another run (one killed before its trap ran) keep their own ports, socket and
# folder, so they do not meet this cluster; name them, leave them alone.
others=""
for dir in /proc/[0-9]*; do
  case $(cat "$dir/comm" 2>/dev/null) in
    munged|slurmctld|slurmd)
      # A zombie (no command line) is already gone.
      [ -n "$(tr -d '\0' < "$dir/cmdline" 2>/dev/null)" ] && others+=" $(basename "$dir") ($(cat "$dir/comm"))" ;;
  esac
done
[ -z "$others" ] || say "note: daemons not of this run are running:$others; this run uses its own ports, socket and folder"

# --- the binary ---------------------------------------------------------------------------
if [ -n "${RETENTION:-}" ]; then
  bin=$RETENTION
  [ -x "$bin" ] || fail "RETENTION=$bin is not an executable"
else
  swift build -c release --product retention > "$work/build.log" 2>&1 \
    || fail "swift build -c release --product retention failed" "$work/build.log"
  bin=$root/.build/release/retention
fi
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
ln -s "$bin" "$work/bin/retention"
export PATH=$work/bin:$PATH

# --- the cluster --------------------------------------------------------------------------
node=$(hostname -s)
# The node's CPUs, sockets and memory as slurmd itself sees them, so it registers as idle
# (a RealMemory over what it finds would drain it).
hardware=$(slurmd -C 2>"$work/slurmd-C.err" | sed -n '1s/^NodeName=[^ ]* *//p')
[ -n "$hardware" ] || fail "slurmd -C printed no node line" "$work/slurmd-C.err"
read -r ctld_port slurmd_port < <(python3 -c '
import socket
sockets = [socket.socket() for _ in range(2)]
for s in sockets: s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in sockets))')

head -c 1024 /dev/urandom > "$work/munge/munge.key"
chmod 600 "$work/munge/munge.key"
socket=$work/munge/munge.socket
munged --socket="$socket" --key-file="$work/munge/munge.key" --pid-file="$work/munge/munged.pid" \
  --log-file="$work/munge/munged.log" --seed-file="$work/munge/munged.seed" 2> "$work/munge/start.err" \
  || fail "munged did not start" "$work/munge/start.err" "$work/munge/munged.log"

conf=$work/slurm/slurm.conf
cat > "$conf" <<CONF
# A one-node cluster for tools/slurm-local.sh: everything under $work, nothing shared.
ClusterName=retention
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
# Bind to the addresses named here (127.0.0.1), not to every address of the machine.
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$work/slurm/state
SlurmdSpoolDir=$work/slurm/spool
SlurmctldPidFile=$work/slurm/slurmctld.pid
SlurmdPidFile=$work/slurm/slurmd.pid
SlurmctldLogFile=$work/slurm/slurmctld.log
SlurmdLogFile=$work/slurm/slurmd.log
# No cgroups: processes are tracked through their parents, tasks are not confined.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
# Keep finished jobs' records (state, exit code) for the whole run.
MinJobAge=3600
NodeName=$node NodeAddr=127.0.0.1 $hardware State=UNKNOWN
PartitionName=local Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$conf

# wait_until SECONDS COMMAND...: true once COMMAND succeeds, false after SECONDS.
wait_until() {
  local deadline=$(( $(date +%s) + $1 ))
  shift
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 0.5
  done
}
munge_answers() { munge -n -S "$socket" | unmunge -S "$socket"; }
controller_up() { scontrol ping | grep -q 'is UP'; }
node_idle() { [ "$(sinfo -h -n "$node" -o %T)" = idle ]; }

wait_until 20 munge_answers || fail "munged does not answer on $socket after 20 s" "$work/munge/munged.log"
slurmctld -f "$conf" 2> "$work/slurm/slurmctld.start.err" \
  || fail "slurmctld did not start" "$work/slurm/slurmctld.start.err" "$work/slurm/slurmctld.log"
wait_until 30 controller_up || fail "slurmctld not up on 127.0.0.1:$ctld_port after 30 s" "$work/slurm/slurmctld.log"
slurmd -f "$conf" 2> "$work/slurm/slurmd.start.err" \
  || fail "slurmd did not start" "$work/slurm/slurmd.start.err" "$work/slurm/slurmd.log"
wait_until 60 node_idle \
  || fail "node $node not idle after 60 s (state: $(sinfo -h -n "$node" -o %T 2>&1))" "$work/slurm/slurmd.log" "$work/slurm/slurmctld.log"
for daemon in munged:munge/munged.pid slurmctld:slurm/slurmctld.pid slurmd:slurm/slurmd.pid; do
  [ -n "$(pid_of "$work/${daemon#*:}" "${daemon%%:*}")" ] || fail "${daemon%%:*} answers, but its pid file $work/${daemon#*:} does not name it"
done
say "$slurm_version, $munge_version: node $node ($(sinfo -h -n "$node" -o '%c CPUs, %m MB')) idle on 127.0.0.1:$ctld_port/$slurmd_port after $(( $(date +%s) - started )) s"

# --- the documented jobs ------------------------------------------------------------------
# Each block marked `<!-- slurm-local: FILE -->` (the next line opening a ```sh fence) becomes FILE.
python3 - "$docs" "$work/jobs" > "$work/extract.log" 2>&1 <<'PY' || fail "docs/distributed.md: $(tail -n 1 "$work/extract.log")"
import os, re, sys
docs, out = sys.argv[1], sys.argv[2]
lines = open(docs, encoding="utf-8").read().split("\n")
found = {}
for i, line in enumerate(lines):
    m = re.fullmatch(r"<!-- slurm-local: ([\w.-]+) -->", line.strip())
    if not m:
        continue
    name = m.group(1)
    if name in found:
        sys.exit(f"two blocks are marked slurm-local: {name} (lines {found[name][0]} and {i + 1})")
    if i + 1 >= len(lines) or lines[i + 1].strip() != "```sh":
        sys.exit(f"the line after <!-- slurm-local: {name} --> (line {i + 1}) is not a ```sh fence")
    try:
        end = next(j for j in range(i + 2, len(lines)) if lines[j].strip() == "```")
    except StopIteration:
        sys.exit(f"the block of slurm-local: {name} (line {i + 2}) is never closed")
    found[name] = (i + 1, "\n".join(lines[i + 2:end]) + "\n")
for name in ("sweep.sh", "merge.sh", "thumbnails.sh", "submit.sh"):
    if name not in found:
        sys.exit(f"no block is marked <!-- slurm-local: {name} -->")
for name, (_, text) in found.items():
    with open(os.path.join(out, name), "w") as f:
        f.write(text)
PY
ln -s "$root/assets" "$work/jobs/assets"
ln -s "$root/assets" "$work/whole/assets"

# flag_value FILE FLAG...: the word after the first of the FLAGs on the command lines of FILE
# (continuation lines joined, quotes removed, variables left as written), or nothing.
flag_value() {
  python3 - "$@" <<'PY'
import shlex, sys
text = open(sys.argv[1]).read().replace("\\\n", " ")
for line in text.splitlines():
    if line.lstrip().startswith("#"):
        continue
    try:
        words = shlex.split(line)
    except ValueError:
        continue
    for i, word in enumerate(words):
        for flag in sys.argv[2:]:
            if word == flag and i + 1 < len(words):
                print(words[i + 1]); sys.exit()
            if flag.startswith("--") and word.startswith(flag + "="):
                print(word[len(flag) + 1:]); sys.exit()
PY
}
# directive FILE NAME: the value of `#SBATCH --NAME=VALUE` in FILE.
directive() { sed -n "s/^#SBATCH --$2=//p" "$1" | head -n 1; }
# log_name PATTERN TASK: an --output pattern with %a (task) and %A (array job) filled in.
log_name() { local name=${1//%a/$2}; echo "${name//%A/$3}"; }

sweep_array=$(directive "$work/jobs/sweep.sh" array)
[[ $sweep_array =~ ^([0-9]+)-([0-9]+)$ ]] || fail "sweep.sh: #SBATCH --array=$sweep_array is not FIRST-LAST"
first=${BASH_REMATCH[1]} last=${BASH_REMATCH[2]}
slices=$(( last - first + 1 ))
[ "$slices" -ge 2 ] || fail "sweep.sh: --array=$sweep_array makes $slices slice; slicing needs at least 2"
[ "$(directive "$work/jobs/thumbnails.sh" array)" = "$sweep_array" ] \
  || fail "thumbnails.sh: #SBATCH --array=$(directive "$work/jobs/thumbnails.sh" array), expected $sweep_array as the sweep's"
sweep_log=$(directive "$work/jobs/sweep.sh" output)
thumb_log=$(directive "$work/jobs/thumbnails.sh" output)
merge_log=$(directive "$work/jobs/merge.sh" output)
slice_json=$(flag_value "$work/jobs/sweep.sh" --export-json)
merged_json=$(flag_value "$work/jobs/merge.sh" --export-json)
thumb_dir=$(flag_value "$work/jobs/thumbnails.sh" -o --output)
for value in sweep_log thumb_log merge_log slice_json merged_json thumb_dir; do
  [ -n "${!value}" ] || fail "docs/distributed.md: cannot find $value in the job scripts (an --output directive, --export-json or -o)"
done
[[ $slice_json == *'$SLURM_ARRAY_TASK_ID'* ]] || fail "sweep.sh: --export-json $slice_json does not name each slice's file by \$SLURM_ARRAY_TASK_ID"

# wait_job ID LABEL COUNT LOG: waits until no task of job ID is pending or running, then
# checks that it has COUNT tasks (1 for a job that is no array), each COMPLETED with exit code
# 0:0. LOG is the job's --output pattern, whose file a failure shows.
wait_job() {
  local id=$1 label=$2 count=$3 log=$4 deadline=$(( $(date +%s) + timeout )) records
  while :; do
    records=$(scontrol show job -o "$id" 2>&1) || fail "scontrol show job $id ($label): $records" "$work/slurm/slurmctld.log"
    grep -qE 'JobState=(PENDING|RUNNING|CONFIGURING|COMPLETING|SUSPENDED|REQUEUED|RESIZING|SIGNALING|STAGE_OUT)' <<< "$records" || break
    if grep -q 'Reason=DependencyNeverSatisfied' <<< "$records"; then
      fail "$label (job $id) can never start: a job it depends on did not end with exit 0"
    fi
    if [ "$(date +%s)" -ge "$deadline" ]; then
      fail "$label (job $id) not done after $timeout s: $(awk '{for (i = 1; i <= NF; i++) if ($i ~ /^(ArrayTaskId|JobState|Reason)=/) printf "%s ", $i; printf "; "}' <<< "$records")" \
        "$work/slurm/slurmctld.log" "$work/slurm/slurmd.log"
    fi
    sleep 1
  done
  # One "TASK STATE EXIT" line per task (TASK - for a job that is no array).
  awk '{task = "-"; for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "ArrayTaskId") task = kv[2]; if (kv[1] == "JobState") state = kv[2]; if (kv[1] == "ExitCode") code = kv[2] } print task, state, code}' \
    <<< "$records" | sort -n > "$work/job-$id.tasks"
  local n task state code
  n=$(wc -l < "$work/job-$id.tasks")
  [ "$n" -eq "$count" ] || fail "$label (job $id) has $n tasks, expected $count: $(tr '\n' ';' < "$work/job-$id.tasks")"
  while read -r task state code; do
    if [ "$state" != COMPLETED ] || [ "$code" != 0:0 ]; then
      fail "$label (job $id) task $task ended $state with exit code $code" "$work/jobs/$(log_name "$log" "$task" "$id")"
    fi
  done < "$work/job-$id.tasks"
}

# --- submit, as the docs say --------------------------------------------------------------
submitted=$(date +%s)
(cd "$work/jobs" && bash -c 'set -euo pipefail; . ./submit.sh; echo "$sweep $merge $thumbnails" > .job-ids') \
  > "$work/jobs/submit.log" 2>&1 || fail "the docs' submit block (submit.sh) failed" "$work/jobs/submit.log"
read -r sweep_id merge_id thumb_id < "$work/jobs/.job-ids"
for id in "$sweep_id" "$merge_id" "$thumb_id"; do
  [[ $id =~ ^[0-9]+$ ]] || fail "submit.sh: sbatch --parsable gave '$id', not a job id" "$work/jobs/submit.log"
done
[ -s "$work/jobs/costs.json" ] || fail "submit.sh wrote no costs.json" "$work/jobs/submit.log"

wait_job "$sweep_id" "sweep array" "$slices" "$sweep_log"
sweep_done=$(date +%s)
wait_job "$merge_id" "merge job" 1 "$merge_log"
wait_job "$thumb_id" "thumbnail array" "$slices" "$thumb_log"
say "sweep array $sweep_id: $slices slices COMPLETED, exit 0, in $(( sweep_done - submitted )) s; merge job $merge_id and thumbnail array $thumb_id COMPLETED, exit 0"

# --- the same jobs, unsharded ------------------------------------------------------------------
# unsliced JOB LOG: JOB run once by bash in $work/whole, outside Slurm.
unsliced() {
  sed -e 's/\${SLURM_ARRAY_TASK_ID}/whole/g' -e 's/\$SLURM_ARRAY_TASK_ID/whole/g' "$work/jobs/$1" > "$work/whole/$1"
  (cd "$work/whole" && env -u SLURM_ARRAY_TASK_ID -u SLURM_ARRAY_TASK_MIN -u SLURM_ARRAY_TASK_MAX \
     -u SLURM_ARRAY_TASK_COUNT -u SLURM_ARRAY_JOB_ID -u JOB_COMPLETION_INDEX SLURM_SUBMIT_DIR="$work/whole" \
     bash "$1") > "$work/whole/$2" 2>&1 || fail "$1 run unsharded outside Slurm exited $?" "$work/whole/$2"
}
cp "$work/jobs/costs.json" "$work/whole/costs.json"
whole_started=$(date +%s)
unsliced sweep.sh sweep.log
whole_seconds=$(( $(date +%s) - whole_started ))

# --- sweep checks ---------------------------------------------------------------------------
result=$(python3 - "$work" "$first" "$slices" "$slice_json" "$sweep_log" "$merged_json" <<'PY'
import json, os, re, sys
work, first, slices, slice_json, sweep_log, merged_json = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), *sys.argv[4:]
jobs, whole_dir = os.path.join(work, "jobs"), os.path.join(work, "whole")

def fail(message, file=None):
    print(message + (f"\t{file}" if file else ""))
    sys.exit(1)

def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as error:
        fail(f"cannot read {os.path.relpath(path, work)}: {error}", path)

merged = load(os.path.join(jobs, merged_json))
whole = load(os.path.join(whole_dir, slice_json.replace("$SLURM_ARRAY_TASK_ID", "whole")))
labels = [e["point"]["label"] for e in whole["outcome"]["entries"]]

# Each slice: its document says which slice it is; its log names the slice, calls the points
# run in other slices so, never "failed (0 runs)", and has no frontier and no recommendation.
slice_runs = 0
for task in range(first, first + slices):
    k = task - first + 1
    doc_path = os.path.join(jobs, slice_json.replace("$SLURM_ARRAY_TASK_ID", str(task)))
    log_path = os.path.join(jobs, sweep_log.replace("%a", str(task)))
    doc = load(doc_path)
    if doc.get("shard") != {"index": k, "count": slices}:
        fail(f"slice of task {task}: its document says shard {doc.get('shard')}, expected {k}/{slices} from SLURM_ARRAY_TASK_ID", doc_path)
    if any(r.get("report") is None for r in doc["runs"]):
        fail(f"slice of task {task}: a run has no report (failed)", log_path)
    slice_runs += len(doc["runs"])
    elsewhere = len(set(labels) - {r["strategy"] for r in doc["runs"]})
    try:
        log = open(log_path).read()
    except OSError as error:
        fail(f"slice of task {task}: no log: {error}")
    lines = log.splitlines()
    if not any(re.match(rf"sweep: .*slice {k}/{slices} of the runs", l) for l in lines):
        fail(f"slice of task {task}: its log does not say it ran slice {k}/{slices} of the runs", log_path)
    if not any(l.startswith(f"slice {k}/{slices}: ") and "`retention merge`" in l for l in lines):
        fail(f"slice of task {task}: its log does not say that `retention merge` gives the answer", log_path)
    failed = re.search(r".*failed \(\d+ runs?\).*", log)
    if failed:
        fail(f"slice of task {task}: its log calls a point failed: {failed.group(0).strip()}", log_path)
    bad = [l for l in lines if re.match(r"(no )?recommendation:|no result:", l) or re.search(r"[*<]\s*$", l)]
    if bad:
        fail(f"slice of task {task}: its log draws a conclusion from part of the points: {bad[0].strip()}", log_path)
    others = log.count("(runs in other slices)")
    if others != elsewhere:
        fail(f"slice of task {task}: its log marks {others} points as run in other slices, its document has no run of {elsewhere}", log_path)

# The merged document is the unsharded one's, up to resident memory's noise.
if "shard" in merged or "shard" in whole:
    fail("the merged or the unsharded document names a slice")
for key in ("scenario", "repeats", "scheduledRuns", "strategies", "sweep", "constraints"):
    if merged.get(key) != whole.get(key):
        fail(f"merged and unsharded differ in {key}: {merged.get(key)!r} vs {whole.get(key)!r}")
if [e["point"]["label"] for e in merged["outcome"]["entries"]] != labels:
    fail("merged and unsharded have different points")
if slice_runs != whole["scheduledRuns"]:
    fail(f"the slices made {slice_runs} runs, the unsharded sweep schedules {whole['scheduledRuns']}")
def runs(doc, name):
    table = {}
    for r in doc["runs"]:
        if r.get("report") is None:
            fail(f"{name}: run {r['strategy']} repeat {r['repeatIndex']} failed")
        table[(r["strategy"], r["repeatIndex"])] = r["report"]
    if len(table) != doc["scheduledRuns"]:
        fail(f"{name}: {len(table)} runs, {doc['scheduledRuns']} scheduled")
    return table
mr, wr = runs(merged, "merged"), runs(whole, "unsharded")
if set(mr) != set(wr):
    fail(f"merged and unsharded ran different (point, repeat) pairs: {sorted(set(mr) ^ set(wr))[:3]}")
deterministic = ("decodes", "placeholderFrames", "hitches", "frames", "peakLogicalBytes", "failedDecodes", "failedReads")
for key in sorted(wr):
    for field in deterministic:
        if mr[key][field] != wr[key][field]:
            fail(f"{key[0]} repeat {key[1]}: {field} {mr[key][field]} merged vs {wr[key][field]} unsharded")
rows = {r["strategy"]: r for r in whole["summary"]["rows"]}
worst = 0.0
for row in merged["summary"]["rows"]:
    other = rows.get(row["strategy"])
    if other is None or row["runs"] != other["runs"] or row["runs"] != whole["repeats"]:
        fail(f"{row['strategy']}: {row['runs']} runs merged, {other and other['runs']} unsharded, {whole['repeats']} repeats asked")
    change = abs(row["peakBytes"] - other["peakBytes"]) / other["peakBytes"]
    worst = max(worst, change)
    if change > 0.10:
        fail(f"{row['strategy']}: median peak resident {row['peakBytes']} merged vs {other['peakBytes']} unsharded, {change:.0%} apart (over 10 %)")
mo, wo = merged["outcome"], whole["outcome"]
if (mo["verdict"], mo.get("recommended")) != (wo["verdict"], wo.get("recommended")):
    fail(f"merged says {mo['verdict']} {mo.get('recommended')}, unsharded says {wo['verdict']} {wo.get('recommended')}")
print(f"{len(labels)} points, {len(wr)} runs; {', '.join(deterministic[:4])} and logical bytes equal run by run; "
      f"median peaks within {worst:.1%}; both recommend {wo.get('recommended')} ({wo['verdict']})")
PY
) || { [ -n "$result" ] || result="the sweep checks (python) stopped with an error (above)"
  if [[ $result == *$'\t'* ]]; then fail "${result%%$'\t'*}" "${result#*$'\t'}"; else fail "$result"; fi; }
say "slices' logs: each names its slice, marks the points run in other slices, no failed point, no frontier, no recommendation"
say "merge of the slices = the sweep run unsharded ($whole_seconds s): $result"

# --- thumbnail checks -----------------------------------------------------------------------
unsliced thumbnails.sh thumbnails.log
# files LOG [SLICE]: the file count of a thumbnail summary line that has 0 failed.
files() {
  local pattern="^thumbnail: ${2:+slice $2, }([0-9]+) files, 0 failed"
  local line
  line=$(grep -E "$pattern" "$1" | tail -n 1) || return 1
  [[ $line =~ $pattern ]] && echo "${BASH_REMATCH[1]}"
}
whole_files=$(files "$work/whole/thumbnails.log") || fail "the unsliced thumbnail run has no summary line with 0 failed" "$work/whole/thumbnails.log"
[ "$whole_files" -gt 0 ] || fail "the unsliced thumbnail run made no thumbnail" "$work/whole/thumbnails.log"

# check_thumbnails ROUND: the slices' logs and outputs against the unsliced run's; sets counts
# to the slices' file counts (like 7/10/5).
check_thumbnails() {
  local round=$1 task k log n sum=0 cached
  counts=""
  for (( task = first; task < first + slices; task++ )); do
    k=$(( task - first + 1 ))
    log=$work/jobs/$(log_name "$thumb_log" "$task" "$thumb_id")
    n=$(files "$log" "$k/$slices") || fail "thumbnail slice of task $task ($round): no summary line 'thumbnail: slice $k/$slices, N files, 0 failed'" "$log"
    if [ "$round" = again ]; then
      cached=$(grep -oE ", [0-9]+ from cache" "$log" | tail -n 1 | tr -dc '0-9')
      [ "$cached" = "$n" ] || fail "thumbnail slice of task $task, submitted again: ${cached:-no} files from its cache of $n" "$log"
    fi
    sum=$(( sum + n ))
    counts+="${counts:+/}$n"
  done
  # Every file made by exactly one slice: as many made as one run makes, and as many distinct
  # outputs, each equal to that run's.
  [ "$sum" -eq "$whole_files" ] || fail "thumbnail slices ($round) made $counts = $sum files, one unsliced run makes $whole_files"
  n=$(find "$work/jobs/$thumb_dir" -type f | wc -l)
  [ "$n" -eq "$whole_files" ] || fail "thumbnail slices ($round) left $n files in $thumb_dir, one unsliced run writes $whole_files"
  diff -r "$work/jobs/$thumb_dir" "$work/whole/$thumb_dir" > "$work/thumbnails.diff" 2>&1 \
    || fail "thumbnail slices' outputs ($round) differ from one unsliced run's" "$work/thumbnails.diff"
}
check_thumbnails first
say "thumbnail array $thumb_id: slices of $counts files = one unsliced run's $whole_files thumbnails, byte for byte"

# Again, with the outputs removed: every thumbnail comes from its slice's own cache.
rm -rf "${work:?}/jobs/${thumb_dir:?}"
for (( task = first; task < first + slices; task++ )); do rm -f "$work/jobs/$(log_name "$thumb_log" "$task" "$thumb_id")"; done
again_started=$(date +%s)
thumb_id=$(cd "$work/jobs" && sbatch --parsable thumbnails.sh 2> "$work/jobs/resubmit.log") \
  || fail "sbatch thumbnails.sh (again) failed" "$work/jobs/resubmit.log"
thumb_id=${thumb_id%%;*}
wait_job "$thumb_id" "thumbnail array (again)" "$slices" "$thumb_log"
check_thumbnails again
say "thumbnail array $thumb_id (again, $(( $(date +%s) - again_started )) s): every file from its slice's cache, the same bytes"
say "ok: the Slurm jobs of docs/distributed.md hold, in $(( $(date +%s) - started )) s"
