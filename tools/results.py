#!/usr/bin/env python3
"""Re-run every figure the README and docs/ quote, and write docs/results.md.

Usage: tools/results.py RETENTION_BINARY [--repeat N] [--only ID,ID] [--long]
       tools/results.py --sync      copy every section of docs/results.md into the pages that quote it
       tools/results.py --check     exit 1 when a quoted block differs from docs/results.md
(tools/results.sh builds the release binary and calls this.)

Sections marked long (a 30-minute soak, the cache and disk-store benchmarks) run only with
--long or when named in --only. Every section carries its own stamp (commit, date, machine), so a partial
run never lends its stamp to figures it did not measure.

Each table is one or more `retention compare SCENARIO --strategies … --export-json F` runs;
the markdown tables are made from the exports' medians (with min–max where the repeats
differ). docs/results.md is stamped with the commit, the date, the machine and each
comparison's cost-table summary. The README and the pages of docs/ quote the same tables
between `<!-- results:ID -->` and `<!-- /results:ID -->` markers, which this script rewrites,
so no figure anywhere is typed by hand. Besides comparisons and sweeps, a section can be a
script's output (`script`, quoted as text or, with `markdown`, as the table it prints) or a
`retention` command quoted with its exit status (`command`).

Sections over the corpora ({corpus}, {flatcorpus}) make them with tools/make-corpus.sh once per
run, or take the folders in the environment variables CORPUS and FLATCORPUS: corpora that
tools/make-corpus.sh (and --flat) already made, never committed.
"""
import statistics
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def mb(value):
    return f"{value / 1e6:.1f}"


def spread(median, low_high, fmt=str):
    """`median`, or `median (low–high)` when the runs differ as printed."""
    low, high = (fmt(v) for v in low_high)
    return fmt(median) if low == high else f"{fmt(median)} ({low}–{high})"


def checkpoint_median(runs, strategy, name, key):
    values = sorted(
        c[key]
        for r in runs
        if r["strategy"] == strategy and r.get("report")
        for c in r["report"]["checkpoints"]
        if c["name"] == name
    )
    return statistics.median(values) if values else 0


# Each table: id, title, list of (label, scenario, strategies), columns.
# A column is (header, function(row, runs, label) -> text); row is the summary row.
def col(header, key, fmt=mb, spread_key=None):
    def cell(row, runs, label):
        value = row[key]
        if spread_key:
            return spread(value, row[spread_key], fmt)
        return fmt(value)
    return (header, cell)


def checkpoint_col(header, name, key="logicalBytes"):
    return (header, lambda row, runs, label: mb(checkpoint_median(runs, row["strategy"], name, key)))


STARTUP = col("startup", "startupBytes")
ALL = col("all loaded", "allLoadedBytes")
PEAK = col("peak", "peakBytes", spread_key="peakSpread")
DESTROY = col("after destroy", "afterDestroyBytes")
TRIM = col("after trim", "afterTrimBytes")
LOGICAL = col("logical peak", "logicalPeakBytes")
DECODES = col("decodes", "decodes", fmt=str)
HITCHES = col("hitches", "hitches", fmt=str, spread_key="hitchesSpread")
PLACEHOLDERS = col("placeholder frames", "placeholderFrames", fmt=str, spread_key="placeholderSpread")
LABEL = ("", lambda row, runs, label: label)
STRATEGY = ("strategy", lambda row, runs, label: row["strategy"])


def disk_col(header, key, fmt=str):
    """A figure of the row's disk tier, or - for a strategy without one."""
    return (header, lambda row, runs, label: fmt(row["disk"][key]) if row.get("disk") else "-")


DISK_PEAK = disk_col("disk peak (on disk)", "peakBytes", mb)
DISK_READS = disk_col("disk reads", "reads")
DISK_HITS = disk_col("disk hits", "hits")
DISK_WRITES = disk_col("disk writes", "writes")
SOURCE_READS = ("source reads", lambda row, runs, label: str(row["sourceReads"]) if row.get("sourceReads") is not None else "-")
SESSION = ("session", lambda row, runs, label: label)

