#!/usr/bin/env python3
"""Plot a comparison's memory over frames, a sweep's frontier, or a soak's memory over
iterations, from an --export-json file (or a soak's --export-csv file).

Usage: tools/plot.py EXPORT.json|EXPORT.csv [OUT.png]
Needs matplotlib: pip install -r tools/requirements.txt. tools/check-plots.sh draws every kind.
- From `retention compare`: one line per strategy (its first successful run's timeline),
  resident MB on the y axis, virtual frames on the x axis; dashed lines show the cache's logical
  bytes (what it says it holds) so allocator overhead and retention stand apart.
- From `retention sweep` (or `retention merge` of one): median peak resident MB on the x axis,
  median placeholder frames on the y axis, one line per strategy through its values in order,
  each point labelled with its value; points on the Pareto frontier are ringed, points whose
  LRU admits no image (so caches nothing) are crossed out in red, the recommendation is a star.
- From a `retention compare` or `retention sweep` --export-csv (one row per run): median peak
  resident MB on the x axis, median placeholder frames on the y axis, one labelled point per
  strategy (or sweep point), the spread across runs as error bars.
- From `retention soak` (its --export-json or --export-csv): above, retained memory (the figure
  the verdict fits: anonymous less what the allocator holds freed) on an axis scaled to it, with
  the fitted slope, its 95 % interval as a band and the allowed rate (from the JSON's verdict);
  below, resident, anonymous and the allocator's free-but-held MB; warm-up iterations shaded.
"""
import csv
import json
import sys

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit("tools/plot.py needs matplotlib: pip install -r tools/requirements.txt")

if len(sys.argv) < 2:
    sys.exit(__doc__)
path = sys.argv[1]
out = sys.argv[2] if len(sys.argv) > 2 else path.rsplit(".", 1)[0] + ".png"
MB = "MB (1 MB = 1,000,000 bytes)"


