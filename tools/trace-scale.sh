#!/usr/bin/env bash
# Does a trace replay stream, and how fast? Generates infinite-feed traces of 100 thousand and
# 10 million events (rows built, shown, hidden and released as a feed scrolls: a few rows live at
# once) and times two commands on each, one process each, under /usr/bin/time -v:
#   replay: `retention simulate SCENARIO`, which reads the trace twice (the check of every line,
#           then the replay) through the parser and the replayer (TraceRecord, TraceReplayer)
#           with no cache behind them: the trace layer's own rate;
#   run:    `retention run SCENARIO --strategy decoded-release`, the same two passes feeding the
#           lab's cache (a decode per appearance, a resident-memory sample per frame).
# For each it prints the wall time and the events per second (event lines / wall seconds), and
# the peak resident memory: the replay's and the run's VmHWM from /usr/bin/time -v, and the
# run's peak as the tool reports it. Memory should stay within a few MB as the trace grows:
# proportional to the live rows, not to the trace's length.
#
# Usage: tools/trace-scale.sh [EVENTS...]   (default: 100000 10000000)
# Needs python3 and /usr/bin/time; builds the release binary (or uses $RETENTION). The 10-million-event trace is
# about 500 MB in a temporary folder, removed at the end; the whole run takes a few minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /opt/swift/usr/bin/swift ] && export PATH=/opt/swift/usr/bin:$PATH
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100000 10000000)

if [ -n "${RETENTION:-}" ]; then
  bin=$RETENTION
else
  swift build -c release --product retention >/dev/null
  bin=$(swift build -c release --show-bin-path)/retention
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Eight 8x8 PNGs: decoding them is cheap, so the run's time is the replay's and the lab's own.
python3 - "$work/images" <<'EOF'
import os, struct, sys, zlib
folder = sys.argv[1]
os.makedirs(folder)
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
for i in range(8):
    rows = b"".join(b"\0" + bytes([(i * 31 + x * 7 + y * 13) % 256 for x in range(8) for _ in range(4)]) for y in range(8))
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 8, 8, 8, 6, 0, 0, 0)) \
        + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
    open(f"{folder}/tiny-{i:02d}.png", "wb").write(png)
EOF

echo "                        replay (simulate)                  run (decoded-release)"
echo "    events trace MB   wall s  events/s    VmHWM     wall s  events/s  peak (tool)    VmHWM    frames"
for n in "${sizes[@]}"; do
  trace="$work/feed-$n.jsonl"
  # An infinite feed: every frame one row is built and appears at the bottom, and the row six
  # above it disappears and is released (4 events per frame).
  python3 - "$trace" "$n" <<'EOF'
import sys
path, total = sys.argv[1], int(sys.argv[2])
with open(path, "w", buffering=1 << 20) as f:
    f.write('{"format":"retention-trace","version":1,"time":"frames","note":"tools/trace-scale.sh infinite feed"}\n')
    f.write('{"frame":0,"event":"containerCreated"}\n')
    events, row, out = 1, 0, []
    while events < total - 1:
        frame = row + 1
        out.append('{"frame":%d,"event":"initialized","row":%d}\n{"frame":%d,"event":"appeared","row":%d}\n' % (frame, row, frame, row))
        events += 2
        if row >= 6:
            old = row - 6
            out.append('{"frame":%d,"event":"disappeared","row":%d}\n{"frame":%d,"event":"released","row":%d}\n' % (frame, old, frame, old))
            events += 2
        row += 1
        if len(out) >= 4096:
            f.write("".join(out)); out.clear()
    f.write("".join(out))
    f.write('{"frame":%d,"event":"containerDestroyed"}\n' % (row + 1))
EOF
  cat > "$work/feed-$n.json" <<EOF
{"name": "feed-$n", "frameRate": 60, "trace": "feed-$n.jsonl",
 "images": {"directory": "images", "pattern": "tiny-*.png"}, "display": "sync"}
EOF
  /usr/bin/time -v -o "$work/replay-$n.txt" "$bin" simulate "$work/feed-$n.json" > "$work/replay-$n.out"
  /usr/bin/time -v -o "$work/time-$n.txt" "$bin" run "$work/feed-$n.json" --strategy decoded-release --json > "$work/run-$n.json"
  python3 - "$work/run-$n.json" "$work/time-$n.txt" "$work/replay-$n.txt" "$trace" "$n" <<'EOF'
import json, os, re, sys
report = json.load(open(sys.argv[1]))
def timing(path):
    text = open(path).read()
    hwm = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1)) * 1024
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", text).group(1)
    return sum(float(part) * 60 ** i for i, part in enumerate(reversed(wall.split(":")))), hwm
run_s, run_hwm = timing(sys.argv[2])
replay_s, replay_hwm = timing(sys.argv[3])
events = int(sys.argv[5])
print(f"{events:>10} {os.path.getsize(sys.argv[4]) / 1e6:8.1f}  {replay_s:7.2f} {events / replay_s:11,.0f} {replay_hwm / 1e6:8.1f} MB"
      f"  {run_s:7.1f} {events / run_s:9,.0f} {report['peakResidentBytes'] / 1e6:8.1f} MB {run_hwm / 1e6:8.1f} MB {report['frames']:9}")
EOF
  rm -f "$trace"
done
echo "commit $(git rev-parse --short HEAD), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