TABLES = [
    dict(id="default", title="The default comparison", text=True,
         runs=[("default", "default.json", None)], plot="docs/default-compare.png"),
    dict(id="quick-start", title="The quick start's comparison", text=True,
         runs=[("quick-start", "quick-start.json", None)]),
    dict(id="seed-image-vs-data", title="Seed 000, Image vs Data",
         runs=[("", "seed-image-vs-data.json", ["swiftui-image-state", "swiftui-data-state"])],
         columns=[STRATEGY, STARTUP, ALL, PEAK, DESTROY, TRIM, LOGICAL, DECODES, HITCHES]),
    dict(id="seed-image-reappear", title="Seed 000, each appearance makes a new image",
         runs=[("", "seed-image-reappear.json", ["swiftui-image-state", "decoded-row-kept", "swiftui-data-state", "decoded-lru"])],
         columns=[STRATEGY, checkpoint_col("logical after down 1", "down-1"), checkpoint_col("up 1", "up-1"),
                  checkpoint_col("down 2", "down-2"), checkpoint_col("up 2", "all-loaded"), PEAK, DESTROY, DECODES]),
    dict(id="seed-identity", title="Seed 004, identity",
         runs=[("List", "seed-identity-list.json", ["decoded-lru"]),
               ("List with `.id`", "seed-identity-list-explicit-id.json", ["decoded-lru"]),
               ("LazyVStack", "seed-identity-lazyvstack.json", ["decoded-lru"]),
               ("LazyVStack with `.id`", "seed-identity-lazyvstack-explicit-id.json", ["decoded-lru"])],
         columns=[("scenario", LABEL[1]), STARTUP, ALL, PEAK]),
    dict(id="seed-destinations", title="Seed 003, destinations",
         runs=[("eager", "seed-destinations-eager.json", ["decoded-lru"]),
               ("lazy", "seed-destinations-lazy.json", ["decoded-lru"])],
         columns=[("scenario", LABEL[1]), STARTUP, ALL, PEAK, DESTROY]),
    dict(id="lazyvstack-release", title="LazyVStack never releases",
         runs=[("LazyVStack", "lazyvstack-release.json", ["decoded-release", "decoded-lru"]),
               ("List", "lazyvstack-release-list.json", ["decoded-release", "decoded-lru"])],
         columns=[("container", LABEL[1]), STRATEGY, ALL, PEAK, LOGICAL]),
    dict(id="infinite-feed", title="Infinite feed",
         runs=[("", "infinite-feed.json", ["decoded-lru", "decoded-release", "swiftui-image-state"])],
         columns=[STRATEGY, ALL, PEAK, DESTROY, LOGICAL, DECODES]),
    dict(id="sync-async", title="Sync vs async display",
         runs=[("default, sync", "default.json", ["swiftui-image-state", "decoded-lru"]),
               ("default, async", "default-async.json", ["swiftui-image-state", "decoded-lru"]),
               ("seed-image-vs-data, sync", "seed-image-vs-data.json", ["swiftui-image-state", "swiftui-data-state"]),
               ("seed-image-vs-data, async", "seed-image-vs-data-async.json", ["swiftui-image-state", "swiftui-data-state"])],
         columns=[("scenario", LABEL[1]), STRATEGY, HITCHES, PLACEHOLDERS, PEAK, TRIM]),
    dict(id="sweep-default", title="Sweep: the default scenario",
         sweep=["assets/scenarios/default.json", "--values", "8MB...256MB", "--max-placeholders", "0", "--max-hitches", "2"]),
    dict(id="sweep-browse", title="Sweep: 1200x900 photos browsed back and forth",
         sweep=["assets/scenarios/browse-1200x900.json", "--strategies", "decoded-lru,thumbnail-lru", "--values", "8MB...256MB",
                "--max-placeholders", "10"]),
    dict(id="jobs", title="Parallel children: --jobs 2 against --jobs 1",
         script=["tools/paired-compare.sh", "jobs"], tail=2),
    dict(id="host-load", title="A busy host: the default comparison beside two CPU hogs",
         script=["tools/paired-compare.sh", "load"], env={"ROUNDS": "5"}, accept=(0, 1)),
    dict(id="costs-reproduce", title="One cost table, the same async comparison twice",
         script=["tools/paired-compare.sh", "costs", "assets/scenarios/fast-scroll-async.json"], accept=(0, 1)),
    dict(id="sample-trace", title="A recorded trace: the sample session", text=True,
         runs=[("sample", "sample-trace.json", None)]),
    dict(id="trace-scale", title="A 10-million-event trace streams, and its replay rate",
         script=["tools/trace-scale.sh"]),
    dict(id="soak-leak", title="A soak that finds a slow leak",
         command=["soak", "assets/scenarios/soak-slow-leak.json", "--strategy", "swiftui-image-state", "--iterations", "6"]),
    dict(id="soak-gate-fail", title="A CI gate's soak that fails: the growing feed",
         command=["soak", "assets/scenarios/soak-growing-feed.json", "--strategy", "decoded-lru", "--iterations", "60",
                  "--until-verdict", "--max-growth-rate", "16MB/h", "--max-growth", "16MB", "--horizon", "1h"]),
    dict(id="soak-gate-pass", title="A CI gate's soak that passes: the default scenario under decoded-lru",
         command=["soak", "assets/scenarios/default.json", "--strategy", "decoded-lru", "--iterations", "60",
                  "--until-verdict", "--max-growth-rate", "16MB/h", "--max-growth", "16MB", "--horizon", "1h"]),
    dict(id="soak-verdicts", title="How long each soak verdict takes with --until-verdict",
         script=["tools/soak-verdicts.sh"]),
    dict(id="soak-own-code", title="Soak your own code: iterations and wall time to a verdict, closures and programs",
         script=["tools/soak-own-code.sh"]),
    dict(id="soak-30m", title="A 30-minute soak of the default scenario", long=True,
         command=["soak", "assets/scenarios/default.json", "--strategy", "decoded-lru", "--duration", "30m"]),
    dict(id="simulate-scale", title="The visibility simulator at scale",
         script=["tools/simulate-scale.sh", "7"]),
    dict(id="decode-vs-libpng", title="Decode throughput against libpng's simplified API",
         script=["tools/decode-vs-libpng.sh"]),
    dict(id="inspect-decode", title="A full decode, timed",
         command=["inspect", "--decode", "--json", "assets/images/photo-1200x900-01.png"]),
    dict(id="thumbnail-batch", title="A thumbnail batch over the committed images",
         command=["thumbnail", "assets/images", "--size", "256", "--jobs", "1", "-o", "{workdir}/thumbnails"]),
    dict(id="thumbnail-cache", title="A thumbnail batch run again with --cache: 1,000 files of 1-2 MP",
         script=["tools/thumbnail-cache.sh", "{corpus}"]),
    dict(id="thumbnail-jobs", title="Thumbnail batches: --jobs 2 against --jobs 1",
         script=["tools/thumbnail-jobs.sh"], markdown=True),
    dict(id="peers", title="Thumbnails against vipsthumbnail, ImageMagick and Pillow (12 MP)",
         script=["tools/compare-peers.sh"], env={"RUNS": "9"}, markdown=True),
    dict(id="debug-build", title="Debug against release builds",
         script=["tools/debug-build.sh"]),
    dict(id="corpus-ratio", title="Thumbnail against full decode on ordinary 1-2 MP PNGs",
         script=["tools/thumbnail-vs-decode.sh", "{corpus}", "9"]),
    dict(id="corpus-peers", title="Thumbnails against peers on ordinary 1-2 MP PNGs",
         script=["tools/compare-peers.sh", "--corpus", "{corpus}"], env={"RUNS": "5"}, markdown=True),
    dict(id="flat-ratio", title="Thumbnail against full decode on flat-colour 0.7-1.2 MP PNGs, by kind",
         script=["tools/thumbnail-vs-decode.sh", "--kinds", "{flatcorpus}", "7"]),
    dict(id="flat-ratio-tmpfs", title="Thumbnail against full decode on flat-colour PNGs, outputs on a tmpfs",
         script=["tools/thumbnail-vs-decode.sh", "--kinds", "{flatcorpus}", "7"], env={"OUT": "/dev/shm"}),
    dict(id="corpus-kinds", title="Thumbnail against full decode on ordinary 1-2 MP PNGs, by kind",
         script=["tools/thumbnail-vs-decode.sh", "--kinds", "{corpus}", "7"], env={"OUT": "/dev/shm"}),
    dict(id="corpus-kinds-streaming", title="Thumbnail against full decode on ordinary 1-2 MP PNGs, by kind, streaming through libpng",
         script=["tools/thumbnail-vs-decode.sh", "--kinds", "{corpus}", "7"], env={"OUT": "/dev/shm", "INFLATE_WHOLE": "0"}),
    dict(id="decode-corpora", title="Full decode against libpng, libspng, stb_image, Wuffs and libdeflate's inflate alone on both corpora, by kind",
         script=["tools/decode-vs-libpng.sh", "--corpus", "{corpus}", "--corpus", "{flatcorpus}"], env={"PAIRS": "5"}),
    dict(id="stages", title="Where a thumbnail's CPU goes, and a full decode's, by stage",
         script=["tools/profile-stages.py", "{corpus}", "{flatcorpus}/rgb", "{flatcorpus}/rgba", "{flatcorpus}/palette"],
         env={"OUT": "/dev/shm", "ROUNDS": "5"}),
    dict(id="flat-peers", title="Thumbnails against peers on flat-colour 0.7-1.2 MP PNGs",
         script=["tools/compare-peers.sh", "--corpus", "{flatcorpus}"], env={"RUNS": "5"}, markdown=True),
    dict(id="encode-settings", title="Thumbnail PNG encoding: every filter and zlib setting",
         script=["tools/encode-settings.sh", "{flatcorpus}", "{corpus}"], env={"ROUNDS": "5"}),
    dict(id="encoder", title="The fast PNG encoder against zlib and libdeflate",
         script=["tools/encoder-benchmark.sh"], env={"ROUNDS": "9"}, markdown=True),
    dict(id="cache-benchmark", title="ImageCache benchmarks", long=True,
         script=["tools/cache-benchmark.sh"]),
    dict(id="allocators", title="Bitmap allocators: resident rise against the cache's logical peak, and CPU per load",
         script=["python3", "tools/allocator-benchmark.py"], markdown=True),
    dict(id="cache-scaling", title="The cache across threads: hits, a 9:1 mix, loads and thumbnails against mutexed and frozen dictionaries",
         script=["tools/cache-scaling-benchmark.sh"], markdown=True, env={"ROUNDS": "3", "OPERATIONS": "200000"}),
    dict(id="load-queue", title="The cache's load queue: prefetch, cancel and idle over 10k, 100k and 1M keys",
         script=["tools/load-queue-benchmark.sh"]),
    dict(id="disk-store-benchmark", title="DiskStore: warm hits and puts", long=True,
         script=["tools/disk-benchmark.sh", "bench"]),
    dict(id="disk-store-open", title="DiskStore: opening a store of 1,000,000 entries", long=True,
         script=["tools/disk-benchmark.sh", "open"], env={"ROUNDS": "5"}),
    dict(id="slow-feed", title="The slow feed: 1200x900 photos over a network (p50 80 ms, p95 150 ms, 6 fetches at once) that come back", text=True,
         runs=[("slow-feed", "slow-feed.json", None)]),
    dict(id="repost-feed", title="The repost feed: 240 rows sharing eight 1200x900 photos over a network (p50 90 ms, p95 220 ms), down, back to the top, down again", text=True,
         runs=[("repost-feed", "repost-feed.json", None)]),
    dict(id="repost-feed-load-order", title="The repost feed: what priority buys (loads by priority against first come, first served)",
         sweep=["assets/scenarios/repost-feed.json", "--strategies", "decoded-release,thumbnail-lru", "--vary", "loadOrder",
                "--values", "fifo,priority"],
         summary=lambda doc: load_order_summary(doc)),
    dict(id="slow-feed-memory-sweep", title="The slow feed: how big a memory budget",
         sweep=["assets/scenarios/slow-feed.json", "--strategies", "decoded-lru,thumbnail-lru", "--values", "8MB...128MB",
                "--max-placeholders", "60"],
         plot="docs/sweep-slow-feed.png"),
    dict(id="slow-feed-worse-network", title="The slow feed: which strategy survives a worse network",
         sweep=["assets/scenarios/slow-feed.json", "--strategies", "decoded-lru,thumbnail-lru,decoded-lru+disk,thumbnail-disk",
                "--vary", "sourceLatencyMs.p95", "--values", "150ms,400ms,800ms,1600ms", "--max-placeholders", "60"],
         plot="docs/sweep-worse-network.png"),
    dict(id="slow-feed-disk-sweep", title="The slow feed: how big a disk budget",
         sweep=["assets/scenarios/slow-feed.json", "--strategies", "decoded-lru+disk,thumbnail-disk", "--vary", "diskBudget",
                "--values", "8MB...128MB", "--max-placeholders", "60"]),
    dict(id="disk-costs", title="The disk tier's costs: a disk read and a stored thumbnail's decode",
         costs=["assets/scenarios/feed-return-slow-source.json", "--strategies", "decoded-lru+disk,thumbnail-disk"]),
    dict(id="disk-feed", title="A feed whose rows come back, from a slow source: disk tiers against memory",
         runs=[("", "feed-return-slow-source.json", None)],
         columns=[STRATEGY, PEAK, TRIM, PLACEHOLDERS, DECODES, SOURCE_READS, DISK_READS, DISK_WRITES, DISK_PEAK]),
    dict(id="warm-start", title="Warm start: a cold session, then a warm one over the kept store",
         runs=[("", "feed-return-warm-start.json", None)], sessions=True,
         columns=[STRATEGY, SESSION, PEAK, PLACEHOLDERS, DECODES, SOURCE_READS, DISK_HITS, DISK_PEAK]),
    dict(id="fast-scroll", title="A fast scroll, sync vs async",
         runs=[("sync", "fast-scroll.json", ["decoded-release", "decoded-lru"]),
               ("async", "fast-scroll-async.json", ["decoded-release", "decoded-lru"])],
         columns=[("display", LABEL[1]), STRATEGY, DECODES, HITCHES, PLACEHOLDERS, PEAK, LOGICAL]),
]


