#!/usr/bin/env python3
"""Plot a comparison's memory over frames, a sweep's frontier, or a soak's memory over
iterations, from an --export-json file (or a soak's --export-csv file).

Usage: tools/plot.py EXPORT.json|EXPORT.csv [OUT.png]
Needs matplotlib: pip install -r tools/requirements.txt. tools/check-plots.sh draws every kind.
- From `retention compare`: per strategy (its first successful run's timeline), resident MB
  over virtual frames, dashed lines for the cache's logical bytes (what it says it holds) so
  allocator overhead and retention stand apart; below, the visible rows showing a placeholder
  (the most in any frame since the sample before); the script's checkpoints as dotted lines.
  Up to 5 strategies share one pair of panels; more are drawn as small multiples, one cell
  each, with shared axes.
- From `retention sweep` (or `retention merge` of one): median peak resident MB on the x axis,
  median placeholder frames on the y axis, one line per strategy through its values in order,
  each point labelled with its value (labels moved apart where they would collide); points on
  the Pareto frontier are ringed, points whose LRU admits no image (so caches nothing) are
  crossed out in red, the recommendation is a star; `--max-placeholders` is a dashed line,
  `--max-resident` a dotted one, and with `--max-wait-p95` a second panel shows wait p95 and
  its line.
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
    from matplotlib.ticker import MaxNLocator
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

def place_labels(ax, points, fontsize=8):
    """Annotates each (x, y, text) of `points`, each label at the first of a few offsets where it
    overlaps no label placed before it (nor the marker it names), so labels stay apart."""
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    placed = []
    offsets = [(5, 6), (5, -13), (-8, 9), (-8, -16), (5, 18), (5, -25), (-8, 22), (-8, -29), (5, 30), (5, -37)]
    for x, y, text in points:
        label = None
        for dx, dy in offsets:
            if label is not None:
                label.remove()
            label = ax.annotate(text, (x, y), textcoords="offset points", xytext=(dx, dy), fontsize=fontsize,
                                ha="left" if dx > 0 else "right")
            box = label.get_window_extent(renderer).expanded(1.05, 1.15)
            if not any(box.overlaps(other) for other in placed):
                break
        placed.append(label.get_window_extent(renderer))


def plot_sweep(doc):
    sweep, outcome = doc["sweep"], doc.get("outcome") or {}
    entries = [e for e in outcome.get("entries", []) if e["row"]["runs"] > 0]
    if not entries:
        sys.exit(f"tools/plot.py: {path} has no measured sweep point to plot")
    key = sweep["key"]
    constraints = doc.get("constraints") or {}
    def label(value):
        if key == "loadOrder":
            return ["fifo", "priority"][value] if value in (0, 1) else str(value)
        if key in ("prefetchRows", "decodeWorkers", "fetchLimit"):
            return str(value)
        if key.startswith("sourceLatencyMs") or key == "diskLatencyMs":
            return f"{value}ms"
        return f"{value / 1e6:g}MB"
    waits = constraints.get("maxWaitP95Frames") is not None
    if waits:
        fig, (ax, wait_ax) = plt.subplots(1, 2, figsize=(14, 5.5))
    else:
        fig, ax = plt.subplots(figsize=(9, 5.5))
    admits_none_labelled = False
    labels, wait_labels = [], []
    for strategy in sweep["strategies"]:
        mine = [e for e in entries if e["point"]["strategy"] == strategy]
        xs = [e["row"]["peakBytes"] / 1e6 for e in mine]
        ys = [e["row"]["placeholderFrames"] for e in mine]
        line, = ax.plot(xs, ys, marker="o", label=strategy)
        if waits:
            wys = [(e["row"].get("wait") or {}).get("p95Frames", 0) for e in mine]
            wait_ax.plot(xs, wys, marker="o", color=line.get_color(), label=strategy)
            wait_labels += [(x, y, label(e["point"]["value"])) for e, x, y in zip(mine, xs, wys)]
        # Points that land on one another (within 2 MB, same placeholders) share one label.
        groups = []
        for e, x, y in zip(mine, xs, ys):
            if groups and abs(groups[-1][1] - x) < 2 and groups[-1][2] == y:
                groups[-1][0].append(e)
            else:
                groups.append(([e], x, y))
        for members, x, y in groups:
            values = [label(m["point"]["value"]) for m in members]
            labels.append((x, y, values[0] if len(values) == 1 else f"{values[0]}–{values[-1]}"))
        for e, x, y in zip(mine, xs, ys):
            if e["onFrontier"]:
                ax.scatter([x], [y], s=160, facecolors="none", edgecolors=line.get_color(), linewidths=1.5)
            admission = sweep.get("admissions", {}).get(e["point"]["label"])
            if admission and admission["images"] > 0 and admission["admitted"] == 0:
                ax.scatter([x], [y], marker="x", s=90, color="red", zorder=4,
                           label="admits no image (caches nothing)" if not admits_none_labelled else None)
                admits_none_labelled = True
    # The constraints, as the lines a point must stay under (or left of).
    if constraints.get("maxPlaceholders") is not None:
        ax.axhline(constraints["maxPlaceholders"], color="C3", linestyle="--", linewidth=1.2,
                   label=f"--max-placeholders {constraints['maxPlaceholders']}")
    if constraints.get("maxResidentBytes") is not None:
        for axis in ([ax, wait_ax] if waits else [ax]):
            axis.axvline(constraints["maxResidentBytes"] / 1e6, color="C3", linestyle=":", linewidth=1.2,
                         label=f"--max-resident {constraints['maxResidentBytes'] / 1e6:g}MB")
    chosen = [e for e in entries if e["point"]["label"] == outcome.get("recommended")]
    if chosen:
        e = chosen[0]
        ax.scatter([e["row"]["peakBytes"] / 1e6], [e["row"]["placeholderFrames"]], marker="*", s=320, color="black", zorder=5,
                   label=f"{'recommended' if outcome.get('verdict') == 'met' else 'nearest'}: {e['point']['label']}")
    ax.margins(x=0.08)
    ax.set_ylim(0, max([y for _, y, _ in labels] + [constraints.get("maxPlaceholders") or 0, 1]) * 1.15)
    place_labels(ax, labels)
    title = f"Sweep of {key} — {doc.get('scenario', '').rsplit('/', 1)[-1]}; ringed: frontier"
    if waits:
        wait_ax.axhline(constraints["maxWaitP95Frames"], color="C3", linestyle="--", linewidth=1.2,
                        label=f"--max-wait-p95 {constraints['maxWaitP95Frames']}")
        wait_ax.margins(x=0.08)
        wait_ax.set_ylim(0, max([y for _, y, _ in wait_labels] + [constraints["maxWaitP95Frames"], 1]) * 1.15)
        place_labels(wait_ax, wait_labels)
        wait_ax.set_xlabel("peak resident MB (median over repeats)")
        wait_ax.set_ylabel("wait p95, frames from first visible to image (median)")
        wait_ax.set_title("Time to image")
        wait_ax.grid(alpha=0.3)
        wait_ax.legend(fontsize=8)
    finish(fig, ax, "peak resident MB (median over repeats; 1 MB = 1,000,000 bytes)", "placeholder frames (median)", title)

if doc.get("sweep"):
    plot_sweep(doc)

first = {}
for run in doc.get("runs", []):
    report = run.get("report")
    if report and run["strategy"] not in first:
        first[run["strategy"]] = report
if not first:
    sys.exit(f"tools/plot.py: {path} has no successful run to plot")


def script_checkpoints(report):
    """The script's named checkpoints with the frame each was taken at (exports that predate
    `frame` have none); the lab's own (startup, end, after-*) are left out."""
    own = {"startup", "end", "after-destroy", "after-trim", "resident-limit"}
    return [(c["name"], c["frame"]) for c in report.get("checkpoints", []) if c.get("frame") is not None and c["name"] not in own]


