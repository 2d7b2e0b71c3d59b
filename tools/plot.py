#!/usr/bin/env python3
"""Plot a comparison's memory over frames, a sweep's frontier, or a soak's memory over
iterations, from an --export-json file (or a --export-csv file). The kind is read from the
export itself; the picture goes to -o FILE (default: EXPORT with .png).

Needs matplotlib: pip install -r tools/requirements.txt. tools/check-plots.sh draws every kind.
Each strategy has its own colour and marker (markers staggered along the line, earlier lines
drawn wider beneath later ones), so lines that coincide stay visible.
- From `retention compare`: per strategy (its first successful run's timeline), resident MB
  over virtual frames, dashed lines for the cache's logical bytes (what it says it holds) so
  allocator overhead and retention stand apart; below, the visible rows showing a placeholder
  (the most in any frame since the sample before); the script's checkpoints as dotted lines,
  their labels staggered down where they would cover one another. Up to 5 strategies share one
  pair of panels; more are drawn as small multiples, one cell each, with shared axes.
- From `retention sweep` (or `retention merge` of one): median peak resident MB on the x axis,
  median placeholder frames on the y axis, one line per strategy through its values in order,
  each point labelled with its value (labels moved apart where they would collide); points on
  the Pareto frontier are ringed, points whose LRU admits no image (so caches nothing) are
  crossed out in red, the recommendation is a star; `--max-placeholders` is a dashed line,
  `--max-resident` a dotted one, and with `--max-wait-p95` a second panel shows wait p95 and
  its line.
- From a `retention sweep` over a condition (`--vary sourceLatencyMs.p95` with constraints):
  each strategy's constrained figure against the condition's values, mildest to harshest, the
  limit dashed, the last value each strategy holds ringed in green and the first it fails
  crossed in red, the recommended strategy (the one holding the widest) drawn bold.
- From a `retention sweep` over a grid (`--vary KNOB,CONDITION`): per strategy a heat map, a
  row per knob value and a column per condition value, green where every constraint holds, red
  where one fails, each cell with its constrained figure; the answer at each condition value
  boxed, the recommendation starred.
- From a `retention compare` or `retention sweep` --export-csv (one row per run): median peak
  resident MB on the x axis, median placeholder frames on the y axis, one labelled point per
  strategy (or sweep point), the spread across runs as error bars.
- From `retention soak` (its --export-json or --export-csv): above, retained memory (the figure
  the verdict fits: anonymous less what the allocator holds freed) on an axis scaled to it, with
  the fitted slope, its 95 % interval as a band and the allowed rate (from the JSON's verdict);
  below, resident, anonymous and the allocator's free-but-held MB; warm-up iterations shaded.
"""
import argparse
import csv
import json
import os
import sys

PROG = "plot.py"
EXIT_OK, EXIT_INPUT, EXIT_USAGE, EXIT_DRAW = 0, 1, 2, 3
EPILOG = f"""\
exit status:
  {EXIT_OK}  the plot was written (one line on stdout says where)
  {EXIT_INPUT}  bad input: EXPORT is missing or unreadable, not valid JSON or CSV, not an export of
     a known kind (compare, sweep or soak), or has nothing to plot
  {EXIT_USAGE}  usage error: an unknown flag, no EXPORT, both -o and OUT, or an output that
     would overwrite EXPORT
  {EXIT_DRAW}  cannot draw or write: matplotlib is not installed, or the output cannot be written
Every failure is one line on stderr, starting with "{PROG}:".

examples:
  tools/plot.py compare.json                 # writes compare.png beside it
  tools/plot.py sweep.json -o frontier.png
  tools/plot.py soak.csv --output soak.svg   # the format follows the extension
"""
MB = "MB (1 MB = 1,000,000 bytes)"
# One marker per strategy, in order; none is the red x (admits no image) or the star (the
# recommendation) that the sweep plot draws over its points.
MARKERS = ["o", "s", "^", "D", "v", "P", "<", ">", "h", "p"]
plt = MaxNLocator = None   # matplotlib's, set by load_matplotlib once the export is read


class Failure(Exception):
    """A failure reported as one line on stderr, with the exit status it ends the tool with."""

    def __init__(self, message, status=EXIT_INPUT):
        super().__init__(" ".join(str(message).split()))
        self.status = status