def load_order_summary(doc):
    """What priority buys in a `sweep --vary loadOrder` export, per strategy: placeholder frames
    and wait p50/p95 with priority against first come, first served, and whether the gap is a
    win by the ranking lines' rule (beyond both points' spread across repeats and 2 % of the
    smaller count) or a tie."""
    entries = {(e["point"]["strategy"], e["point"]["value"]): e["row"] for e in (doc.get("outcome") or {}).get("entries", [])
               if e["row"]["runs"] > 0}
    lines = []
    for strategy in doc["sweep"]["strategies"]:
        fifo, priority = entries.get((strategy, 0)), entries.get((strategy, 1))
        if not fifo or not priority:
            continue
        f, p = fifo["placeholderFrames"], priority["placeholderFrames"]
        width = max(r["placeholderSpread"][1] - r["placeholderSpread"][0] for r in (fifo, priority))
        if abs(f - p) > width and abs(f - p) > 0.02 * min(f, p):
            verdict = (f"priority saves {f - p} placeholder frames ({(f - p) / f:.0%})" if p < f
                       else f"priority costs {p - f} placeholder frames")
        else:
            verdict = "a tie (within the repeats' spread or 2 % of the count)"
        def wait(row):
            w = row.get("wait") or {}
            return f"{w.get('p50Frames', 0)}/{w.get('p95Frames', 0)}"
        lines.append(f"- `{strategy}`: {p} placeholder frames by priority, {f} first come, first served: {verdict}; "
                     f"wait p50/p95 {wait(priority)} against {wait(fifo)} frames.")
    return "What priority buys here, read from the export by `tools/results.py` (medians over repeats):\n\n" + "\n".join(lines)