def draw_runs(memory_ax, rows_ax, reports, legend=True):
    """Resident (solid) and logical (dashed) MB over frames on `memory_ax`; below, on `rows_ax`,
    the visible rows showing a placeholder (the most in any frame since the sample before), each
    strategy in its own colour; the script's checkpoints as vertical lines on both."""
    for index, (name, report) in enumerate(reports):
        colour = f"C{index % 10}"
        frames = [s["frame"] for s in report["timeline"]]
        memory_ax.plot(frames, [s["residentBytes"] / 1e6 for s in report["timeline"]], color=colour, label=f"{name} (resident)")
        memory_ax.plot(frames, [s["logicalBytes"] / 1e6 for s in report["timeline"]], linestyle="--", color=colour, alpha=0.6,
                       label=f"{name} (logical)")
        rows = [s.get("placeholderRows") for s in report["timeline"]]
        if all(r is not None for r in rows):
            rows_ax.step(frames, rows, where="post", color=colour, label=name)
        else:
            rows_ax.text(0.5, 0.5, "this export has no placeholder rows per sample", transform=rows_ax.transAxes, ha="center", fontsize=8)
    marks = script_checkpoints(reports[0][1])
    for ax in (memory_ax, rows_ax):
        for name, frame in marks:
            ax.axvline(frame, color="grey", linestyle=":", linewidth=1)
        ax.grid(alpha=0.3)
    for name, frame in marks:
        memory_ax.text(frame, 0.98, f"{name} ", transform=memory_ax.get_xaxis_transform(), rotation=90, va="top", ha="right",
                       fontsize=7, color="dimgrey")
    most = max([s.get("placeholderRows") or 0 for _, r in reports for s in r["timeline"]] + [0])
    rows_ax.set_ylim(0, max(1, most) * 1.15)
    rows_ax.yaxis.set_major_locator(MaxNLocator(integer=True, nbins=4))
    if legend:
        memory_ax.legend(fontsize=7, ncol=2)


