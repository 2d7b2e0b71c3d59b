#!/usr/bin/env python3
"""Re-run every findings table of the README and write docs/results.md.

Usage: tools/results.py RETENTION_BINARY [--repeat N] [--only ID,ID]
(tools/results.sh builds the release binary and calls this.)

Each table is one or more `retention compare SCENARIO --strategies … --export-json F` runs;
the markdown tables are made from the exports' medians (with min–max where the repeats
differ). docs/results.md is stamped with the commit, the date, the machine and each
comparison's cost-table summary. The README quotes the same tables between
`<!-- results:ID -->` and `<!-- /results:ID -->` markers, which this script rewrites, so no
figure in the README's findings is typed by hand.
"""
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
    return values[len(values) // 2] if values else 0


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

TABLES = [
    dict(id="default", title="The default comparison", text=True,
         runs=[("default", "default.json", None)]),
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
                "--max-placeholders", "10"],
         plot="docs/sweep-browse-1200x900.png"),
    dict(id="jobs", title="Parallel children: --jobs 2 against --jobs 1",
         script=["tools/jobs-benchmark.sh"], tail=2),
    dict(id="sample-trace", title="A recorded trace: the sample session", text=True,
         runs=[("sample", "sample-trace.json", None)]),
    dict(id="trace-scale", title="A 10-million-event trace streams",
         script=["tools/trace-scale.sh"]),
    dict(id="fast-scroll", title="A fast scroll, sync vs async",
         runs=[("sync", "fast-scroll.json", ["decoded-release", "decoded-lru"]),
               ("async", "fast-scroll-async.json", ["decoded-release", "decoded-lru"])],
         columns=[("display", LABEL[1]), STRATEGY, DECODES, HITCHES, PLACEHOLDERS, PEAK, LOGICAL]),
]


def run_compare(binary, scenario, strategies, repeats, workdir):
    export = os.path.join(workdir, f"{os.path.basename(scenario)}-{len(os.listdir(workdir))}.json")
    command = [binary, "compare", scenario, "--repeat", str(repeats), "--export-json", export]
    if strategies:
        command += ["--strategies", ",".join(strategies)]
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    if result.returncode != 0:
        sys.exit(f"tools/results.py: {' '.join(command)} failed (exit {result.returncode}):\n{result.stderr}")
    with open(export) as handle:
        return json.load(handle), result.stdout, command


def run_sweep(binary, arguments, repeats, workdir):
    export = os.path.join(workdir, f"sweep-{len(os.listdir(workdir))}.json")
    command = [binary, "sweep"] + arguments + ["--repeat", str(repeats), "--export-json", export]
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    # Exit 1 with a document means no point met the constraints: a finding, not a failure.
    if result.returncode not in (0, 1) or not os.path.exists(export):
        sys.exit(f"tools/results.py: {' '.join(command)} failed (exit {result.returncode}):\n{result.stderr}")
    with open(export) as handle:
        return json.load(handle), result.stdout, export


def render(table, binary, repeats, workdir):
    lines = []
    commands = []
    costs = []
    if table.get("script"):
        env = dict(os.environ, ROUNDS=str(max(repeats, 3)), RETENTION=binary)
        result = subprocess.run(table["script"], capture_output=True, text=True, cwd=ROOT, env=env)
        if result.returncode != 0:
            sys.exit(f"tools/results.py: {' '.join(table['script'])} failed (exit {result.returncode}):\n{result.stdout}{result.stderr}")
        commands.append(f"ROUNDS={max(repeats, 3)} " + " ".join(table["script"]))
        tail = "\n".join(l for l in result.stdout.strip().splitlines() if l.strip())
        tail = "\n".join(tail.splitlines()[-table.get("tail", 1000):])
        return "```\n" + tail + "\n```", commands, costs
    if table.get("sweep"):
        doc, stdout, export = run_sweep(binary, table["sweep"], repeats, workdir)
        shown = "retention sweep " + " ".join(table["sweep"]) + f" --repeat {repeats}"
        commands.append(shown)
        costs.append(doc["costs"])
        if table.get("plot"):
            plotted = subprocess.run([sys.executable, os.path.join(ROOT, "tools/plot.py"), export, os.path.join(ROOT, table["plot"])],
                                     capture_output=True, text=True, cwd=ROOT)
            if plotted.returncode != 0:
                print(f"results: no plot for {table['id']}: {plotted.stderr.strip()}", file=sys.stderr)
        return "```\n$ " + shown + "\n" + stdout.rstrip("\n").replace(ROOT + "/", "") + "\n```", commands, costs
    if table.get("text"):
        label, scenario, strategies = table["runs"][0]
        doc, stdout, command = run_compare(binary, os.path.join("assets/scenarios", scenario), strategies, repeats, workdir)
        shown = "retention compare" + ("" if scenario == "default.json" else " assets/scenarios/" + scenario)
        commands.append(shown)
        costs.append(doc["costs"])
        body = "```\n$ " + shown + "\n" + stdout.rstrip("\n").replace(ROOT + "/", "") + "\n```"
        return body, commands, costs
    headers = [c[0] for c in table["columns"]]
    lines.append("| " + " | ".join(headers) + " |")
    lines.append("|" + "---|" * len(headers))
    for label, scenario, strategies in table["runs"]:
        doc, _, command = run_compare(binary, os.path.join("assets/scenarios", scenario), strategies, repeats, workdir)
        commands.append("retention compare assets/scenarios/" + scenario
                        + (" --strategies " + ",".join(strategies) if strategies else "") + f" --repeat {repeats}")
        costs.append(doc["costs"])
        for row in doc["summary"]["rows"]:
            cells = [cell(row, doc["runs"], label) for _, cell in table["columns"]]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines), commands, costs


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
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
    return head + (" with uncommitted changes" if dirty else "")