def run_compare(binary, scenario, strategies, repeats, workdir):
    export = os.path.join(workdir, f"{os.path.basename(scenario)}-{len(os.listdir(workdir))}.json")
    command = [binary, "compare", scenario, "--repeat", str(repeats), "--export-json", export]
    if strategies:
        command += ["--strategies", ",".join(strategies)]
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    if result.returncode != 0:
        sys.exit(f"tools/results.py: {' '.join(command)} failed (exit {result.returncode}):\n{result.stderr}")
    with open(export) as handle:
        return json.load(handle), result.stdout, command, export


def run_sweep(binary, arguments, repeats, workdir):
    export = os.path.join(workdir, f"sweep-{len(os.listdir(workdir))}.json")
    command = [binary, "sweep"] + arguments + ["--repeat", str(repeats), "--export-json", export]
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    # Exit 1 with a document means no point met the constraints: a finding, not a failure.
    if result.returncode not in (0, 1) or not os.path.exists(export):
        sys.exit(f"tools/results.py: {' '.join(command)} failed (exit {result.returncode}):\n{result.stderr}")
    with open(export) as handle:
        return json.load(handle), result.stdout, export


def draw(table, export):
    """tools/plot.py's picture of `export` at the section's `plot` path, if it names one."""
    if not table.get("plot"):
        return
    plotted = subprocess.run([sys.executable, os.path.join(ROOT, "tools/plot.py"), export, "-o", os.path.join(ROOT, table["plot"])],
                             capture_output=True, text=True, cwd=ROOT)
    if plotted.returncode != 0:
        print(f"results: no plot for {table['id']}: {plotted.stderr.strip()}", file=sys.stderr)


