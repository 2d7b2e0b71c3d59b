#!/usr/bin/env python3
"""profile-stages.py [--rounds N] [--jobs N] INPUT...: where a thumbnail's CPU goes, and a
full decode's, by stage.

RETENTION names the binary (default .build/release/retention); ROUNDS the rounds (default 3);
OUT a folder for the thumbnails (a temporary folder made inside it, and removed; default the
system's temporary folder), whose file system the title names: replacing a file on a disk costs
kernel time that a tmpfs (/dev/shm) leaves out. Each INPUT (a folder, searched recursively for
*.png, or one PNG file) is made into 256 px thumbnails (`thumbnail --size 256 --jobs N`) and decoded whole
(`inspect --decode`), ROUNDS times each, alternated. Every round runs each command twice: once
alone, timed by the kernel's accounting of the finished child (tools/child_cpu.py), and once
under `perf record` (cpu-clock samples at 4,999 Hz, every thread of the process). A stage's CPU is
its share of the samples times the command's CPU alone, so perf's own cost never counts; the
table gives each stage in ms per file, the median of the rounds (min-max where they differ).

The stages come from the sampled function and library: the inflate (libdeflate, ISA-L, zlib's
inflate), the unfilter, a decode's expansion of palette indices, RGB and packed pixels to RGBA8, the scaler's three
passes (the area stage's vertical accumulate; the horizontal passes of both the area stage and
Lanczos-3; Lanczos-3's vertical pass) and its conversion to bytes, the PNG encoder (filter
choice, Huffman coding, CRC, or zlib's deflate, and the scan for an opaque output), the kernel (reads, writes, page faults, thread
hand-offs), start-up and the Swift runtime (the dynamic loader, libswiftCore, Foundation), libc
(malloc, memcpy, memset) and the rest of our own code.

The last lines give the floor that the thumbnail ÷ decode ratio cannot go under while the
thumbnail decodes as the decode does: the thumbnail's CPU less its scaler and encoder, over
the decode's CPU.

Needs perf (Debian's linux-perf) and a kernel that lets this user sample its own processes
(kernel.perf_event_paranoid <= 2). Exit 0 with the table, 1 when a command fails, 2 on a usage
error or without perf.
"""
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from child_cpu import measure  # noqa: E402

# Our encoder (any library: the functions are ours), and zlib's or libpng's writing side (only
# in those libraries: libdeflate's inflate is called libdeflate_deflate_decompress).
ENCODER = (r"rtn_png_encode|rtn_png_filter_row|rtn_png_source_row|rtn_crc32|PixelScan|rtn_fast_(block|build_header|chunk|"
           r"codes|cost|count_literals|equal_mask|fixed|flush_bits|huffman|length_table|put|run|run_starts|scan|"
           r"write_header|write_symbols)\b")
ZLIB_WRITING = r"^png_write|^deflate|longest_match|compress_block|_tr_|fill_window|send_bits"
# (stage, dso pattern or None, symbol pattern or None): the first rule that matches a sample's
# library and function names its stage.
RULES = [
    ("scaler: area (vertical accumulate)", None, r"rtn_thumb_accumulate|VerticalAccumulator|AreaAccumulator"),
    ("scaler: rows (area and Lanczos)", None, r"rtn_thumb_filter_row|rtn_thumb_nonzero_span|FilterTable"),
    ("scaler: columns (Lanczos)", None, r"rtn_thumb_gather|VerticalWindow|Resampler"),
    ("scaler: to bytes", None, r"rtn_thumb_write_row"),
    ("unfilter", None, r"rtn_png_unfilter|png_read_filter_row"),
    ("expansion to RGBA8 (palette, RGB, packed)", None, r"rtn_fast_expand|rtn_fast_unpack|rtn_png_expand|png_do_expand|png_do_unpack"),
    ("PNG encoder", None, ENCODER),
    ("PNG encoder", r"^libz\.|^libpng", ZLIB_WRITING),
    ("inflate", r"libdeflate|libisal|libz\.", None),
    ("kernel", r"^\[kernel", None),
    ("start-up and Swift runtime", r"^ld-linux|libswift|libFoundation|libdispatch|libBlocksRuntime|libicu|libstdc\+\+|libgcc", None),
    ("libc (malloc, memcpy, memset)", r"^libc\.|^libm\.", None),
]
OTHER = "other (our code, libpng)"
STAGES = [rule[0] for rule in RULES[:7]] + ["inflate", "kernel", "start-up and Swift runtime", "libc (malloc, memcpy, memset)", OTHER]
SCALER_AND_ENCODER = [stage for stage in STAGES if stage.startswith("scaler") or stage == "PNG encoder"]
LINE = re.compile(r"^\s*([\d.]+)%\s+(\S+)\s+\[(.)\]\s+(.*?)\s*$")


def stage_of(dso, symbol):
    for stage, dso_pattern, symbol_pattern in RULES:
        if dso_pattern and not re.search(dso_pattern, dso):
            continue
        if symbol_pattern and not re.search(symbol_pattern, symbol):
            continue
        return stage
    return OTHER


