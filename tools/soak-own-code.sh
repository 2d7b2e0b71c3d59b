#!/usr/bin/env bash
# Soak your own code: how many iterations and how much wall time each verdict takes.
#   closures: SoakProbe.measure(.untilVerdict(max: 200), 4 KB per iteration) in a quiet child
#     (MemoryCheck soak-probe KIND): leak keeps 64 KB a call (FAIL), lru a bounded LRU of 16
#     buffers of 64 KB (PASS), churn allocates and frees 1 MB a call (PASS);
#     memo a Swift memo of 40 x 64 KB filling while measured (PASS, naming the fill), shrink
#     frees 64 KB a call (INCONCLUSIVE: a shrinking series is never a pass);
#   programs: `retention soak --exec --until-verdict --iterations 60` on
#     Tests/RetentionCLITests/Fixtures/soak-program.py leak (100 KB more per marker, FAIL) and
#     bounded (PASS), each also behind `sh -c` and behind two shells (the whole process tree is
#     measured); a Python functools.lru_cache(maxsize=256) of 40 KB values filling by iteration
#     26 with the default flags (PASS, naming the fill) and its unbounded twin (FAIL);
#   a scenario: `retention soak assets/scenarios/quick-start.json --strategy decoded-lru
#     --iterations 8 --max-growth 0`, a flat series after a one-off step (PASS).
# Each row: the verdict and exit status of the last round, the measured iterations it took, and
# the wall seconds of the whole process (median of ROUNDS runs, min-max when they differ).
# Usage: ROUNDS=3 tools/soak-own-code.sh   (RETENTION=PATH uses a retention binary already built)
# Exit 1 when a verdict is not the expected one (the table is still printed).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
rounds=${ROUNDS:-3}
swift build -c release --product MemoryCheck >/dev/null
if [ -n "${RETENTION:-}" ]; then bin=$RETENTION; else swift build -c release --product retention >/dev/null; bin=$root/.build/release/retention; fi
check=$root/.build/release/MemoryCheck
program=$root/Tests/RetentionCLITests/Fixtures/soak-program.py
python3 - "$rounds" "$bin" "$check" "$program" "$root/Tests/RetentionCLITests/Fixtures/memo-program.py" "$root/assets/scenarios/quick-start.json" <<'PY'
import re, statistics, subprocess, sys, time
rounds, bin, check, program, memo, quick = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
soak = [bin, "soak", "--exec", "--until-verdict", "--iterations", "60", "--"]
cases = [
    ("closure: keeps 64 KB a call", [check, "soak-probe", "leak"], "FAIL"),
    ("closure: a bounded LRU of 16 x 64 KB", [check, "soak-probe", "lru"], "PASS"),
    ("closure: allocates and frees 1 MB a call", [check, "soak-probe", "churn"], "PASS"),
    ("program: keeps 100 KB more per marker", [bin, "soak", "--exec", "--until-verdict", "--iterations", "60", "--", "python3", program, "leak"], "FAIL"),
    ("program: keeps its last 4 x 100 KB", [bin, "soak", "--exec", "--until-verdict", "--iterations", "60", "--", "python3", program, "bounded"], "PASS"),
    ("closure: a memo of 40 x 64 KB, filling", [check, "soak-probe", "memo"], "PASS"),
    ("closure: frees 64 KB a call (shrinks)", [check, "soak-probe", "shrink"], "INCONCLUSIVE"),
    ("program behind sh -c: keeps 100 KB", soak + ["sh", "-c", f"python3 {program} leak; true"], "FAIL"),
    ("program behind sh -c: bounded", soak + ["sh", "-c", f"python3 {program} bounded; true"], "PASS"),
    ("program behind two shells: keeps 100 KB", soak + ["sh", "-c", f"sh -c 'python3 {program} leak'; true"], "FAIL"),
    ("program behind two shells: bounded", soak + ["sh", "-c", f"sh -c 'python3 {program} bounded'; true"], "PASS"),
    ("program: lru_cache(256) filling, defaults", [bin, "soak", "--exec", "--", "python3", memo, "bounded"], "PASS"),
    ("program: lru_cache(None), defaults", [bin, "soak", "--exec", "--", "python3", memo, "unbounded"], "FAIL"),
    ("scenario: a step, then flat, --max-growth 0", [bin, "soak", quick, "--strategy", "decoded-lru", "--iterations", "8", "--max-growth", "0"], "PASS"),
]
print(f"{'soak':44}  {'verdict':12}  {'iterations':>10}  {'wall s':>14}")
bad = 0
for name, command, expected in cases:
    walls, iterations, verdict = [], [], "?"
    for _ in range(rounds):
        start = time.monotonic()
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
        walls.append(time.monotonic() - start)
        out = done.stdout
        m = re.search(r"^outcome (\w+)", out, re.M) or re.search(r"^verdict: (\w+)", out, re.M)
        verdict = m.group(1).upper() if m else f"exit {done.returncode}"
        verdict = "FAIL" if verdict == "GROWTH" else verdict
        n = re.search(r"^iterations (\d+)", out, re.M) or re.search(r"(\d+) measured\)", out)
        if n: iterations.append(int(n.group(1)))
    if verdict != expected: bad += 1
    med = statistics.median(walls)
    wall = f"{med:.2f}" + (f" ({min(walls):.2f}-{max(walls):.2f})" if max(walls) - min(walls) >= 0.01 else "")
    its = str(int(statistics.median(iterations))) if iterations else "?"
    if iterations and min(iterations) != max(iterations): its += f" ({min(iterations)}-{max(iterations)})"
    fill = re.search(r"a fill ending at iteration (\d+)", out)
    print(f"{name:44}  {verdict:12}  {its:>10}  {wall:>14}" + (f"  fill to {fill.group(1)}" if fill else ""))
print(f"{rounds} rounds each; iterations are the measured ones (after the warm-up); wall time is the whole process, thread CPU is not what a CI job waits for")
sys.exit(1 if bad else 0)
PY
