#!/usr/bin/env bash
# Scale of the visibility simulator: times the whole `retention simulate` process (summary, no
# trace) on generated List scenarios with the same script length (60,000 frames):
#   10k rows, top to bottom        — baseline
#   1M rows, the same distance     — the same rows touched, 100x the list length
#   1M rows, top to bottom         — the target: the whole process well under 0.5 s
# Equal distances taking equal time shows the cost per frame does not grow with list length.
# Usage: tools/simulate-scale.sh [repetitions]   (median and best of the repetitions; default 7)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
repetitions=${1:-7}
cd "$root"
swift build -c release --product retention >/dev/null
bin=$root/.build/release/retention
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

scenario() {
    cat > "$work/$1.json" <<JSON
{"name": "$1", "frameRate": 60,
 "viewport": {"width": 390, "height": 1000, "scale": 3},
 "container": {"kind": "list", "prefetchRows": 2},
 "rows": {"count": $2, "height": 100},
 "script": [{"scroll": {"by": $3, "frames": 60000}}, {"destroyContainer": {}}]}
JSON
}
scenario list-10k 10000 999000
scenario list-1m-same-distance 1000000 999000
scenario list-1m 1000000 99999000

for name in list-10k list-1m-same-distance list-1m; do
    times=()
    for _ in $(seq "$repetitions"); do
        start=$(date +%s%N)
        "$bin" simulate "$work/$name.json" > "$work/$name.out"
        times+=($(( ($(date +%s%N) - start) / 1000 )))
    done
    python3 - "$name" "$(head -1 "$work/$name.out" | cut -c1-100)" "${times[@]}" <<'PY'
import statistics, sys
name, summary, *t = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:])
print(f"{name:24s} median {statistics.median(t)/1000:7.1f} ms  best {min(t)/1000:7.1f} ms   {summary}")
PY
done