class Parser(argparse.ArgumentParser):
    """argparse, with a usage error on one line (`plot.py: ...`) and exit status 2."""

    def error(self, message):
        raise Failure(f"{message} (see {PROG} --help)", EXIT_USAGE)


def parse(argv):
    parser = Parser(prog=PROG, description=__doc__, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("export", metavar="EXPORT",
                        help="a file from --export-json (compare, sweep, merge or soak) or --export-csv (compare, sweep "
                             "or soak); a name ending in .csv is read as CSV, any other as JSON")
    parser.add_argument("legacy_out", metavar="OUT", nargs="?",
                        help="deprecated, still accepted: the output file; use -o OUT instead")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write the plot to exactly FILE (default: EXPORT with its extension replaced by .png); "
                             "the format follows FILE's extension (png, svg, pdf, ...), PNG when it names none "
                             "matplotlib writes; an existing FILE is replaced")
    parser.add_argument("--traceback", action="store_true",
                        help="when drawing an export fails (an export malformed in a way not caught, or a bug here), also "
                             "print Python's traceback after the one-line message")
    args = parser.parse_args(argv)
    if args.output is not None and args.legacy_out is not None:
        parser.error(f"the output is given twice (-o {args.output} and OUT {args.legacy_out}); give -o FILE only")
    if args.legacy_out is not None:
        print(f"{PROG}: warning: the positional OUT is deprecated; use -o {args.legacy_out}", file=sys.stderr)
    out = args.output if args.output is not None else args.legacy_out
    if out is None:
        out = os.path.splitext(args.export)[0] + ".png"
    if out == "":
        parser.error("the output file name is empty")
    if os.path.abspath(out) == os.path.abspath(args.export) or (
            os.path.exists(out) and os.path.exists(args.export) and os.path.samefile(out, args.export)):
        parser.error(f"the output {out} is the export itself; name another file with -o")
    return args.export, out, args.traceback


def read_export(path):
    """(kind, content): kind is soak-csv or runs-csv (content: the rows), or soak, sweep or
    compare (content: the JSON document). Raises Failure (status 1) for anything else."""
    name = os.path.basename(path)
    if path.endswith(".csv"):
        try:
            with open(path, newline="") as handle:
                rows = list(csv.DictReader(handle))
        except (OSError, ValueError, csv.Error) as error:
            raise Failure(f"cannot read {path}: {describe(error)}")
        if not rows:
            raise Failure(f"{path} has no row to plot")
        if "iteration" in rows[0]:
            return "soak-csv", rows
        if "strategy" in rows[0] and "peakResidentBytes" in rows[0]:
            return "runs-csv", rows
        raise Failure(f"{name} is not a soak, compare or sweep CSV (it has no iteration column, nor strategy and "
                      f"peakResidentBytes columns)")
    try:
        with open(path) as handle:
            doc = json.load(handle)
    except OSError as error:
        raise Failure(f"cannot read {path}: {describe(error)}")
    except ValueError as error:   # JSONDecodeError, UnicodeDecodeError
        raise Failure(f"cannot read {path}: not valid JSON: {error}")
    if isinstance(doc, dict):
        if "samples" in doc and "verdict" in doc:
            return "soak", doc
        if doc.get("sweep"):
            return "sweep", doc
        if "runs" in doc:
            return "compare", doc
    found = f"keys {', '.join(sorted(doc)[:6])}" if isinstance(doc, dict) and doc else f"a JSON {type(doc).__name__}"
    raise Failure(f"{name} is not a compare, sweep or soak export (it has none of runs, sweep, or samples with a verdict; "
                  f"found {found})")


def describe(error):
    return error.strerror if isinstance(error, OSError) and error.strerror else str(error)


def load_matplotlib():
    """pyplot and MaxNLocator, imported only once the arguments and the export are read, so
    --help and bad input need no matplotlib."""
    global plt, MaxNLocator
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import MaxNLocator
    except ImportError as error:
        raise Failure(f"drawing needs matplotlib ({error}): pip install -r tools/requirements.txt", EXIT_DRAW)


def check_writable(out):
    """Refuses, before any drawing, an output that is a folder or whose folder is missing."""
    if os.path.isdir(out):
        raise Failure(f"cannot write {out}: it is a folder", EXIT_DRAW)
    folder = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(folder):
        raise Failure(f"cannot write {out}: no folder {folder}", EXIT_DRAW)


