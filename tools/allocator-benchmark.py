#!/usr/bin/env python3
"""allocator-benchmark.py: how far each bitmap allocator lets the process's resident memory rise
above what an ImageCache holds, and what it costs per load.

Each load runs alone in a fresh process (`MemoryCheck budget-scroll`, Sources/MemoryCheck/
BudgetScroll.swift, built in release): an ImageCache with a 32 MB bitmap budget and 3 visible
rows over PNG files read through `ImageSource.files`, scrolled one row at a time (steady) or
flung back and forth in bursts of 24 rows (fling), with 1, 2 or 8 decode workers, decoded
bitmaps or 256 px thumbnails, 1.1 MP (1200x900, 200 rows) or 12 MP (4000x3000, 24 rows) photos.
It prints the rise of resident memory over the run (VmHWM, and the 2 ms samples, less the start)
and the logical peak: the most the cache accounted for at once (`usage.accountedBytes`, what it
holds plus what its loads hold).

Allocators alternate within each round (the order rotates), ROUNDS rounds (default 3). Per load
and allocator: the median rise / logical peak, and CPU per load (user + system, the whole
process) as the median of the ratios to `system`'s run of the same round. The goals are printed
met or not for the default allocator (`bounded`):
  - the rise stays within 1.25 x the logical peak + 8 MB on every load;
  - CPU per load within 5 % of system's (the median paired ratio at most 1.05).

Usage: tools/allocator-benchmark.py [--quick]   (--quick: one round, 1.1 MP loads only)
Exit 0 with the table; 1 when the build or a run fails.
"""
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ALLOCATORS = ["system", "pageMapped", "pooled:32MB", "bounded"]
DEFAULT = "bounded"
MB = 1_000_000


def build():
    env = dict(os.environ)
    if os.path.isdir("/opt/swift/usr/bin"):
        env["PATH"] = "/opt/swift/usr/bin:" + env.get("PATH", "")
    result = subprocess.run(["swift", "build", "-c", "release", "--product", "MemoryCheck"], cwd=ROOT, env=env,
                            capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"allocator-benchmark: the release build of MemoryCheck failed:\n{result.stdout[-3000:]}{result.stderr[-2000:]}")
    binary = subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=ROOT, env=env,
                            capture_output=True, text=True).stdout.strip()
    return os.path.join(binary, "MemoryCheck")


def loads(quick):
    sizes = [("1.1 MP", "1200x900", 200, 6)] + ([] if quick else [("12 MP", "4000x3000", 24, 2)])
    for size, dims, rows, distinct in sizes:
        for policy in ["decoded", "thumbnail"]:
            for pattern in ["steady", "fling"]:
                for workers in [1, 2, 8]:
                    yield dict(label=f"{size} {policy}, {pattern}, {workers} worker{'s' if workers > 1 else ''}",
                               args=["--size", dims, "--rows", str(rows), "--distinct", str(distinct),
                                     "--policy", policy, "--pattern", pattern, "--workers", str(workers)])


def run(binary, folder, load, allocator):
    command = [binary, "budget-scroll", "--folder", folder, "--allocator", allocator] + load["args"]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"allocator-benchmark: {' '.join(command)} failed (exit {result.returncode}):\n{result.stdout}{result.stderr}")
    values = {}
    for line in result.stdout.splitlines():
        key, _, value = line.partition(" ")
        values[key] = value
    figures = {k: int(values[k]) for k in ("rise", "logical-peak", "loads", "cpu-us", "heap-free-held", "pool-held")}
    figures["cpu-per-load"] = figures["cpu-us"] / max(1, figures["loads"])
    return figures


def spread(values, fmt):
    return f"{fmt(statistics.median(values))} ({fmt(min(values))}–{fmt(max(values))})" if len(values) > 1 else fmt(values[0])


def main():
    quick = "--quick" in sys.argv[1:]
    rounds = 1 if quick else max(1, int(os.environ.get("ROUNDS", "3")))
    binary = build()
    table = []
    with tempfile.TemporaryDirectory(prefix="allocator-benchmark-") as folder:
        all_loads = list(loads(quick))
        for index, load in enumerate(all_loads):
            print(f"allocator-benchmark: {index + 1}/{len(all_loads)} {load['label']}", file=sys.stderr, flush=True)
            runs = {a: [] for a in ALLOCATORS}
            for r in range(rounds):
                order = ALLOCATORS[r % len(ALLOCATORS):] + ALLOCATORS[:r % len(ALLOCATORS)]
                for allocator in order:
                    runs[allocator].append(run(binary, folder, load, allocator))
            table.append((load, runs))
    header = "| load | logical peak MB | " + " | ".join(f"{a}: rise ÷ logical, CPU ÷ system" for a in ALLOCATORS) + " |"
    print(header)
    print("|" + "---|" * (2 + len(ALLOCATORS)))
    worst_margin = None
    worst_cpu = []
    failures = []
    for load, runs in table:
        logical = statistics.median(r["logical-peak"] for r in runs[DEFAULT])
        cells = []
        for allocator in ALLOCATORS:
            ratios = [r["rise"] / max(1, r["logical-peak"]) for r in runs[allocator]]
            cpu = [a["cpu-per-load"] / max(1, s["cpu-per-load"]) for a, s in zip(runs[allocator], runs["system"])]
            cells.append(f"{spread(ratios, lambda v: f'{v:.2f}')}, {spread(cpu, lambda v: f'{v:.2f}')}")
        rise = statistics.median(r["rise"] for r in runs[DEFAULT])
        allowed = 1.25 * logical + 8 * MB
        margin = rise - allowed
        if worst_margin is None or margin > worst_margin[0]:
            worst_margin = (margin, load["label"], rise, logical)
        if margin > 0:
            failures.append(load["label"])
        worst_cpu.append((statistics.median(a["cpu-per-load"] / max(1, s["cpu-per-load"])
                                            for a, s in zip(runs[DEFAULT], runs["system"])), load["label"]))
        print(f"| {load['label']} | {logical / MB:.1f} | " + " | ".join(cells) + " |")
    cpu_all = [c for c, _ in worst_cpu]
    cpu_median = statistics.median(cpu_all)
    cpu_worst = max(worst_cpu)
    print()
    print(f"Goals for the default allocator ({DEFAULT}), {rounds} round(s), CPU per load paired with system's run of the same round:")
    margin, label, rise, logical = worst_margin
    verdict = "met" if not failures else f"not met on {len(failures)} load(s): {', '.join(failures)}"
    print(f"- resident rise ≤ 1.25 × logical peak + 8 MB on every load: {verdict} "
          f"(closest: {label}, rise {rise / MB:.1f} MB against {(1.25 * logical + 8 * MB) / MB:.1f} MB allowed)")
    cpu_verdict = "met" if cpu_median <= 1.05 else "not met"
    print(f"- CPU per load within 5 % of system's: {cpu_verdict} (median over the loads {cpu_median:.3f}; "
          f"highest {cpu_worst[0]:.2f} on {cpu_worst[1]}; loads above 1.05: {sum(1 for c in cpu_all if c > 1.05)} of {len(cpu_all)})")


if __name__ == "__main__":
    main()