def shares(data):
    """Share of the samples (0-1) by stage, from a perf.data file."""
    report = subprocess.run(["perf", "report", "-i", data, "--stdio", "--no-children", "-q", "--percent-limit", "0",
                             "--sort", "dso,sym", "-F", "overhead,dso,sym", "-g", "none"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, errors="replace")
    result = {stage: 0.0 for stage in STAGES}
    for line in report.stdout.splitlines():
        match = LINE.match(line)
        if match:
            result[stage_of(match.group(2), match.group(4))] += float(match.group(1)) / 100
    total = sum(result.values())
    return {stage: value / total for stage, value in result.items()} if total > 0 else result


def pngs(path):
    if os.path.isfile(path):
        return [path]
    found = []
    for folder, _, names in os.walk(path):
        found += [os.path.join(folder, name) for name in names if name.endswith(".png")]
    return sorted(found)


def spread(values, fmt):
    low, mid, high = fmt(min(values)), fmt(statistics.median(values)), fmt(max(values))
    return mid if low == high else f"{mid} ({low}-{high})"


def main(argv):
    rounds = int(os.environ["ROUNDS"]) if os.environ.get("ROUNDS", "").isdigit() and int(os.environ["ROUNDS"]) > 0 else 3
    jobs, args = 1, list(argv)
    while args and args[0].startswith("--"):
        flag = args.pop(0)
        if flag in ("--rounds", "--jobs") and args and args[0].isdigit() and int(args[0]) > 0:
            value = int(args.pop(0))
            rounds, jobs = (value, jobs) if flag == "--rounds" else (rounds, value)
        else:
            print(f"profile-stages: {flag} needs a positive whole number", file=sys.stderr)
            return 2
    if not args:
        print("usage: tools/profile-stages.py [--rounds N] [--jobs N] INPUT...", file=sys.stderr)
        return 2
    retention, inputs = os.environ.get("RETENTION", ".build/release/retention"), args
    if not os.access(retention, os.X_OK):
        print(f"profile-stages: {retention} is not an executable (build it: swift build -c release)", file=sys.stderr)
        return 2
    if shutil.which("perf") is None:
        print("profile-stages: perf is not installed (apt-get install linux-perf)", file=sys.stderr)
        return 2
    out_parent = os.environ.get("OUT") or None
    if out_parent and not os.path.isdir(out_parent):
        print(f"profile-stages: OUT={out_parent} is not a folder", file=sys.stderr)
        return 2
    for path in inputs:
        files = pngs(path)
        if not files:
            print(f"profile-stages: {path}: no PNG files", file=sys.stderr)
            return 2
        with tempfile.TemporaryDirectory(prefix="profile-stages.", dir=out_parent) as work:
            out_fs = subprocess.run(["df", "--output=fstype", work], capture_output=True, text=True).stdout.split()[-1:] or ["?"]
            commands = {
                f"thumbnail --size 256 --jobs {jobs}": [retention, "thumbnail", "--size", "256", "--jobs", str(jobs),
                                                        "-o", os.path.join(work, "out"), *files],
                "inspect --decode": [retention, "inspect", "--decode", *files],
            }
            cpu = {name: [] for name in commands}
            stage_shares = {name: [] for name in commands}
            for round_number in range(rounds):
                for name, command in commands.items():
                    seconds, _, status, _, errors = measure(command)
                    data = os.path.join(work, "perf.data")
                    profiled = subprocess.run(["perf", "record", "-q", "-F", "4999", "-o", data, "--", *command],
                                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, errors="replace")
                    if status != 0 or profiled.returncode != 0:
                        print(f"profile-stages: {' '.join(command[:3])} … failed: {(errors or profiled.stderr).strip()}", file=sys.stderr)
                        return 1
                    cpu[name].append(seconds)
                    stage_shares[name].append(shares(data))
                print(f"profile-stages: {path}: round {round_number + 1} of {rounds}", file=sys.stderr)
        names = list(commands)
        per_file = {name: {stage: [s[stage] * c * 1000 / len(files) for s, c in zip(stage_shares[name], cpu[name])]
                           for stage in STAGES} for name in names}
        print(f"{path} ({len(files)} PNG{'s' if len(files) != 1 else ''}, outputs on {out_fs[0]}): CPU ms per file by stage,"
              f" median (min-max) of {rounds} round{'s' if rounds != 1 else ''}; perf's shares times each command's CPU run alone")
        print(f"{'stage':<38}" + "".join(f"{name:>30}" for name in names))
        fmt = lambda v: f"{v:.3f}"
        for stage in STAGES:
            if all(max(per_file[name][stage]) < 0.0005 for name in names):
                continue
            print(f"{stage:<38}" + "".join(f"{spread(per_file[name][stage], fmt):>30}" for name in names))
        print(f"{'total (CPU, run alone)':<38}" + "".join(f"{spread([c * 1000 / len(files) for c in cpu[name]], fmt):>30}" for name in names))
        thumbnail, decode = names
        rest = [sum(s[stage] for stage in STAGES if stage not in SCALER_AND_ENCODER) * c for s, c in zip(stage_shares[thumbnail], cpu[thumbnail])]
        floors = [r / d for r, d in zip(rest, cpu[decode])]
        ratios = [t / d for t, d in zip(cpu[thumbnail], cpu[decode])]
        ratio_fmt = lambda v: f"{v:.2f}x"
        print(f"thumbnail ÷ decode, CPU: {spread(ratios, ratio_fmt)}; the thumbnail less its scaler and encoder ÷ the decode"
              f" (the ratio with a scaler and an encoder that cost nothing): {spread(floors, ratio_fmt)}")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
