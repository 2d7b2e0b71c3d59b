#!/usr/bin/env bash
# Builds the libraries' DocC documentation with swift-docc-plugin, as the Swift Package Index
# does, and fails on any warning (an unresolved symbol link, an undocumented parameter, a
# catalog that names a symbol that does not exist). The archives land in
# .build/plugins/Swift-DocC/outputs/. Costs a debug build of the libraries plus a few seconds each.
#   tools/check-docc.sh [TARGET ...]   (default: every library product)
set -euo pipefail
cd "$(dirname "$0")/.."
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(Imaging Retention DiskCache MemoryProbe SoakProbe Visibility StrictJSON Scenario Lab)
status=0
for target in "${targets[@]}"; do
  log=$(swift package generate-documentation --target "$target" --warnings-as-errors 2>&1) || true
  warnings=$(printf '%s\n' "$log" | grep -E "(warning|error):" || true)
  if [ -n "$warnings" ] || ! printf '%s\n' "$log" | grep -q "Generated documentation archive"; then
    printf '%s\n' "$log" | grep -E -A4 "(warning|error):" >&2 || printf '%s\n' "$log" | tail -n 20 >&2
    echo "check-docc: $target's documentation has warnings or did not build (above)" >&2
    status=1
  else
    echo "check-docc: $target: no warnings"
  fi
done
exit $status