def expand(part, workdir):
    """A script or command argument with {workdir}, {corpus} and {flatcorpus} filled in; the
    corpus of ordinary PNGs and the flat-colour one are made once per run by tools/make-corpus.sh,
    unless CORPUS and FLATCORPUS name folders it made before."""
    for placeholder, variable in (("{corpus}", "CORPUS"), ("{flatcorpus}", "FLATCORPUS")):
        given = os.environ.get(variable)
        if placeholder in part and given:
            if not os.path.isdir(given):
                sys.exit(f"tools/results.py: {variable}={given} is not a folder")
            part = part.replace(placeholder, os.path.abspath(given))
    if "{flatcorpus}" in part:
        flat = os.path.join(workdir, "flat-corpus")
        if not os.path.isdir(flat):
            print("results: making the flat-colour corpus (tools/make-corpus.sh --flat) …", file=sys.stderr, flush=True)
            made = subprocess.run(["tools/make-corpus.sh", "--flat", flat], capture_output=True, text=True, cwd=ROOT)
            if made.returncode != 0:
                sys.exit(f"tools/results.py: tools/make-corpus.sh --flat failed:\n{made.stdout}{made.stderr}")
        part = part.replace("{flatcorpus}", flat)
    if "{corpus}" in part:
        corpus = os.path.join(workdir, "corpus")
        if not os.path.isdir(corpus):
            print("results: making the corpus (tools/make-corpus.sh) …", file=sys.stderr, flush=True)
            made = subprocess.run(["tools/make-corpus.sh", corpus], capture_output=True, text=True, cwd=ROOT)
            if made.returncode != 0:
                sys.exit(f"tools/results.py: tools/make-corpus.sh failed:\n{made.stdout}{made.stderr}")
        part = part.replace("{corpus}", corpus)
    return part.replace("{workdir}", workdir)


