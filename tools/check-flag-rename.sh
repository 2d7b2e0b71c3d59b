#!/usr/bin/env bash
# check-flag-rename.sh: `retention compare` does not depend on `retention run`'s flags, because
# its children are the hidden `child-run` with a typed JSON request. A copy of HEAD (git archive,
# in a temporary folder) has eight of run's long flags renamed to NAME-renamed in its source: six
# in Run.swift, and --costs and --decode-speed in CostOptions (shared with compare, sweep and
# soak, so a cost table's path handed to a child by flag would break too); --strategy loses -s.
# Each rename must change the source, so the check cannot pass vacuously. The copy's `retention`
# is built (release, niced) and must: run `compare --repeat 1 --calibrations 1` on the built-in
# default scenario with exit 0 and its table, show only the new names in `run --help`, and refuse
# each old name with exit 64. Exit 0 when all of that holds. About 4 minutes on 2 cores (the
# copy's clean release build; compare itself takes seconds).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tools/scratch.sh"
mkdir "$scratch/copy"
git -C "$root" archive HEAD | tar -x -C "$scratch/copy"
cli="$scratch/copy/Sources/RetentionCLI"
renamed=()
# rename FILE FLAG OLD NEW: OLD must occur exactly once in FILE; afterwards NEW must be there.
rename() {
  python3 - "$cli/$1" "$3" "$4" <<'PY' || { echo "check-flag-rename: $1: the spelling of --$2 was not found once; update this script" >&2; exit 1; }
import sys
path, old, new = sys.argv[1:]
text = open(path, encoding="utf-8").read()
if text.count(old) != 1:
    sys.exit(1)
open(path, "w", encoding="utf-8").write(text.replace(old, new))
PY
  grep -qF -- "$4" "$cli/$1" && grep -qF -- "\"$2-renamed\"" "$cli/$1" || { echo "check-flag-rename: $1: --$2 was not renamed" >&2; exit 1; }
  renamed+=("--$2")
}
rename Run.swift strategy '@Option(name: .shortAndLong, help: "A preset name' '@Option(name: .customLong("strategy-renamed"), help: "A preset name'
rename Run.swift set '.customLong("set")' '.customLong("set-renamed")'
rename Run.swift timeline-every '@Option(help: ArgumentHelp("A timeline sample' '@Option(name: .customLong("timeline-every-renamed"), help: ArgumentHelp("A timeline sample'
rename Run.swift json '@Flag(help: "Print the report as one JSON object.")' '@Flag(name: .customLong("json-renamed"), help: "Print the report as one JSON object.")'
rename Run.swift repair '@Flag(help: ArgumentHelp(repairHelp(" (on stderr' '@Flag(name: .customLong("repair-renamed"), help: ArgumentHelp(repairHelp(" (on stderr'
rename Run.swift max-resident '@Option(parsing: .unconditional, help: ResidentLimitHelp.text("the run")' '@Option(name: .customLong("max-resident-renamed"), parsing: .unconditional, help: ResidentLimitHelp.text("the run")'
rename Costs.swift costs '@Option(help: ArgumentHelp("A cost table to price' '@Option(name: .customLong("costs-renamed"), help: ArgumentHelp("A cost table to price'
rename Costs.swift decode-speed '@Option(help: ArgumentHelp("Model a faster' '@Option(name: .customLong("decode-speed-renamed"), help: ArgumentHelp("Model a faster'
if ! nice -n 10 swift build --package-path "$scratch/copy" --scratch-path "$scratch/build" -c release --product retention > "$scratch/build.log" 2>&1; then
  grep -E -A3 "error:" "$scratch/build.log" >&2 || tail -n 20 "$scratch/build.log" >&2
  echo "check-flag-rename: the copy with renamed run flags does not build (above)" >&2
  exit 1
fi
tool="$scratch/build/release/retention"
status=0
(cd "$scratch" && XDG_CACHE_HOME="$scratch/cache" nice -n 10 "$tool" compare --repeat 1 --calibrations 1 > compare.out 2> compare.err) || status=$?
if [ "$status" -ne 0 ] || ! grep -qE '^ *strategy +startup +all loaded +peak' "$scratch/compare.out"; then
  cat "$scratch/compare.out" "$scratch/compare.err" >&2
  echo "check-flag-rename: compare broke when run's flags were renamed (exit $status, or no table; above)" >&2
  exit 1
fi
help=$("$tool" run --help)
for flag in "${renamed[@]}"; do
  # An option's own line in the list (`  -s, --strategy <strategy>`), not prose that names it.
  if ! grep -qE -- "^ +(-[a-z], )?$flag-renamed( |\$)" <<<"$help" || grep -qE -- "^ +(-[a-z], )?$flag( |\$)" <<<"$help"; then
    printf '%s\n' "$help" >&2
    echo "check-flag-rename: run --help does not show $flag-renamed alone (above)" >&2
    exit 1
  fi
  status=0
  "$tool" run --strategy-renamed lru "$flag" 1 > /dev/null 2> "$scratch/refused.err" || status=$?
  if [ "$status" -ne 64 ] || ! grep -q "Unknown option '$flag'" "$scratch/refused.err"; then
    cat "$scratch/refused.err" >&2
    echo "check-flag-rename: run $flag exited $status, not 64 with an unknown-option error" >&2
    exit 1
  fi
done
echo "check-flag-rename: renamed ${#renamed[@]} run flags (${renamed[*]}); the copy builds; compare exits 0 with its table; run refuses the old names"