def finish(fig, ax, xlabel, ylabel, title, ncol=1, done=True):
    """Labels, grid and legend, then write the figure to `out` (and stop, when done)."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, ncol=ncol)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")
    if done:
        sys.exit(0)


def plot_soak(samples, title, verdict=None):
    """Two panels: retained memory (what the verdict judges) on an axis scaled to it, with the
    fitted slope, its 95 % interval as a band and the allowed rate as a line, all through the
    measured iterations' centroid; below, resident, anonymous and the allocator's free-but-held
    memory. Without a verdict (a CSV) the slope is fitted here and no band or limit is drawn."""
    if not samples:
        sys.exit(f"tools/plot.py: {path} has no soak sample to plot")
    its = [int(s["iteration"]) for s in samples]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(10, 8), sharex=True, gridspec_kw={"height_ratios": [3, 2]})
    measured = [(int(s["iteration"]), float(s["retainedBytes"]) / 1e6) for s in samples
                if "retainedBytes" in s and str(s["warmup"]).lower() != "true"]
    if "retainedBytes" in samples[0]:
        top.plot(its, [float(s["retainedBytes"]) / 1e6 for s in samples], marker="o", markersize=3, label="retained (judged)")
    if len(measured) >= 2:
        xs, ys = [x for x, _ in measured], [y for _, y in measured]
        cx, cy = sum(xs) / len(xs), sum(ys) / len(ys)
        if verdict and "slopeBytesPerIteration" in verdict:
            slope = verdict["slopeBytesPerIteration"] / 1e6
            low, high = verdict.get("slopeLowerBytesPerIteration", 0) / 1e6, verdict.get("slopeUpperBytesPerIteration", 0) / 1e6
            edge = [min(xs), max(xs)]
            top.fill_between(edge, [cy + low * (x - cx) for x in edge], [cy + high * (x - cx) for x in edge],
                             color="C0", alpha=0.15, label="95 % interval of the slope")
            limit = verdict.get("maxGrowthRateBytesPerIteration")
            if limit is not None:
                top.plot(edge, [cy + limit / 1e6 * (x - cx) for x in edge], color="C3", linestyle="--",
                         label=f"allowed rate ({limit / 1e3:.1f} KB per iteration)")
        else:
            sxx = sum((x - cx) ** 2 for x in xs)
            slope = sum((x - cx) * (y - cy) for x, y in measured) / sxx if sxx else 0
        top.plot([min(xs), max(xs)], [cy + slope * (min(xs) - cx), cy + slope * (max(xs) - cx)], color="C1",
                 label=f"fitted slope ({slope * 1e3:.1f} KB per iteration)")
        span = max(ys) - min(ys)
        pad = max(span * 0.25, 0.05)
        top.set_ylim(min(ys) - pad, max(ys) + pad)   # scaled to retained memory, not from zero
    for key, label, style in [("residentBytes", "resident (VmRSS)", ":"), ("anonymousBytes", "anonymous", "--"),
                              ("heapFreeHeldBytes", "allocator free-but-held", "-.")]:
        if key in samples[0]:
            bottom.plot(its, [float(s[key]) / 1e6 for s in samples], linestyle=style, marker="o", markersize=3, label=label)
    warm = [int(s["iteration"]) for s in samples if str(s["warmup"]).lower() == "true"]
    for ax in (top, bottom):
        if warm:
            ax.axvspan(min(warm) - 0.5, max(warm) + 0.5, color="grey", alpha=0.15, label="warm-up")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    top.set_ylabel("retained " + MB)
    top.set_title(title)
    finish(fig, bottom, "iteration", MB, "")


def plot_runs_csv(rows):
    """A compare or sweep CSV: per strategy (or point), median peak against median placeholders."""
    by = {}
    for row in rows:
        if row.get("status") not in (None, "", "ok"):
            continue
        try:
            by.setdefault(row["strategy"], []).append((float(row["peakResidentBytes"]) / 1e6, float(row["placeholderFrames"])))
        except (KeyError, ValueError):
            continue
    if not by:
        sys.exit(f"tools/plot.py: {path} has no successful run to plot")
    def median(values):
        values = sorted(values)
        n = len(values)
        return values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2
    fig, ax = plt.subplots(figsize=(9, 5.5))
    for name, points in by.items():
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        x, y = median(xs), median(ys)
        ax.errorbar([x], [y], xerr=[[x - min(xs)], [max(xs) - x]], yerr=[[y - min(ys)], [max(ys) - y]], marker="o", capsize=3, label=name)
        ax.annotate(name, (x, y), textcoords="offset points", xytext=(4, 6), fontsize=8)
    finish(fig, ax, "peak resident MB (median over runs, min–max bars; 1 MB = 1,000,000 bytes)", "placeholder frames (median)",
           f"Runs of {path.rsplit('/', 1)[-1]}", ncol=2)

if path.endswith(".csv"):
    try:
        rows = list(csv.DictReader(open(path)))
    except OSError as error:
        sys.exit(f"tools/plot.py: cannot read {path}: {error}")
    if not rows:
        sys.exit(f"tools/plot.py: {path} has no row to plot")
    if "iteration" in rows[0]:
        plot_soak(rows, f"Soak — {path.rsplit('/', 1)[-1]}")
    if "strategy" in rows[0] and "peakResidentBytes" in rows[0]:
        plot_runs_csv(rows)
    sys.exit(f"tools/plot.py: {path} is not a soak, compare or sweep CSV (it has no iteration or strategy and peakResidentBytes columns)")

try:
    doc = json.load(open(path))
except (OSError, ValueError) as error:
    sys.exit(f"tools/plot.py: cannot read {path}: {error}")

if "samples" in doc and "verdict" in doc:
    verdict = doc["verdict"]
    plot_soak(doc["samples"], f"Soak of {doc.get('scenario', '').rsplit('/', 1)[-1]} under {doc.get('strategy', '')}: {verdict.get('outcome', '').upper()}", verdict)

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
    admits_none_labelled = False
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
            admission = sweep.get("admissions", {}).get(e["point"]["label"])
            if admission and admission["images"] > 0 and admission["admitted"] == 0:
                ax.scatter([x], [y], marker="x", s=90, color="red", zorder=4,
                           label="admits no image (caches nothing)" if not admits_none_labelled else None)
                admits_none_labelled = True
    chosen = [e for e in entries if e["point"]["label"] == outcome.get("recommended")]
    if chosen:
        e = chosen[0]
        ax.scatter([e["row"]["peakBytes"] / 1e6], [e["row"]["placeholderFrames"]], marker="*", s=320, color="black", zorder=5,
                   label=f"{'recommended' if outcome.get('verdict') == 'met' else 'nearest'}: {e['point']['label']}")
    finish(fig, ax, "peak resident MB (median over repeats; 1 MB = 1,000,000 bytes)", "placeholder frames (median)",
           f"Sweep of {key} — {doc.get('scenario', '').rsplit('/', 1)[-1]}; ringed: frontier")

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
finish(fig, ax, "frame", MB, f"Resident memory per strategy — {doc.get('scenario', '').rsplit('/', 1)[-1]}", ncol=2, done=False)
