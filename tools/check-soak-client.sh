#!/usr/bin/env bash
# check-soak-client.sh: docs/soak.md's Swift Testing example, run as a user would. A package in a
# temporary folder depends on this checkout by path, takes the first ```swift block of
# docs/soak.md that calls SoakProbe.measure as its test target, and runs `swift test`. The
# example soaks a leaking pipeline and its bounded fix: the check passes when the leak fails
# with "FAIL (growth)" and the bounded one passes, exit 1 otherwise. About 2 minutes on 2 cores.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tools/scratch.sh"
ln -s "$root" "$scratch/retention"
mkdir -p "$scratch/client/Sources/SoakClient" "$scratch/client/Tests/SoakClientTests"
cat > "$scratch/client/Package.swift" <<'MANIFEST'
// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "SoakClient",
    dependencies: [.package(path: "../retention")],
    targets: [
        .target(name: "SoakClient"),
        .testTarget(name: "SoakClientTests", dependencies: [.product(name: "SoakProbe", package: "retention")]),
    ]
)
MANIFEST
echo "// The package's own code would be here." > "$scratch/client/Sources/SoakClient/SoakClient.swift"
python3 - "$root/docs/soak.md" "$scratch/client/Tests/SoakClientTests/RendererSoak.swift" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
blocks = [b for b in re.findall(r"^```swift\n(.*?)^```", text, flags=re.S | re.M) if "SoakProbe.measure" in b]
if not blocks:
    sys.exit("check-soak-client: docs/soak.md has no ```swift block calling SoakProbe.measure")
open(sys.argv[2], "w").write(blocks[0])
PY
cd "$scratch/client"
if ! swift build --build-tests > "$scratch/build.log" 2>&1; then
  grep -E -A3 "error:" "$scratch/build.log" >&2 || tail -n 20 "$scratch/build.log" >&2
  echo "check-soak-client: docs/soak.md's example does not build against the SoakProbe product" >&2
  exit 1
fi
status=0
swift test --skip-build > "$scratch/test.log" 2>&1 || status=$?
leak=$(grep -E 'renderingDoesNotKeepMemory|rendering does not keep memory' "$scratch/test.log" | grep -c 'FAIL (growth)' || true)
passed=$( (grep -E 'Test "rendering does not keep memory" with 2 test cases failed after .* with 1 issue' "$scratch/test.log" || true) | wc -l)
if [ "$status" -ne 0 ] && [ "$leak" -ge 1 ] && [ "$passed" -eq 1 ]; then
  grep -m1 -o 'FAIL (growth): retained memory slope [^;]*' "$scratch/test.log" | sed 's/^/check-soak-client: the leak: /'
  echo "check-soak-client: the leaking pipeline fails (FAIL (growth)) and the bounded one passes, from a client package"
  exit 0
fi
cat "$scratch/test.log" >&2
echo "check-soak-client: expected the leak to fail with FAIL (growth) and the bounded pipeline to pass (exit $status, $leak FAIL lines)" >&2
exit 1
