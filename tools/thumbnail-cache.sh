#!/usr/bin/env bash
# thumbnail-cache.sh [DIR]: what `retention thumbnail --cache` saves on a batch run again over
# files it has seen. Makes a folder of COUNT (default 1000) distinct PNG files of 1-2 MP, copied
# in turn from the PNGs of DIR that are 1-2 MP (default: the 1200x900 photos of
# `retention assets generate`; tools/results.py passes the corpus of tools/make-corpus.sh), then,
# ROUNDS times (default 3): removes the outputs and the cache, runs
#   retention thumbnail FOLDER --size 256 -o OUT --cache CACHE
# once cold (the cache empty) and once again (every file unchanged). Each run is timed in wall
# time around the process and in CPU time (user + system, from the kernel's accounting of the
# finished child, so other processes' load does not count; tools/child_cpu.py). Prints per-round lines, then the
# medians and the median of the paired ratios (second / first) with their min-max: the goal is
# a second run of at most 1/10 of the first. The page cache is warm for both runs (the first
# reads every input; a second run reads none, only their `stat`).
# Environment: RETENTION (the binary; default .build/release/retention, built if missing),
# COUNT, ROUNDS, JOBS (default: the tool's, the cores this process may use).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${RETENTION:-$root/.build/release/retention}
[ -x "$bin" ] || (cd "$root" && swift build -c release --product retention >/dev/null)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source_dir=${1:-}
if [ -z "$source_dir" ]; then
  source_dir=$work/generated
  "$bin" assets generate "$source_dir" >/dev/null
fi
python3 - "$bin" "$source_dir" "$work" "${COUNT:-1000}" "${ROUNDS:-3}" "${JOBS:-}" "$root/tools" <<'PY'
import os, shutil, statistics, struct, subprocess, sys

sys.path.insert(0, sys.argv[7])
sys.dont_write_bytecode = True  # no __pycache__ in tools/
from child_cpu import measure

binary, source_dir, work, count, rounds, jobs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]

def png_size(path):
    with open(path, "rb") as handle:
        head = handle.read(24)
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return struct.unpack(">II", head[16:24])

sources = []
for folder, _, files in os.walk(source_dir):
    for name in sorted(files):
        path = os.path.join(folder, name)
        size = png_size(path) if name.lower().endswith(".png") else None
        if size and 1_000_000 <= size[0] * size[1] <= 2_000_000:
            sources.append(path)
sources.sort()
if not sources:
    sys.exit(f"thumbnail-cache: no PNG of 1-2 MP in {source_dir}")
inputs = os.path.join(work, "inputs")
os.makedirs(inputs)
total_bytes = 0
for index in range(count):
    source = sources[index % len(sources)]
    target = os.path.join(inputs, f"in{index:04d}.png")
    shutil.copyfile(source, target)
    total_bytes += os.path.getsize(target)
megapixels = [png_size(path)[0] * png_size(path)[1] / 1e6 for path in sources]
print(f"{count} files ({len(sources)} distinct pictures of {min(megapixels):.2f}-{max(megapixels):.2f} MP, "
      f"{total_bytes / 1e6:.0f} MB), `retention thumbnail FOLDER --size 256 -o OUT --cache CACHE`"
      + (f" --jobs {jobs}" if jobs else ""))

def run(label):
    command = [binary, "thumbnail", inputs, "--size", "256", "-o", os.path.join(work, "out"), "--cache", os.path.join(work, "cache")]
    if jobs:
        command += ["--jobs", jobs]
    cpu, wall, status, out, err = measure(command, stdout=subprocess.PIPE)
    if status != 0:
        sys.exit(f"thumbnail-cache: {' '.join(command)} failed (exit {status}): {err.strip()}")
    return wall, cpu, out.strip().splitlines()[-1]

walls, cpus = {"first": [], "second": []}, {"first": [], "second": []}
for round_number in range(1, rounds + 1):
    for folder in ("out", "cache"):
        shutil.rmtree(os.path.join(work, folder), ignore_errors=True)
    for label in ("first", "second"):
        wall, cpu, summary = run(label)
        walls[label].append(wall)
        cpus[label].append(cpu)
        print(f"round {round_number} {label:6}  wall {wall:7.2f} s  CPU {cpu:7.2f} s  | {summary}")

def spread(values, fmt):
    return f"{fmt % statistics.median(values)} ({fmt % min(values)}-{fmt % max(values)})"

wall_ratios = [s / f for f, s in zip(walls["first"], walls["second"])]
cpu_ratios = [s / f for f, s in zip(cpus["first"], cpus["second"])]
print(f"first run (cold cache): wall {spread(walls['first'], '%.2f')} s, CPU {spread(cpus['first'], '%.2f')} s")
print(f"second run (all cached): wall {spread(walls['second'], '%.2f')} s, CPU {spread(cpus['second'], '%.2f')} s")
print(f"second / first, median of {rounds} paired ratios: wall {spread(wall_ratios, '%.3f')}, CPU {spread(cpu_ratios, '%.3f')}")
goal = statistics.median(wall_ratios) <= 0.1 and statistics.median(cpu_ratios) <= 0.1
print(f"goal (second run at most 1/10 of the first, wall and CPU): {'met' if goal else 'NOT met'}")
PY
