#!/usr/bin/env bash
# test-check-architecture.sh: tools/check-architecture.sh catches what it is for. On copies of
# the package's manifest, docs/ARCHITECTURE.md, sources and tests in a temporary folder it
# checks that the clean copy passes, that SystemIOTests may call the system directly, and that
# each injected violation fails with its own message:
#   - a raw rename() after an interpolated string (the string stripper must not hide it);
#   - an upward dependency declared in both Package.swift and the graph (Visibility -> Imaging);
#   - Foundation's `Process()` in a test file (tests spawn through SystemIO's ChildProcess);
#   - `FileManager.default` in a source outside SystemIO;
#   - a raw read() in a source outside SystemIO;
#   - a child's command line of flags in Lab (`"--strategy"`), a `"--set=…"` flag, and a flag
#     named inside a message (`"… (try --values 8MB,16MB)"`: messages name a LabTerm);
#   - popen() in a source outside SystemIO;
#   - usleep() in a source outside SystemIO (SystemIO's Pause is the one pause);
#   - a wall clock (ContinuousClock, and time(nil)) in a source the clock list does not allow;
#   - a Mutex outside SystemIO's Lock;
#   - `import Glibc` in a source the Glibc list does not allow, and the same import in the other
#     forms a plain `^import Glibc` would miss: `internal import Glibc` (as DiskCache had),
#     `@preconcurrency import Glibc`, `import func Glibc.getpid`, and one indented under `#if`;
#   - `import Foundation`, which re-exports Glibc, in a library source;
#   - an `@_exported import` in a source;
#   - a `public` declaration in RetentionTool, which no product vends;
#   - a source file named for no type it declares or extends, and a public type in a file named
#     for another;
#   - an import of a package module the target does not declare, plain and as
#     `@preconcurrency internal import`;
#   - a dependency declared (in the manifest and the graph alike) that no source imports;
#   - a dependency in the manifest that the graph in docs/ARCHITECTURE.md does not show;
#   - a target in no layer, and an ARCHITECTURE.md without its graph block.
# Every rule check-architecture.sh enforces has a case here that must fail.
# Exit 0 when every case behaves.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
  export PATH=/opt/swift/usr/bin:$PATH
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fresh() {
  rm -rf "$work/copy"
  mkdir -p "$work/copy/docs" "$work/copy/tools"
  cp "$root/Package.swift" "$work/copy/"
  cp "$root/docs/ARCHITECTURE.md" "$work/copy/docs/"
  cp "$root/tools/check-architecture.sh" "$work/copy/tools/"
  cp -r "$root/Sources" "$root/Tests" "$work/copy/"
}
status=0
expect() {  # expect NAME pass|fail PATTERN
  local name=$1 want=$2 pattern=$3 out rc=0
  out=$("$work/copy/tools/check-architecture.sh" 2>&1) || rc=$?
  if [ "$want" = pass ] && [ $rc -eq 0 ]; then echo "test-check-architecture: $name: passes, as it should"; return; fi
  if [ "$want" = fail ] && [ $rc -ne 0 ] && printf '%s' "$out" | grep -q -- "$pattern"; then
    echo "test-check-architecture: $name: fails with \"$pattern\", as it should"; return
  fi
  echo "test-check-architecture: $name: expected $want (\"$pattern\"), got exit $rc:" >&2
  printf '%s\n' "$out" | tail -5 >&2
  status=1
}
fresh
expect "the package as it is" pass ""

fresh
cat >> "$work/copy/Sources/Lab/LabError.swift" <<'SWIFT'

func injectedRename(_ name: String) { let path = "\(name)/x"; _ = rename(path, "y") }
SWIFT
expect "a raw rename after an interpolated string" fail "the system call rename() outside SystemIO"

fresh
cat >> "$work/copy/Tests/RetentionCLITests/CLIRunner.swift" <<'SWIFT'

func injectedShell(_ folder: String) { _ = system("umount '\(folder)'") }
SWIFT
expect "system() in a test file" fail "the system call system() outside SystemIO"

fresh
python3 - "$work/copy" <<'PY'
import sys, re
root = sys.argv[1]
p = root + "/Package.swift"
s = open(p).read()
s = s.replace('.target(name: "Visibility", dependencies: ["StrictJSON"])', '.target(name: "Visibility", dependencies: ["StrictJSON", "Imaging"])')
open(p, "w").write(s)
p = root + "/docs/ARCHITECTURE.md"
s = open(p).read()
s = s.replace("Visibility -> StrictJSON\n", "Visibility -> StrictJSON, Imaging\n")
open(p, "w").write(s)
p = root + "/Sources/Visibility/Engine/VisibilitySimulator.swift"
s = open(p).read()
open(p, "w").write("import Imaging\n" + s)
PY
expect "an upward dependency declared in both the manifest and the graph" fail "depends on Imaging (layer 2): dependencies point down only"
fresh
cat >> "$work/copy/Tests/SystemIOTests/FileIOTests.swift" <<'SWIFT'