def cost_line(table):
    images = table["images"]
    decodes = sorted(image["decodeMs"] for image in images)
    return (f"{len(images)} images, median decode {decodes[len(decodes) // 2]:.2f} ms thread CPU "
            f"(min {decodes[0]:.2f}, max {decodes[-1]:.2f}), {table['repeats']} repeats")


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        sys.exit(__doc__)
    binary = os.path.abspath(args[0])
    repeats = 3
    only = None
    rest = args[1:]
    while rest:
        flag = rest.pop(0)
        if flag == "--repeat" and rest:
            repeats = int(rest.pop(0))
        elif flag == "--only" and rest:
            only = set(rest.pop(0).split(","))
        else:
            sys.exit(f"tools/results.py: unknown argument {flag}\n{__doc__}")
    started = time.time()
    stamp = f"commit {commit()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {machine()}, medians of {repeats} runs"
    sections = {}
    with tempfile.TemporaryDirectory(prefix="retention-results-") as workdir:
        for table in TABLES:
            if only and table["id"] not in only:
                continue
            print(f"results: {table['id']} …", file=sys.stderr, flush=True)
            body, commands, costs = render(table, binary, repeats, workdir)
            sections[table["id"]] = (table, body, commands, costs)
    out = ["# Results", "",
           "Generated by `tools/results.sh`; do not edit. Every findings table in the README is quoted from here.", "",
           f"Stamp: {stamp}.", "",
           "Sizes are resident MB (1 MB = 1,000,000 bytes), medians over runs; (min–max) where the runs differ. "
           "Frame work and hitches are main-thread CPU time, with every load priced from the comparison's cost table "
           "(measured once per comparison by `retention costs` in its own process).", ""]
    for table in TABLES:
        if table["id"] not in sections:
            continue
        _, body, commands, costs = sections[table["id"]]
        out += section(table, body, commands, costs)
    path = os.path.join(ROOT, "docs/results.md")
    if only and os.path.exists(path):
        # Keep the other sections as they were.
        old = open(path).read()
        for table_id, (table, body, commands, costs) in sections.items():
            if f"<!-- results:{table_id} -->" in old:
                old = replace_section(old, table_id, body)
            else:
                old = old.rstrip("\n") + "\n\n" + "\n".join(section(table, body, commands, costs))
        text = re.sub(r"^Stamp: .*$", f"Stamp: {stamp} (partial: {', '.join(sorted(sections))}).", old, flags=re.M)
    else:
        text = "\n".join(out)
    with open(path, "w") as handle:
        handle.write(text)
    readme_path = os.path.join(ROOT, "README.md")
    readme = open(readme_path).read()
    for table_id, (_, body, _, _) in sections.items():
        readme = replace_section(readme, table_id, body)
    readme = re.sub(r"(<!-- results-stamp -->).*?(<!-- /results-stamp -->)", lambda m: m.group(1) + stamp + m.group(2), readme, flags=re.S)
    with open(readme_path, "w") as handle:
        handle.write(readme)
    print(f"results: wrote docs/results.md and README tables in {time.time() - started:.0f} s", file=sys.stderr)


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