def render(table, binary, repeats, workdir):
    lines = []
    commands = []
    costs = []
    if table.get("script"):
        script = [expand(part, workdir) for part in table["script"]]
        env = dict(os.environ, ROUNDS=str(max(repeats, 3)), RETENTION=binary)
        env.update(table.get("env", {}))
        result = subprocess.run(script, capture_output=True, text=True, cwd=ROOT, env=env)
        # A benchmark that exits 1 with its table is a finding (figures that disagree), quoted
        # as it is; any other failure keeps the section's last text.
        if result.returncode not in table.get("accept", (0,)) or not result.stdout.strip():
            sys.exit(f"tools/results.py: {' '.join(script)} failed (exit {result.returncode}):\n{result.stdout}{result.stderr}")
        settings = " ".join(f"{k}={v}" for k, v in table.get("env", {}).items()) or f"ROUNDS={max(repeats, 3)}"
        commands.append(settings + " " + " ".join(table["script"]).replace("{flatcorpus}", "FLATDIR").replace("{corpus}", "DIR"))
        if table.get("markdown"):
            # The table, and the goals a script prints after it ("Goals …" and its "- " lines).
            lines = result.stdout.splitlines()
            rows = "\n".join(l for l in lines if l.startswith("|"))
            goals = [l for l in lines if l.startswith("Goals") or l.startswith("- ")]
            return rows + ("\n\n" + "\n".join(goals) if goals else ""), commands, costs
        # Blank lines go and so does trailing space, but not a line's leading spaces: a header
        # indented to its columns (trace-scale's first line) keeps them.
        tail = "\n".join(l for l in result.stdout.rstrip().splitlines() if l.strip())
        tail = "\n".join(tail.splitlines()[-table.get("tail", 1000):])
        return "```\n" + tail.replace(ROOT + "/", "").replace(workdir, "WORK") + "\n```", commands, costs
    if table.get("command"):
        arguments = [expand(part, workdir) for part in table["command"]]
        result = subprocess.run([binary] + arguments, capture_output=True, text=True, cwd=ROOT)
        if result.returncode not in table.get("accept", (0, 1)):
            sys.exit(f"tools/results.py: retention {' '.join(arguments)} failed (exit {result.returncode}):\n{result.stderr}")
        shown = "retention " + " ".join(table["command"]).replace("{workdir}", "/tmp")
        commands.append(shown)
        output = result.stdout.rstrip("\n").replace(ROOT + "/", "").replace(workdir, "/tmp")
        return f"```sh\n$ {shown}\n{output}\n$ echo $?\n{result.returncode}\n```", commands, costs
    if table.get("sweep"):
        doc, stdout, export = run_sweep(binary, table["sweep"], repeats, workdir)
        shown = "retention sweep " + " ".join(table["sweep"]) + f" --repeat {repeats}"
        commands.append(shown)
        costs.append(doc["costs"])
        draw(table, export)
        body = "```\n$ " + shown + "\n" + stdout.rstrip("\n").replace(ROOT + "/", "") + "\n```"
        if table.get("summary"):
            body += "\n\n" + table["summary"](doc)
        return body, commands, costs
    if table.get("costs"):
        return render_costs(table, binary, repeats, workdir, commands)
    if table.get("text"):
        label, scenario, strategies = table["runs"][0]
        doc, stdout, command, export = run_compare(binary, os.path.join("assets/scenarios", scenario), strategies, repeats, workdir)
        draw(table, export)
        shown = "retention compare" + ("" if scenario == "default.json" else " assets/scenarios/" + scenario)
        commands.append(shown)
        costs.append(doc["costs"])
        body = "```\n$ " + shown + "\n" + stdout.rstrip("\n").replace(ROOT + "/", "") + "\n```"
        return body, commands, costs
    headers = [c[0] for c in table["columns"]]
    lines.append("| " + " | ".join(headers) + " |")
    lines.append("|" + "---|" * len(headers))
    for label, scenario, strategies in table["runs"]:
        doc, _, command, _ = run_compare(binary, os.path.join("assets/scenarios", scenario), strategies, repeats, workdir)
        commands.append("retention compare assets/scenarios/" + scenario
                        + (" --strategies " + ",".join(strategies) if strategies else "") + f" --repeat {repeats}")
        costs.append(doc["costs"])
        for row in doc["summary"]["rows"]:
            # With sessions, each strategy's cold row, then its warm ones, labelled by session.
            sessions = [(row, "1 cold")] + [(warm, f"{index + 2} warm") for index, warm in enumerate(row.get("warmSessions") or [])]
            for shown, session in (sessions if table.get("sessions") else [(row, label)]):
                cells = [cell(dict(shown, strategy=row["strategy"]), doc["runs"], session) for _, cell in table["columns"]]
                lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines), commands, costs