def save(fig, out):
    """Writes the figure to exactly `out` (no extension added), in the format its extension
    names, PNG when matplotlib writes no such format."""
    kind = os.path.splitext(out)[1][1:].lower()
    if kind not in fig.canvas.get_supported_filetypes():
        kind = "png"
    try:
        handle = open(out, "wb")
    except OSError as error:
        raise Failure(f"cannot write {out}: {describe(error)}", EXIT_DRAW)
    try:
        with handle:
            fig.savefig(handle, format=kind, dpi=110)
    except OSError as error:
        try:
            os.remove(out)
        except OSError:
            pass
        raise Failure(f"cannot write {out}: {describe(error)}", EXIT_DRAW)


def widths(count, thinnest=1.4, step=0.5):
    """Line widths for `count` strategies drawn in order: earlier ones wider, so a later line
    drawn over an earlier one leaves its edges showing."""
    return [thinnest + step * (count - 1 - index) for index in range(count)]


def staggered(index, count, points, marks=12):
    """markevery for strategy `index` of `count` over `points` samples: about `marks` markers,
    each strategy's shifted along the line so coinciding lines show alternating markers."""
    every = max(1, points // marks)
    return (min(points - 1, (index * every) // max(1, count)) if points else 0, every)


def finish(fig, ax, xlabel, ylabel, title, ncol=1):
    """Labels, grid and legend, then the layout."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, ncol=ncol)
    fig.tight_layout()


def plot_soak(path, samples, title, verdict=None):
    """Two panels: retained memory (what the verdict judges) on an axis scaled to it, with the
    fitted slope, its 95 % interval as a band and the allowed rate as a line, all through the
    measured iterations' centroid; below, resident, anonymous and the allocator's free-but-held
    memory. Without a verdict (a CSV) the slope is fitted here and no band or limit is drawn."""
    if not samples:
        raise Failure(f"{path} has no soak sample to plot")
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
    series = [("residentBytes", "resident (VmRSS)", ":"), ("anonymousBytes", "anonymous", "--"),
              ("heapFreeHeldBytes", "allocator free-but-held", "-.")]
    for index, (key, label, style) in enumerate(series):
        if key in samples[0]:
            bottom.plot(its, [float(s[key]) / 1e6 for s in samples], linestyle=style, marker=MARKERS[index], markersize=4,
                        linewidth=widths(len(series))[index], label=label)
    warm = [int(s["iteration"]) for s in samples if str(s["warmup"]).lower() == "true"]
    for ax in (top, bottom):
        if warm:
            ax.axvspan(min(warm) - 0.5, max(warm) + 0.5, color="grey", alpha=0.15, label="warm-up")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    top.set_ylabel("retained " + MB)
    top.set_title(title)
    finish(fig, bottom, "iteration", MB, "")
    return fig, ""


def plot_runs_csv(path, rows):
    """A compare or sweep CSV: per strategy (or point), median peak against median placeholders."""
    by = {}
    for row in rows:
        if row.get("status") not in (None, "", "ok"):
            continue
        try:
            by.setdefault(row["strategy"], []).append((float(row["peakResidentBytes"]) / 1e6, float(row["placeholderFrames"])))
        except (KeyError, ValueError, TypeError):
            continue
    if not by:
        raise Failure(f"{path} has no successful run to plot")

    def median(values):
        values = sorted(values)
        n = len(values)
        return values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2
    fig, ax = plt.subplots(figsize=(9, 5.5))
    points = []
    for index, (name, runs) in enumerate(by.items()):
        xs, ys = [p[0] for p in runs], [p[1] for p in runs]
        x, y = median(xs), median(ys)
        ax.errorbar([x], [y], xerr=[[x - min(xs)], [max(xs) - x]], yerr=[[y - min(ys)], [max(ys) - y]],
                    marker=MARKERS[index % len(MARKERS)], markersize=7, fillstyle="none" if index % 2 else "full",
                    capsize=3, label=name)
        points.append((x, y, name))
    ax.margins(x=0.1, y=0.15)
    place_labels(ax, points)
    finish(fig, ax, "peak resident MB (median over runs, min–max bars; 1 MB = 1,000,000 bytes)", "placeholder frames (median)",
           f"Runs of {os.path.basename(path)}", ncol=2)
    return fig, ""


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


def plot_sweep(path, doc):
    sweep, outcome = doc["sweep"], doc.get("outcome") or {}
    entries = [e for e in outcome.get("entries", []) if e["row"]["runs"] > 0]
    if not entries:
        raise Failure(f"{path} has no measured sweep point to plot")
    key = sweep["key"]
    constraints = doc.get("constraints") or {}

    def label(value):
        return value_label(key, value)
    waits = constraints.get("maxWaitP95Frames") is not None
    if waits:
        fig, (ax, wait_ax) = plt.subplots(1, 2, figsize=(14, 5.5))
    else:
        fig, ax = plt.subplots(figsize=(9, 5.5))
    admits_none_labelled = False
    labels, wait_labels = [], []
    strategies = sweep["strategies"]
    line_widths = widths(len(strategies), thinnest=1.3, step=0.6)
    for index, strategy in enumerate(strategies):
        mine = [e for e in entries if e["point"]["strategy"] == strategy]
        xs = [e["row"]["peakBytes"] / 1e6 for e in mine]
        ys = [e["row"]["placeholderFrames"] for e in mine]
        # Each strategy its own marker, earlier ones wider and hollow beneath: a point two
        # strategies share shows both markers.
        style = dict(marker=MARKERS[index % len(MARKERS)], linewidth=line_widths[index],
                     markersize=6 + 2.5 * (len(strategies) - 1 - index), fillstyle="none" if index < len(strategies) - 1 else "full",
                     markeredgewidth=1.5)
        line, = ax.plot(xs, ys, label=strategy, **style)
        if waits:
            wys = [(e["row"].get("wait") or {}).get("p95Frames", 0) for e in mine]
            wait_ax.plot(xs, wys, color=line.get_color(), label=strategy, **style)
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
                ax.scatter([x], [y], s=160 + 60 * (len(strategies) - 1 - index), facecolors="none", edgecolors=line.get_color(),
                           linewidths=1.5)
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
    ax.set_ylim(-0.05 * max([y for _, y, _ in labels] + [1]),
                max([y for _, y, _ in labels] + [constraints.get("maxPlaceholders") or 0, 1]) * 1.15)
    place_labels(ax, labels)
    title = f"Sweep of {key} — {doc.get('scenario', '').rsplit('/', 1)[-1]}; ringed: frontier"
    if waits:
        wait_ax.axhline(constraints["maxWaitP95Frames"], color="C3", linestyle="--", linewidth=1.2,
                        label=f"--max-wait-p95 {constraints['maxWaitP95Frames']}")
        wait_ax.margins(x=0.08)
        wait_ax.set_ylim(-0.05 * max([y for _, y, _ in wait_labels] + [1]),
                         max([y for _, y, _ in wait_labels] + [constraints["maxWaitP95Frames"], 1]) * 1.15)
        place_labels(wait_ax, wait_labels)
        wait_ax.set_xlabel("peak resident MB (median over repeats)")
        wait_ax.set_ylabel("wait p95, frames from first visible to image (median)")
        wait_ax.set_title("Time to image")
        wait_ax.grid(alpha=0.3)
        wait_ax.legend(fontsize=8)
    finish(fig, ax, "peak resident MB (median over repeats; 1 MB = 1,000,000 bytes)", "placeholder frames (median)", title)
    return fig, ""


# The constraint a condition or grid plot draws: the first set, as SweepConstraints.gridMetric
# picks it: (constraint key, row figure, axis label, flag).
METRICS = [
    ("maxPlaceholders", lambda row: worst(row, "placeholderSpread", "placeholderFrames"), "placeholder frames (worst repeat)", "--max-placeholders"),
    ("maxHitches", lambda row: worst(row, "hitchesSpread", "hitches"), "hitches (worst repeat)", "--max-hitches"),
    ("maxWaitP95Frames", lambda row: worst(row.get("wait") or {}, "p95Spread", "p95Frames"), "wait p95 frames (worst repeat)", "--max-wait-p95"),
    ("maxDecodes", lambda row: worst(row, "decodesSpread", "decodes"), "decodes (worst repeat)", "--max-decodes"),
    ("maxResidentBytes", lambda row: worst(row, "peakSpread", "peakBytes") / 1e6, "peak resident MB (worst repeat)", "--max-resident"),
]


def worst(row, spread, median):
    """A figure's worst repeat: the spread's max, or the median without one."""
    values = row.get(spread) or []
    return values[1] if len(values) == 2 else row.get(median, 0) or 0


def constrained_metric(constraints):
    """(figure of a row, axis label, limit, flag) of the first constraint set; placeholders without one."""
    for key, figure, name, flag in METRICS:
        if constraints.get(key) is not None:
            limit = constraints[key] / 1e6 if key == "maxResidentBytes" else constraints[key]
            return figure, name, limit, flag
    return METRICS[0][1], METRICS[0][2], None, None


def value_label(key, value):
    """A swept value as the tool prints it: 8MB, 40ms, fifo, 2x, 200%, 4."""
    if key == "loadOrder":
        return ["fifo", "priority"][value] if value in (0, 1) else str(value)
    if key.startswith("sourceLatencyMs") or key == "diskLatencyMs":
        return f"{value}ms"
    if key == "decodeSlowdown":
        return f"{value}x"
    if key == "scrollSpeed":
        return f"{value}%"
    if key in SIZE_KEYS:
        return f"{value / 1e6:g}MB"
    return str(value)


# The keys whose values are sizes in bytes (SweepKey.isSize); the rest are counts, times,
# factors, percentages or names.
SIZE_KEYS = ("bitmapBudget", "decodedBudget", "thumbnailBudget", "compressedBudget", "admissionCap", "diskBudget")


def plot_condition(path, doc):
    """A sweep over a condition: each strategy's constrained figure against the condition's
    values (mildest to harshest, evenly spaced), the limit dashed, where each strategy last holds
    ringed in green and where it first fails crossed in red; the recommended strategy in bold."""
    sweep, outcome = doc["sweep"], doc.get("outcome") or {}
    key, values, strategies = sweep["key"], sweep["values"], sweep["strategies"]
    figure, name, limit, flag = constrained_metric(doc.get("constraints") or {})
    entries = [e for e in outcome.get("entries", []) if e["row"]["runs"] > 0]
    if not entries:
        raise Failure(f"{path} has no measured sweep point to plot")
    recommended = (outcome.get("recommended") or "").split(" ")[0]
    fig, ax = plt.subplots(figsize=(9, 5.5))
    line_widths = widths(len(strategies), thinnest=1.3, step=0.6)
    styles = ["-", "--", "-.", ":"]
    marked, notes = 0, []
    for index, strategy in enumerate(strategies):
        mine = sorted((e for e in entries if e["point"]["strategy"] == strategy), key=lambda e: e["point"]["value"])
        xs = [values.index(e["point"]["value"]) for e in mine]
        ys = [figure(e["row"]) for e in mine]
        bold = strategy == recommended
        # Earlier strategies' markers larger and hollow beneath later ones, so lines that
        # coincide still show every strategy's marker.
        line, = ax.plot(xs, ys, marker=MARKERS[index % len(MARKERS)], linestyle=styles[index % len(styles)],
                        linewidth=line_widths[index] + (1.2 if bold else 0), markersize=6 + 3 * (len(strategies) - 1 - index),
                        fillstyle="none" if index < len(strategies) - 1 else "full", markeredgewidth=1.5,
                        label=strategy + (" (recommended: holds the widest)" if bold else ""))
        point = next((b for b in outcome.get("breakingPoints") or [] if b["strategy"] == strategy), None)
        if point is None:
            continue
        for value, colour, marker in ((point.get("holdsUpTo"), "green", "o"), (point.get("failsAt"), "red", "x")):
            if value is None or value not in values:
                continue
            y = next((yy for xx, yy in zip(xs, ys) if xx == values.index(value)), None)
            if y is None:
                continue
            ax.scatter([values.index(value)], [y], s=220, marker=marker, facecolors="none" if marker == "o" else colour,
                       edgecolors=colour if marker == "o" else None, color=colour if marker == "x" else None, linewidths=2, zorder=5)
            marked += 1
        notes.append((point["line"], line.get_color()))
    if limit is not None:
        ax.axhline(limit, color="C3", linestyle="--", linewidth=1.2, label=f"{flag} {limit:g}")
    ax.scatter([], [], s=120, marker="o", facecolors="none", edgecolors="green", label="last value held")
    ax.scatter([], [], s=120, marker="x", color="red", label="first value failed")
    ax.set_xticks(range(len(values)), [value_label(key, v) for v in values])
    ax.margins(x=0.08)
    finish(fig, ax, f"{key} (a condition: milder to harsher)", name,
           f"Which strategy survives a harsher {key} — {doc.get('scenario', '').rsplit('/', 1)[-1]}")
    # The breaking points' lines under the plot, each in its strategy's colour.
    fig.subplots_adjust(bottom=0.14 + 0.035 * len(notes))
    for index, (text, colour) in enumerate(notes):
        fig.text(0.01, 0.012 + 0.035 * (len(notes) - 1 - index), text, fontsize=7.5, color=colour)
    return fig, f": {len(strategies)} strategies over {len(values)} values of {key}, {marked} breaking point{'' if marked == 1 else 's'} marked"


def plot_grid(path, doc):
    """A grid of a knob and a condition: per strategy a heat map, a row per knob value and a
    column per condition value, green where every constraint holds and red where one fails,
    each cell its constrained figure; the answer at each condition value boxed, the
    recommendation starred."""
    sweep, outcome = doc["sweep"], doc.get("outcome") or {}
    key, values, grid, strategies = sweep["key"], sweep["values"], sweep["grid"], sweep["strategies"]
    figure, name, limit, flag = constrained_metric(doc.get("constraints") or {})
    # Points by what they are, not by their printed labels, so a key's formatting cannot lose one.
    entries = {(e["point"]["strategy"], e["point"]["value"], e["point"].get("gridValue")): e for e in outcome.get("entries", [])}
    recommended = next((point for point, e in entries.items() if e["point"]["label"] == outcome.get("recommended")), None)
    if not any(e["row"]["runs"] > 0 for e in entries.values()):
        raise Failure(f"{path} has no measured sweep point to plot")
    from matplotlib.colors import ListedColormap
    fig, axes = plt.subplots(1, len(strategies), figsize=(max(9, 2.2 + 1.4 * len(grid["values"]) * len(strategies)), 2.4 + 0.6 * len(values)),
                             squeeze=False, sharey=True)
    answers = {(a.get("strategy"), a.get("knobValue"), a["conditionValue"]) for a in outcome.get("gridAnswers") or []}
    boxed = measured = 0
    for ax, strategy in zip(axes[0], strategies):
        cells, texts = [], []
        for value in values:
            row_cells, row_texts = [], []
            for condition in grid["values"]:
                e = entries.get((strategy, value, condition))
                if e is None or e["row"]["runs"] == 0:
                    row_cells.append(0.5), row_texts.append("-")
                    continue
                measured += 1
                row_cells.append(1.0 if not e["failures"] else 0.0)
                shown = figure(e["row"])
                row_texts.append(f"{'ok' if not e['failures'] else 'FAIL'}\n{shown:g}")
            cells.append(row_cells), texts.append(row_texts)
        ax.imshow(cells, cmap=ListedColormap(["#e8a0a0", "#dddddd", "#a8d8a8"]), vmin=0, vmax=1, aspect="auto")
        for i, value in enumerate(values):
            for j, condition in enumerate(grid["values"]):
                ax.text(j, i, texts[i][j], ha="center", va="center", fontsize=8)
                if (strategy, value, condition) in answers:
                    ax.add_patch(plt.Rectangle((j - 0.48, i - 0.48), 0.96, 0.96, fill=False, edgecolor="black", linewidth=2.2))
                    boxed += 1
                if (strategy, value, condition) == recommended:
                    ax.scatter([j + 0.32], [i - 0.3], marker="*", s=200, color="black", zorder=5)
        ax.set_xticks(range(len(grid["values"])), [value_label(grid["key"], c) for c in grid["values"]])
        ax.set_yticks(range(len(values)), [value_label(key, v) for v in values])
        ax.set_xlabel(f"{grid['key']} (condition)")
        ax.set_title(strategy, fontsize=10)
    axes[0][0].set_ylabel(f"{key} (knob)")
    held = outcome.get("recommended") or "nothing holds"
    fig.suptitle(f"{key} × {grid['key']} — {doc.get('scenario', '').rsplit('/', 1)[-1]}: {name}"
                 f"{f', {flag} {limit:g}' if limit is not None else ''}; green holds, red fails\n"
                 f"boxed: the cheapest point holding up to each column; star: {held}", fontsize=9)
    fig.tight_layout()
    return fig, f": {len(strategies)} strateg{'y' if len(strategies) == 1 else 'ies'}, {len(values)} × {len(grid['values'])} grid, {measured} cells measured, {boxed} answer{'' if boxed == 1 else 's'} boxed"


def script_checkpoints(report):
    """The script's named checkpoints with the frame each was taken at (exports that predate
    `frame` have none); the lab's own (startup, end, after-*) are left out."""
    own = {"startup", "end", "after-destroy", "after-trim", "resident-limit"}
    return [(c["name"], c["frame"]) for c in report.get("checkpoints", []) if c.get("frame") is not None and c["name"] not in own]


def strategy_style(index, count, points):
    """A strategy's colour, marker, staggered marker positions and line width."""
    return dict(color=f"C{index % 10}", marker=MARKERS[index % len(MARKERS)], markersize=5,
                markevery=staggered(index, count, points), linewidth=widths(count, thinnest=1.3, step=0.6)[index])


def draw_runs(memory_ax, rows_ax, reports, legend=True):
    """Resident (solid) and logical (dashed) MB over frames on `memory_ax`; below, on `rows_ax`,
    the visible rows showing a placeholder (the most in any frame since the sample before), each
    strategy in its own colour and marker; the script's checkpoints as vertical lines on both
    (their labels are placed by `label_checkpoints`, once the layout is final)."""
    from matplotlib.lines import Line2D
    handles = []
    for index, (name, report) in enumerate(reports):
        timeline = report["timeline"]
        style = strategy_style(index, len(reports), len(timeline))
        frames = [s["frame"] for s in timeline]
        line, = memory_ax.plot(frames, [s["residentBytes"] / 1e6 for s in timeline], label=name, **style)
        memory_ax.plot(frames, [s["logicalBytes"] / 1e6 for s in timeline], linestyle="--", alpha=0.7, fillstyle="none",
                       **style)
        handles.append(line)
        rows = [s.get("placeholderRows") for s in timeline]
        if all(r is not None for r in rows):
            rows_ax.step(frames, rows, where="post", **style)
        else:
            rows_ax.text(0.5, 0.5, "this export has no placeholder rows per sample", transform=rows_ax.transAxes, ha="center", fontsize=8)
    for ax in (memory_ax, rows_ax):
        for name, frame in script_checkpoints(reports[0][1]):
            ax.axvline(frame, color="grey", linestyle=":", linewidth=1)
        ax.grid(alpha=0.3)
    most = max([s.get("placeholderRows") or 0 for _, r in reports for s in r["timeline"]] + [0])
    rows_ax.set_ylim(-0.08 * max(1, most), max(1, most) * 1.15)   # below 0, so markers on 0 show whole
    rows_ax.yaxis.set_major_locator(MaxNLocator(integer=True, nbins=4))
    if legend:
        handles += [Line2D([], [], color="black", label="solid: resident"),
                    Line2D([], [], color="black", linestyle="--", alpha=0.7, label="dashed: logical bytes")]
        memory_ax.legend(handles=handles, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)


def label_checkpoints(ax, marks, fontsize=7):
    """Labels each checkpoint's dotted line at the top of `ax`, the text turned along the line
    just left of it; a label that would cover one placed before (checkpoints at or near the same
    frame) goes below it instead, and one that no longer fits above the axis's bottom goes right
    of its line. Call once the layout is final: the overlap is measured in pixels."""
    renderer = ax.figure.canvas.get_renderer()
    bottom = ax.get_window_extent(renderer).y0
    to_axes = ax.transAxes.inverted()
    placed = []
    for name, frame in sorted(marks, key=lambda mark: mark[1]):
        y, side = 0.98, "right"
        for _ in range(len(marks) + 2):
            text = ax.text(frame, y, f" {name} ", transform=ax.get_xaxis_transform(), rotation=90, va="top", ha=side,
                           fontsize=fontsize, color="dimgrey", zorder=6,
                           bbox=dict(facecolor="white", edgecolor="lightgrey", linewidth=0.6, alpha=0.8, pad=0.3))
            box = text.get_window_extent(renderer).expanded(1.1, 1.0)
            clashes = [other for other in placed if box.overlaps(other)]
            if not clashes:
                break
            lowest = min(other.y0 for other in clashes)
            below = to_axes.transform((0, lowest - 6))[1]
            if lowest - 6 - box.height < bottom:
                if side == "left":
                    break   # no room anywhere: keep this place rather than lose the label
                y, side = 0.98, "left"
            else:
                y = below
            text.remove()
        placed.append(text.get_window_extent(renderer))


def plot_compare(path, doc):
    first = {}
    for run in doc.get("runs", []):
        report = run.get("report")
        if report and run["strategy"] not in first:
            first[run["strategy"]] = report
    if not first:
        raise Failure(f"{path} has no successful run to plot")
    scenario = doc.get("scenario", "").rsplit("/", 1)[-1]
    reports = list(first.items())
    marked = script_checkpoints(reports[0][1])
    if len(reports) <= 5:
        fig, (memory_ax, rows_ax) = plt.subplots(2, 1, figsize=(12, 7.5), sharex=True, gridspec_kw={"height_ratios": [3, 1.4]})
        draw_runs(memory_ax, rows_ax, reports)
        memory_ax.set_title(f"Resident memory per strategy — {scenario}; dotted: the script's checkpoints")
        memory_ax.set_ylabel(MB)
        rows_ax.set_ylabel("placeholder rows")
        rows_ax.set_xlabel("frame")
        fig.tight_layout()
        label_checkpoints(memory_ax, marked)
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
            rows_ax.set_ylim(-0.08 * max(1, most_rows), max(1, most_rows) * 1.15)
            memory_ax.set_title(report[0], fontsize=10)
            memory_ax.tick_params(labelbottom=False)
            if index % columns == 0:
                memory_ax.set_ylabel("MB")
                rows_ax.set_ylabel("placeholders", fontsize=8)
            rows_ax.set_xlabel("frame", fontsize=8)
        fig.suptitle(f"Resident (solid) and logical (dashed) MB, placeholder rows below — {scenario}; dotted: the script's checkpoints")
        fig.subplots_adjust(top=1 - 0.75 / (4.2 * cells), left=0.06, right=0.98, bottom=0.06)
        fig.canvas.draw()
        for memory_ax, (_, report) in zip(memory_axes, reports):
            label_checkpoints(memory_ax, script_checkpoints(report))
    has_rows = all(s.get("placeholderRows") is not None for _, r in reports for s in r["timeline"])
    return fig, (f": {len(reports)} strategies{' as small multiples' if len(reports) > 5 else ''}, "
                 f"{'placeholder rows per sample' if has_rows else 'no placeholder rows in the export'}, "
                 f"{len(marked)} checkpoint{'' if len(marked) == 1 else 's'} marked")


def draw(path, kind, content):
    """The figure for an export of `kind`, and what to say after `wrote OUT`."""
    name = os.path.basename(path)
    if kind == "soak-csv":
        return plot_soak(path, content, f"Soak — {name}")
    if kind == "runs-csv":
        return plot_runs_csv(path, content)
    if kind == "soak":
        verdict = content["verdict"]
        return plot_soak(path, content["samples"], f"Soak of {content.get('scenario', '').rsplit('/', 1)[-1]} under "
                                                   f"{content.get('strategy', '')}: {verdict.get('outcome', '').upper()}", verdict)
    if kind == "sweep":
        if content["sweep"].get("grid"):
            return plot_grid(path, content)
        if (content.get("outcome") or {}).get("breakingPoints") is not None:
            return plot_condition(path, content)
        return plot_sweep(path, content)
    return plot_compare(path, content)


def main(argv=None):
    show_traceback = "--traceback" in (sys.argv[1:] if argv is None else argv)
    try:
        path, out, show_traceback = parse(argv)
        kind, content = read_export(path)
        check_writable(out)
        load_matplotlib()
        try:
            fig, said = draw(path, kind, content)
        except Failure:
            raise
        except (KeyError, IndexError, TypeError, ValueError, AttributeError, ZeroDivisionError) as error:
            detail = f"{type(error).__name__} {error}" if str(error) else type(error).__name__
            raise Failure(f"cannot draw {path} as a {kind.replace('-csv', ' CSV')} export: {detail} "
                          f"(--traceback shows where)") from error
        save(fig, out)
    except Failure as failure:
        print(f"{PROG}: {failure}", file=sys.stderr)
        if show_traceback and failure.__cause__ is not None:
            import traceback
            cause = failure.__cause__
            traceback.print_exception(type(cause), cause, cause.__traceback__)
        return failure.status
    print(f"wrote {out}{said}")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