func injectedSystemTest(_ path: String) -> Int32 { unlink(path) }
SWIFT
expect "a raw unlink() in SystemIOTests, the system layer's own tests" pass ""

fresh
cat >> "$work/copy/Tests/RetentionCLITests/CLIRunner.swift" <<'SWIFT'

func injectedSpawn() throws { let process = Process(); try process.run() }
SWIFT
expect "Process() in a test file" fail "Foundation's Process outside SystemIO"

fresh
cat >> "$work/copy/Sources/Lab/LabError.swift" <<'SWIFT'

func injectedListing() -> [String] { (try? FileManager.default.contentsOfDirectory(atPath: "/")) ?? [] }
SWIFT
expect "FileManager.default in a source outside SystemIO" fail "Foundation's FileManager outside SystemIO"

fresh
cat >> "$work/copy/Sources/Lab/LabError.swift" <<'SWIFT'

func injectedRead(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int { read(fd, buffer.baseAddress, buffer.count) }
SWIFT
expect "a raw read() in a source outside SystemIO" fail "the system call read() outside SystemIO"
fresh
cat >> "$work/copy/Sources/Lab/LabError.swift" <<'SWIFT'

func injectedChildArguments(_ path: String, _ name: String) -> [String] { ["run", path, "--strategy", name, "--json"] }
SWIFT
expect "a child's flags spelt in Lab" fail 'the flag "--strategy" in Lab'

fresh
cat >> "$work/copy/Sources/Lab/Comparison/ChildRunRequest.swift" <<'SWIFT'

func injectedSetting(_ value: Int) -> String { "--set=decodedBudget=\(value)" }
SWIFT
expect "a --set= flag in Lab" fail 'the flag "--set" in Lab'
fresh
cat >> "$work/copy/Sources/Lab/LabError.swift" <<'SWIFT'

func injectedMessage(_ text: String) -> LabError { .usage("bad values (try --values 8MB,16MB): \(text)") }
SWIFT
expect "a flag named in a Lab message" fail 'the flag "--values" in Lab'
fresh
cat >> "$work/copy/Sources/Lab/LabError.swift" <<'SWIFT'

/// A public type in a file named for another.
public struct InjectedHelper: Sendable {}
SWIFT
expect "a public type in a file named for another" fail 'declares the public or package type InjectedHelper, which needs a file of its own'
fresh
cat >> "$work/copy/Sources/Lab/LabError.swift" <<'SWIFT'

func injectedPipe() { _ = popen("ls", "r") }
SWIFT
expect "popen() in a source outside SystemIO" fail "the system call popen() outside SystemIO"

fresh
cat >> "$work/copy/Sources/DiskCache/Internal/StoreOpening.swift" <<'SWIFT'

func injectedRetry() { usleep(2_000) }
SWIFT
expect "usleep() in a source outside SystemIO" fail "usleep() outside SystemIO (pause with SystemIO's Pause)"

fresh
cat >> "$work/copy/Sources/Lab/LabError.swift" <<'SWIFT'

func injectedWallClock() -> ContinuousClock.Instant { ContinuousClock.now }
SWIFT
expect "a wall clock in a source the list does not allow" fail "a wall clock outside the allowed files"

fresh
cat >> "$work/copy/Sources/Lab/LabError.swift" <<'SWIFT'

func injectedStamp() -> Int { Int(time(nil)) }
SWIFT
expect "time(nil) in a source the clock list does not allow" fail "a wall clock outside the allowed files"

fresh
cat >> "$work/copy/Sources/Retention/ByteSize.swift" <<'SWIFT'

import Synchronization
let injectedMutex = Mutex(0)
SWIFT
expect "a Mutex outside SystemIO's Lock" fail "Mutex outside SystemIO's Lock"

fresh
cat >> "$work/copy/Sources/Retention/ByteSize.swift" <<'SWIFT'

import Glibc
SWIFT
expect "import Glibc in a source the list does not allow" fail "imports Glibc outside SystemIO and MemoryProbe"

fresh
python3 - "$work/copy" <<'PY'
import sys
p = sys.argv[1] + "/Sources/DiskCache/DiskStoreError.swift"
open(p, "w").write("internal import Glibc\n" + open(p).read())
PY
expect "internal import Glibc in a library module" fail "DiskStoreError.swift: imports Glibc outside SystemIO and MemoryProbe"

fresh
python3 - "$work/copy" <<'PY'
import sys
p = sys.argv[1] + "/Sources/Retention/ByteSize.swift"
open(p, "w").write("@preconcurrency import Glibc\n" + open(p).read())
PY
expect "@preconcurrency import Glibc in a library module" fail "ByteSize.swift: imports Glibc outside SystemIO and MemoryProbe"

fresh
python3 - "$work/copy" <<'PY'
import sys
p = sys.argv[1] + "/Sources/Retention/ByteSize.swift"
open(p, "w").write("import func Glibc.getpid\n" + open(p).read())
PY
expect "import func Glibc.getpid in a library module" fail "ByteSize.swift: imports Glibc outside SystemIO and MemoryProbe"

fresh
cat >> "$work/copy/Sources/Retention/ByteSize.swift" <<'SWIFT'

#if canImport(Glibc)
    import Glibc
#endif
SWIFT
expect "an indented import Glibc under #if" fail "ByteSize.swift: imports Glibc outside SystemIO and MemoryProbe"

fresh
python3 - "$work/copy" <<'PY'
import sys
p = sys.argv[1] + "/Sources/Retention/ByteSize.swift"
open(p, "w").write("import Foundation\n" + open(p).read())
PY
expect "import Foundation (Glibc re-exported) in a library module" fail "ByteSize.swift: imports Foundation, which re-exports Glibc, outside SystemIO and MemoryProbe"

fresh
python3 - "$work/copy" <<'PY'
import sys
p = sys.argv[1] + "/Sources/Retention/ByteSize.swift"
open(p, "w").write("@_exported import SystemIO\n" + open(p).read())
PY
expect "an @_exported import in a source" fail "ByteSize.swift: @_exported import SystemIO"

fresh
cat >> "$work/copy/Sources/RetentionTool/Output.swift" <<'SWIFT'

/// Injected.
@discardableResult public func injectedPublic() -> Int { 0 }
SWIFT
expect "a public declaration in the tool" fail "a public declaration in RetentionTool"

fresh
mv "$work/copy/Sources/Lab/Soak/GrowthRate.swift" "$work/copy/Sources/Lab/Soak/GrowthLimits.swift"
expect "a file named for no type it holds" fail "GrowthLimits.swift: named for no type it declares or extends"

fresh
python3 - "$work/copy" <<'PY'
import sys
p = sys.argv[1] + "/Sources/Visibility/Engine/VisibilitySimulator.swift"
s = open(p).read()
open(p, "w").write("import DiskCache\n" + s)
PY
expect "an import the target does not declare" fail "Visibility: imports \['DiskCache'\] without declaring them"

fresh
python3 - "$work/copy" <<'PY'
import sys
p = sys.argv[1] + "/Sources/Visibility/Engine/VisibilitySimulator.swift"
s = open(p).read()
open(p, "w").write("@preconcurrency internal import DiskCache\n" + s)
PY
expect "an @preconcurrency internal import the target does not declare" fail "Visibility: imports \['DiskCache'\] without declaring them"

fresh
python3 - "$work/copy" <<'PY'
import sys
root = sys.argv[1]
lab = '.target(name: "Lab", dependencies: ["StrictJSON", '
for path, old, new in [(root + "/Package.swift", lab, lab + '"AssetGen", '),
                       (root + "/docs/ARCHITECTURE.md", "Lab -> StrictJSON, ", "Lab -> StrictJSON, AssetGen, ")]:
    s = open(path).read()
    assert old in s, (path, old)
    open(path, "w").write(s.replace(old, new, 1))
PY
expect "a declared dependency no source imports" fail "Lab: declares \['AssetGen'\] but no source imports them"

fresh
python3 - "$work/copy" <<'PY'
import sys
root = sys.argv[1]
lab = '.target(name: "Lab", dependencies: ["StrictJSON", '
p = root + "/Package.swift"
s = open(p).read()
assert lab in s
open(p, "w").write(s.replace(lab, lab + '"AssetGen", ', 1))
p = root + "/Sources/Lab/LabError.swift"
open(p, "w").write("import AssetGen\n" + open(p).read())
PY
expect "a manifest dependency the graph does not show" fail "Lab: Package.swift \[.*AssetGen.*\], ARCHITECTURE.md"

fresh
python3 - "$work/copy" <<'PY'
import sys
p = sys.argv[1] + "/docs/ARCHITECTURE.md"
s = open(p).read()
assert "\n5: Lab\n" in s
open(p, "w").write(s.replace("\n5: Lab\n", "\n5:\n", 1))
PY
expect "a target in no layer" fail "Lab: in no layer of docs/ARCHITECTURE.md"

fresh
python3 - "$work/copy" <<'PY'
import sys
p = sys.argv[1] + "/docs/ARCHITECTURE.md"
s = open(p).read()
open(p, "w").write(s.replace("```graph", "```text", 1))
PY
expect "an ARCHITECTURE.md without its graph block" fail "has no \`\`\`graph block"
exit $status