def render_costs(table, binary, repeats, workdir, commands):
    """`retention costs SCENARIO --strategies …` measured in a child, as a table: per image
    (medians of the tool's repeats), the source read, the full decode, each thumbnail, the disk
    read of the source's bytes and, per thumbnail kept on disk, its PNG's size, encode, disk
    read and decode; then the medians over the images."""
    output = os.path.join(workdir, f"costs-{len(os.listdir(workdir))}.json")
    arguments = ["costs"] + table["costs"] + ["-o", output]
    result = subprocess.run([binary] + arguments, capture_output=True, text=True, cwd=ROOT)
    if result.returncode != 0:
        sys.exit(f"tools/results.py: retention {' '.join(arguments)} failed (exit {result.returncode}):\n{result.stderr}")
    commands.append("retention costs " + " ".join(table["costs"]))
    measured = json.load(open(output))
    kinds = sorted({k for image in measured["images"] for k in (image.get("storedThumbnails") or {})})
    headers = ["image", "source read", "full decode"] + [f"{k} px thumbnail" for k in kinds] + ["disk read"]
    for k in kinds:
        headers += [f"{k} px PNG (KB)", f"its encode", f"its disk read", f"its decode"]
    rows = []
    for image in measured["images"]:
        stored = image.get("storedThumbnails") or {}
        cells = [image["file"], image["readMs"], image["decodeMs"]] + [image["thumbnailMs"].get(k) for k in kinds] + [image.get("diskReadMs")]
        for k in kinds:
            s = stored.get(k) or {}
            cells += [s.get("bytes", 0) / 1000, s.get("encodeMs"), s.get("diskReadMs"), s.get("decodeMs")]
        rows.append(cells)
    median = ["median"] + [sorted(column)[len(column) // 2] for column in
                           ([r[i] for r in rows if r[i] is not None] for i in range(1, len(headers)))]
    def text(value, header):
        if isinstance(value, str):
            return value
        if value is None:
            return "-"
        return f"{value:.1f}" if header.endswith("(KB)") else f"{value:.3f}"
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for cells in rows + [median]:
        lines.append("| " + " | ".join(text(v, h) for v, h in zip(cells, headers)) + " |")
    note = (f"Milliseconds of thread CPU time (`CLOCK_THREAD_CPUTIME_ID`), medians of {measured['repeats']} repeats after one warm-up, "
            f"measured on {measured['machine']}; disk reads go through a `DiskStore` whose files are warm in the page cache.")
    return "\n".join(lines) + "\n\n" + note, commands, [measured]


def machine():
    cores = os.cpu_count()
    model = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cores} cores, {model}"


def commit():
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
    # The files this script writes (the README, the pages of docs/, the plots) do not count.
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", ".",
                            ":!README.md", ":!docs/*.md", ":!docs/*.png"],
                           capture_output=True, text=True, cwd=ROOT).stdout.strip()
    return head + (" with uncommitted changes" if dirty else "")


def cost_line(table):
    images = table["images"]
    decodes = sorted(image["decodeMs"] for image in images)
    return (f"{len(images)} images, median decode {statistics.median(decodes):.2f} ms thread CPU "
            f"(min {decodes[0]:.2f}, max {decodes[-1]:.2f}), {table['repeats']} repeats")


def main():
    args = sys.argv[1:]
    if args in (["--sync"], ["--check"]):
        sys.exit(sync_readme(check=args == ["--check"]))
    if not args or args[0].startswith("-"):
        sys.exit(__doc__)
    binary = os.path.abspath(args[0])
    repeats = 3
    only = None
    long_sections = False
    rest = args[1:]
    while rest:
        flag = rest.pop(0)
        if flag == "--repeat" and rest:
            repeats = int(rest.pop(0))
        elif flag == "--only" and rest:
            only = set(rest.pop(0).split(","))
            unknown = only - {t["id"] for t in TABLES}
            if unknown:
                sys.exit(f"tools/results.py: unknown section {', '.join(sorted(unknown))}")
        elif flag == "--long":
            long_sections = True
        else:
            sys.exit(f"tools/results.py: unknown argument {flag}\n{__doc__}")
    started = time.time()
    path = os.path.join(ROOT, "docs/results.md")
    kept = read_sections(open(path).read()) if os.path.exists(path) else {}
    failures = []
    with tempfile.TemporaryDirectory(prefix="retention-results-") as workdir:
        for table in TABLES:
            if only is not None and table["id"] not in only:
                continue
            if only is None and table.get("long") and not long_sections:
                continue
            print(f"results: {table['id']} …", file=sys.stderr, flush=True)
            try:
                body, commands, costs = render(table, binary, repeats, workdir)
            except SystemExit as failure:
                # One section that cannot run (a peer missing, no network for the corpus)
                # keeps its last measured text; the others go on.
                print(f"results: {table['id']} not updated: {failure}", file=sys.stderr, flush=True)
                failures.append(table["id"])
                continue
            stamp = (f"*Measured at commit {commit()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
                     f"{machine()}" + (f", medians of {repeats} runs" if table.get("runs") or table.get("sweep") else "") + ".*")
            kept[table["id"]] = "\n".join(section(table, body + "\n\n" + stamp, commands, costs))
            # Written after every section, so a run cut short keeps what it measured.
            write_results(path, kept)
    write_results(path, kept)
    print(f"results: wrote docs/results.md and the pages that quote it in {time.time() - started:.0f} s"
          + (f"; not updated: {', '.join(failures)}" if failures else ""), file=sys.stderr)
    sys.exit(1 if failures else 0)