scenario = doc.get("scenario", "").rsplit("/", 1)[-1]
reports = list(first.items())
if len(reports) <= 5:
    fig, (memory_ax, rows_ax) = plt.subplots(2, 1, figsize=(10, 7.5), sharex=True, gridspec_kw={"height_ratios": [3, 1.4]})
    draw_runs(memory_ax, rows_ax, reports)
    memory_ax.set_title(f"Resident memory per strategy — {scenario}; dotted: the script's checkpoints")
    memory_ax.set_ylabel(MB)
    rows_ax.set_ylabel("placeholder rows")
    rows_ax.set_xlabel("frame")
    rows_ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
else:
    # Small multiples: one strategy per cell (memory above, placeholder rows below), axes shared
    # so the cells compare at a glance.
    columns = 3
    most_rows = max([s.get("placeholderRows") or 0 for _, r in reports for s in r["timeline"]] + [0])
    cells = (len(reports) + columns - 1) // columns
    fig = plt.figure(figsize=(5 * columns, 4.2 * cells))
    grid = fig.add_gridspec(cells, columns, hspace=0.3, wspace=0.25)
    memory_axes, rows_axes = [], []
    for index, report in enumerate(reports):
        inner = grid[index // columns, index % columns].subgridspec(2, 1, height_ratios=[3, 1.3], hspace=0.08)
        memory_ax = fig.add_subplot(inner[0], sharex=memory_axes[0] if memory_axes else None,
                                    sharey=memory_axes[0] if memory_axes else None)
        rows_ax = fig.add_subplot(inner[1], sharex=memory_ax, sharey=rows_axes[0] if rows_axes else None)
        memory_axes.append(memory_ax)
        rows_axes.append(rows_ax)
        draw_runs(memory_ax, rows_ax, [report], legend=False)
        rows_ax.set_ylim(0, max(1, most_rows) * 1.15)
        memory_ax.set_title(report[0], fontsize=10)
        memory_ax.tick_params(labelbottom=False)
        if index % columns == 0:
            memory_ax.set_ylabel("MB")
            rows_ax.set_ylabel("placeholders", fontsize=8)
        rows_ax.set_xlabel("frame", fontsize=8)
    fig.suptitle(f"Resident (solid) and logical (dashed) MB, placeholder rows below — {scenario}; dotted: the script's checkpoints")
    fig.subplots_adjust(top=1 - 0.75 / (4.2 * cells), left=0.06, right=0.98, bottom=0.06)
fig.savefig(out, dpi=110)
marked = script_checkpoints(reports[0][1])
has_rows = all(s.get("placeholderRows") is not None for _, r in reports for s in r["timeline"])
print(f"wrote {out}: {len(reports)} strategies{' as small multiples' if len(reports) > 5 else ''}, "
      f"{'placeholder rows per sample' if has_rows else 'no placeholder rows in the export'}, "
      f"{len(marked)} checkpoint{'' if len(marked) == 1 else 's'} marked")
