#!/usr/bin/env python3
"""Plot a comparison's memory over frames, or a sweep's frontier, from an --export-json file.

Usage: tools/plot.py EXPORT.json [OUT.png]
Needs matplotlib (pip install matplotlib).
- From `retention compare`: one line per strategy (its first successful run's timeline),
  resident MB on the y axis, virtual frames on the x axis; dashed lines show the cache's logical
  bytes (what it says it holds) so allocator overhead and retention stand apart.
- From `retention sweep` (or `retention merge` of one): median peak resident MB on the x axis,
  median placeholder frames on the y axis, one line per strategy through its values in order,
  each point labelled with its value; points on the Pareto frontier are ringed, the
  recommendation is a star.
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

def plot_sweep(doc):
    sweep, outcome = doc["sweep"], doc.get("outcome") or {}
    entries = [e for e in outcome.get("entries", []) if e["row"]["runs"] > 0]
    if not entries:
        sys.exit(f"tools/plot.py: {path} has no measured sweep point to plot")
    key = sweep["key"]
    def label(value):
        if key in ("prefetchRows", "decodeWorkers"):
            return str(value)
        return f"{value / 1e6:g}MB"
    fig, ax = plt.subplots(figsize=(9, 5.5))
    for strategy in sweep["strategies"]:
        mine = [e for e in entries if e["point"]["strategy"] == strategy]
        xs = [e["row"]["peakBytes"] / 1e6 for e in mine]
        ys = [e["row"]["placeholderFrames"] for e in mine]
        line, = ax.plot(xs, ys, marker="o", label=strategy)
        # Points that land on one another (within 2 MB, same placeholders) share one label.
        groups = []
        for e, x, y in zip(mine, xs, ys):
            if groups and abs(groups[-1][1] - x) < 2 and groups[-1][2] == y:
                groups[-1][0].append(e)
            else:
                groups.append(([e], x, y))
        for members, x, y in groups:
            values = [label(m["point"]["value"]) for m in members]
            text = values[0] if len(values) == 1 else f"{values[0]}–{values[-1]}"
            ax.annotate(text, (x, y), textcoords="offset points", xytext=(4, 6), fontsize=8)
        for e, x, y in zip(mine, xs, ys):
            if e["onFrontier"]:
                ax.scatter([x], [y], s=160, facecolors="none", edgecolors=line.get_color(), linewidths=1.5)
    chosen = [e for e in entries if e["point"]["label"] == outcome.get("recommended")]
    if chosen:
        e = chosen[0]
        ax.scatter([e["row"]["peakBytes"] / 1e6], [e["row"]["placeholderFrames"]], marker="*", s=320, color="black", zorder=5,
                   label=f"{'recommended' if outcome.get('verdict') == 'met' else 'nearest'}: {e['point']['label']}")
    ax.set_xlabel("peak resident MB (median over repeats; 1 MB = 1,000,000 bytes)")
    ax.set_ylabel("placeholder frames (median)")
    ax.set_title(f"Sweep of {key} — {doc.get('scenario', '').rsplit('/', 1)[-1]}; ringed: frontier")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")
    sys.exit(0)

if doc.get("sweep"):
    plot_sweep(doc)

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