def write_results(path, kept):
    """Writes docs/results.md from the sections in `kept` (by id), then the pages that quote it."""
    out = ["# Results", "",
           "Generated by `tools/results.sh`; do not edit. Every figure in the README and docs/ is quoted from here, "
           "and each section carries the commit, date and machine it was measured on.", "",
           "Sizes are resident MB (1 MB = 1,000,000 bytes), medians over runs; (min–max) where the runs differ. "
           "Frame work and hitches are main-thread CPU time, with every load priced from the comparison's cost table "
           "(measured once per comparison by `retention costs` in its own process).", ""]
    for table in TABLES:
        if table["id"] in kept:
            out.append(kept[table["id"]].rstrip("\n"))
        else:
            out += [f"## {table['title']}", "", f"<!-- results:{table['id']} -->",
                    f"Not measured yet: `tools/results.sh --only {table['id']}`.", f"<!-- /results:{table['id']} -->"]
        out.append("")
    temporary = path + ".tmp"
    with open(temporary, "w") as handle:
        handle.write("\n".join(out))
    os.replace(temporary, path)
    sync_readme(check=False)


def read_sections(text):
    """docs/results.md's sections by id: each from its `## ` heading to the next."""
    sections = {}
    for chunk in re.split(r"^(?=## )", text, flags=re.M):
        found = re.search(r"<!-- results:([\w-]+) -->", chunk)
        if chunk.startswith("## ") and found:
            sections[found.group(1)] = chunk
    return sections


def blocks(text):
    """Every `<!-- results:ID -->` block's body by id."""
    return {m.group(1): m.group(2) for m in
            re.finditer(r"<!-- results:([\w-]+) -->\n(.*?)<!-- /results:\1 -->", text, flags=re.S)}


def quoting_files():
    """The pages that quote docs/results.md: the README and every other page of docs/."""
    docs = os.path.join(ROOT, "docs")
    pages = [os.path.join(docs, name) for name in sorted(os.listdir(docs))
             if name.endswith(".md") and name != "results.md"]
    return [os.path.join(ROOT, "README.md")] + pages


def sync_readme(check):
    """Copies every block of docs/results.md into each quoting page's block of the same id (or,
    with check, reports the blocks that differ or have no section). Returns the exit status."""
    measured = blocks(open(os.path.join(ROOT, "docs/results.md")).read())
    status = 0
    for path in quoting_files():
        page = open(path).read()
        quoted = blocks(page)
        name = os.path.relpath(path, ROOT)
        missing = sorted(set(quoted) - set(measured))
        stale = sorted(i for i in quoted if i in measured and quoted[i] != measured[i])
        if check:
            for table_id in missing:
                print(f"results: {name} block {table_id} has no section in docs/results.md", file=sys.stderr)
            for table_id in stale:
                print(f"results: {name} block {table_id} differs from docs/results.md (tools/results.py --sync)", file=sys.stderr)
            status = 1 if missing or stale else status
            continue
        for table_id in stale:
            page = replace_section(page, table_id, measured[table_id].rstrip("\n"))
        with open(path, "w") as handle:
            handle.write(page)
    return status


def section(table, body, commands, costs):
    """The lines of one table's section in docs/results.md."""
    lines = [f"## {table['title']}", "", f"<!-- results:{table['id']} -->", body, f"<!-- /results:{table['id']} -->", ""]
    lines += ["Commands: " + "; ".join(f"`{c}`" for c in commands) + ".", ""]
    if costs:
        lines += ["Cost tables: " + "; ".join(sorted(set(cost_line(c) for c in costs))) + ".", ""]
    return lines


def replace_section(text, table_id, body):
    pattern = re.compile(rf"(<!-- results:{re.escape(table_id)} -->\n).*?\n?(<!-- /results:{re.escape(table_id)} -->)", re.S)
    return pattern.sub(lambda m: m.group(1) + body + "\n" + m.group(2), text)


if __name__ == "__main__":
    main()
