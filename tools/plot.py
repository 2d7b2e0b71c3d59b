#!/usr/bin/env python3
"""Plot resident memory over frames for each strategy, from `retention compare --export-json`.

Usage: tools/plot.py COMPARE.json [OUT.png]
Needs matplotlib (pip install matplotlib). One line per strategy (its first successful run's
timeline), resident MB on the y axis, virtual frames on the x axis; dashed lines show the
cache's logical bytes (what it says it holds) so allocator overhead and retention stand apart.
"""
import json
import sys

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit("tools/plot.py needs matplotlib: pip install matplotlib")

if len(sys.argv) < 2:
    sys.exit(__doc__)
path = sys.argv[1]
out = sys.argv[2] if len(sys.argv) > 2 else path.rsplit(".", 1)[0] + ".png"
try:
    doc = json.load(open(path))
except (OSError, ValueError) as error:
    sys.exit(f"tools/plot.py: cannot read {path}: {error}")

first = {}
for run in doc.get("runs", []):
    report = run.get("report")
    if report and run["strategy"] not in first:
        first[run["strategy"]] = report
if not first:
    sys.exit(f"tools/plot.py: {path} has no successful run to plot")

fig, ax = plt.subplots(figsize=(10, 5.5))
for name, report in first.items():
    frames = [s["frame"] for s in report["timeline"]]
    resident = [s["residentBytes"] / 1e6 for s in report["timeline"]]
    logical = [s["logicalBytes"] / 1e6 for s in report["timeline"]]
    line, = ax.plot(frames, resident, label=f"{name} (resident)")
    ax.plot(frames, logical, linestyle="--", color=line.get_color(), alpha=0.6, label=f"{name} (logical)")
ax.set_xlabel("frame")
ax.set_ylabel("MB (1 MB = 1,000,000 bytes)")
ax.set_title(f"Resident memory per strategy — {doc.get('scenario', '').rsplit('/', 1)[-1]}")
ax.grid(alpha=0.3)
ax.legend(fontsize=8, ncol=2)
fig.tight_layout()
fig.savefig(out, dpi=110)
print(f"wrote {out}")
