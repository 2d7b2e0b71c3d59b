#!/usr/bin/env bash
# Fails when the module graph in docs/ARCHITECTURE.md (the ```graph block) differs from the
# targets' dependencies in Package.swift (test targets are not part of the graph), when a
# dependency does not point to a lower layer of the ```layers block, when a target
# (test targets included) imports a module of this package it does not declare, or declares one
# (or ArgumentParser) that no source imports, or when a source breaks a rule the build enforces:
#   - wall clocks (ContinuousClock, SuspendingClock, DispatchTime.now, CLOCK_MONOTONIC, Date(),
#     Date.now, time()) only in the files allowed below, each with its reason: work is thread
#     CPU time (sources only: tests time their deadlines as they like);
#   - `Mutex` only inside SystemIO's `Lock`, the package's one lock type (sources only);
#   - the C library (`import Glibc`, or Musl, Darwin and the like, or `import Foundation`, which
#     re-exports Glibc on Linux; `FoundationEssentials` does not) only in SystemIO, MemoryProbe
#     and the files allowed below, each with its reason (libm, malloc and memcmp, exit): sources
#     only. The `#else` of `#if canImport(FoundationEssentials)` is not compiled on Linux and
#     does not count;
#   - no `@_exported import` in sources: a re-export hands a module's names to every importer,
#     out of sight of the import rules;
#   - `usleep`, `nanosleep` and `sleep` only in SystemIO, whose `Pause` is the one blocking
#     pause (sources only: tests wait as they like);
#   - a source file is named for its main type (the name before any `+`), and every top-level
#     public or package type has a file named for it, but for the files
#     allowed below, each with its reason;
#   - nothing `public` in RetentionTool and RetentionCLI, which no product vends (`package`
#     access: the tool promises nothing outside the package);
#   - no command-line flag of the tool in Lab, anywhere in a string literal (`"--strategy"`,
#     `"--set="`, `"-o"`, or a message's `"--values: …"`): Lab talks to its children through
#     the typed `ChildRunRequest`, so a renamed flag cannot break `compare` or `sweep`, and its
#     messages name a `LabTerm`, which the tool spells as its flag, so a renamed flag renames
#     every message;
#   - file and process system calls (open, read, write, poll, readdir, rename, unlink, close,
#     mkfifo, symlink, chmod, posix_spawn, fork, kill, system, popen, …) and Foundation's `Process` and
#     `FileManager` only in SystemIO and the C shims, in sources and tests alike: only SystemIO
#     spawns and signals processes. Tests/SystemIOTests is the one exception, since the system
#     layer's own tests call the system directly to check what SystemIO does.
# A call is a name followed by `(` that is neither a method (`x.write(`, `self.read(`) nor a
# declaration (`func write(`, `case read(`); comments and string literals are stripped first.
# An import is an import in any form: with attributes (`@testable`, `@preconcurrency`,
# `@_exported`, `@_implementationOnly`, `@_spi(Name)`), an access level (`internal import Glibc`,
# `public import`), a kind (`import func Glibc.mmap`), indented or split over lines; every import
# rule reads imports the same way.
# C targets' headers are not read.
set -euo pipefail
cd "$(dirname "$0")/.."
swift package dump-package 2>/dev/null | python3 -c '
import json, os, re, sys
package = json.load(sys.stdin)
actual = {}
paths = {}
tests = set()
for target in package["targets"]:
    names = []
    for dependency in target["dependencies"]:
        kind, value = next(iter(dependency.items()))
        names.append(value[0])
    if target["type"] == "test":
        tests.add(target["name"])
    actual[target["name"]] = set(names)
    folder = "Tests" if target["type"] == "test" else "Sources"
    paths[target["name"]] = target.get("path") or folder + "/" + target["name"]
graph = {name: deps for name, deps in actual.items() if name not in tests}
text = open("docs/ARCHITECTURE.md").read()
def fenced(kind, separator):
    # The lines of the ```KIND block, each split at `separator` into a key and a set of names.
    block = re.search(r"```" + kind + r"\n(.*?)```", text, re.S)
    if not block:
        sys.exit(f"check-architecture: docs/ARCHITECTURE.md has no ```{kind} block")
    for line in block.group(1).strip().splitlines():
        key, _, rest = line.partition(separator)
        yield key.strip(), {d.strip() for d in rest.split(",") if d.strip()}
documented = dict(fenced("graph", "->"))
problems = []
layer = {target: int(number) for number, names in fenced("layers", ":") for target in names}
for name, deps in sorted(graph.items()):
    if name not in layer:
        problems.append(f"  {name}: in no layer of docs/ARCHITECTURE.md")
        continue
    for dep in sorted(deps):
        if dep in layer and layer[dep] >= layer[name]:
            problems.append(f"  {name} (layer {layer[name]}) depends on {dep} (layer {layer[dep]}): dependencies point down only")
for name in sorted(set(graph) | set(documented)):
    if graph.get(name) != documented.get(name):
        problems.append(f"  {name}: Package.swift {sorted(graph.get(name, []))}, ARCHITECTURE.md {sorted(documented.get(name, []))}")

def swift_files(name):
    for folder, _, files in os.walk(paths[name]):
        for file in sorted(files):
            if file.endswith(".swift"):
                yield os.path.join(folder, file)

def without_comments(source):
    # The source without comments, string literals kept (a flag is a string literal).
    source = re.sub(r"//[^\n]*", "", source)
    return re.sub(r"/\*.*?\*/", "", source, flags=re.S)

def code(source):
    # The source without comments and string literals, so prose never trips a rule.
    source = re.sub(r"\"\"\".*?\"\"\"", "\"\"", source, flags=re.S)
    source = re.sub(r"//[^\n]*", "", source)
    source = re.sub(r"/\*.*?\*/", "", source, flags=re.S)
    return re.sub(r"\"(?:[^\"\\\n]|\\.)*\"", "\"\"", source)

# An import in any form (see the top of this file): its attributes and its module.
import_line = re.compile(r"^[ \t]*((?:@\w+(?:\([^)\n]*\))?\s+)*)(?:(?:public|package|internal|fileprivate|private|open)\s+)?import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?(\w+)", re.M)
def imports(source):
    # (attributes, module) for each import of the source, comments and strings stripped, and the
    # `#else` of `#if canImport(FoundationEssentials)` dropped: Linux compiles the first branch.
    source = re.sub(r"(#if canImport\(FoundationEssentials\)[^#]*)#else[^#]*#endif", r"\1#endif", code(source))
    return [(m.group(1), m.group(2)) for m in import_line.finditer(source)]

modules = set(actual) - tests
for name, declared in sorted(actual.items()):
    imported = set()
    swift = False
    for path in swift_files(name):
        swift = True
        imported |= {module for _, module in imports(open(path).read())}
    if not swift:
        continue
    undeclared = sorted((imported & modules) - declared)
    unused = sorted(declared - imported) if name not in tests else []
    if undeclared:
        problems.append(f"  {name}: imports {undeclared} without declaring them")
    if unused:
        problems.append(f"  {name}: declares {unused} but no source imports them")

# Wall clocks: where each is allowed, and why.
wall_clock_allowed = {
    "Sources/SystemIO/ChildProcess.swift": "a child run'"'"'s timeout is wall time",
    "Sources/Lab/Soak/Soak.swift": "--duration and a sample'"'"'s elapsed seconds are wall time, labelled so",
    "Sources/SoakProbe/ProcessSoak.swift": "--exec'"'"'s --every and --iteration-timeout are wall time: another program'"'"'s iterations have no modelled time",
    "Sources/Lab/Report/ProgressLines.swift": "ProgressLines, the one progress throttle: a note at most every 10 wall seconds",
    "Sources/RetentionTool/Thumbnail/ThumbnailBatch.swift": "the batch summary'"'"'s seconds, labelled wall time in the help",
    "Sources/DiskCache/DiskStore.swift": "the open'"'"'s duration and the takeover'"'"'s throttle (disk waits are the point)",
    "Sources/DiskCache/DiskStore+Snapshot.swift": "snapshot scheduling: the quiet period is wall time",
    "Sources/DiskCache/DiskStore+Index.swift": "the index load'"'"'s duration and last-use stamps",
    "Sources/DiskCache/DiskStore+Reading.swift": "last-use stamps for the LRU order",
    "Sources/DiskCache/DiskStore+Writing.swift": "last-use stamps for the LRU order",
    "Sources/DiskStoreCheck/main.swift": "a test helper'"'"'s deadlines",
    "Sources/Retention/ImageCache+Loading.swift": "a read'"'"'s wall time (a source may wait on a network), labelled wall; decodes are CPU time",
    "Sources/Retention/Internal/TimedFetch.swift": "a fetch timeout is wall time (a fetch waits on a network, which is no CPU work)",
    "Sources/Retention/Internal/CacheDiskTier.swift": "a disk read'"'"'s wall time (the disk may wait), added to the load'"'"'s read time; decodes are CPU time",
}
# A flag inside a string literal: a whole literal `"-o"`, or `--name` anywhere in one.
string_literal = re.compile(r"\"\"\".*?\"\"\"|\"(?:[^\"\\\n]|\\.)*\"", re.S)
flag_in_literal = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*|^-[a-zA-Z]$")
# The C library outside SystemIO and MemoryProbe (whose readers parse /proc): only where a file
# needs what the Swift standard library does not give, and why. System calls go through SystemIO
# either way (the raw-call rule below); SystemIO'"'"'s `Errno` and `CurrentProcess` give the errno
# constants, the process id and the environment without the C library.
c_library = {"Glibc", "Musl", "Darwin", "Bionic", "Android", "WASILibc", "ucrt"}
reexports_c_library = {"Foundation"}
glibc_allowed = {
    "Sources/Imaging/Thumbnail/LinearLight.swift": "libm: pow for the sRGB curve",
    "Sources/Imaging/Thumbnail/FilterTable.swift": "libm: sin and cos for the Lanczos kernel",
    "Sources/Lab/Experiment/FrameStatistics.swift": "libm: log and pow",
    "Sources/Lab/Comparison/ComparisonModel.swift": "libm: log for the sigma of the log-normal",
    "Sources/Visibility/Engine/VisibilitySimulator+Steps.swift": "libm: pow for the decay of a fling",
    "Sources/Scenario/LatencyModel.swift": "libm: exp and log for the log-normal",
    "Sources/Imaging/BitmapAllocator.swift": "malloc, free, and mmap for page-mapped bitmaps (PageMapping)",
    "Sources/Imaging/Bitmap.swift": "memcmp of pixel rows",
    "Sources/Imaging/Thumbnail/WorkingMemory.swift": "calloc and free of the buffers of the thumbnailer",
    "Sources/Lab/Experiment/RowMemory.swift": "malloc, memset and free: the real memory of rows",
    "Sources/Scenario/Trace/TraceRecord.swift": "memcmp of field names",
    "Sources/Scenario/Trace/FlatJSONLine.swift": "memcmp of field names",
    "Sources/Scenario/ImageSet.swift": "fnmatch for image patterns",
    "Sources/Lab/Experiment/LabDiskStore.swift": "getpid: the folder of a run store names its process",
    "Sources/Lab/Comparison/ChildProcess+Failure.swift": "strsignal: the name of a signal",
    "Sources/SoakProbe/ProcessSoak.swift": "getpid, the signal numbers it sends its child, and memchr: the newlines of a program'"'"'s standard error, streamed past at the C library'"'"'s speed",
    "Sources/SoakProbe/MarkerMatcher.swift": "memchr: a marker'"'"'s first byte found at the C library'"'"'s speed in output of any size",
    "Sources/RetentionTool/Output.swift": "exit",
    "Sources/RetentionCLI/RetentionCommand.swift": "exit",
    "Sources/DiskStoreCheck/main.swift": "exit",
    "Sources/HostileCallerCheck/main.swift": "exit",
    "Sources/DiskCache/Internal/EntryBuffer.swift": "malloc and free: a lookup'"'"'s buffer, refused (nil) rather than a trap when memory runs out",
    "Sources/MemoryCheck/BudgetScroll.swift": "a test helper that measures a cache under load: getrusage for the whole process CPU time, and Foundation'"'"'s Thread for the resident-memory sampler",
    "Sources/MemoryCheck/main.swift": "a test helper that makes the memory MemoryProbe and SoakProbe must see: mmap and munmap of raw pages, malloc, memset and free in a thread of its own (Foundation'"'"'s Thread), exit",
}
wall_clock = re.compile(r"\b(ContinuousClock|SuspendingClock|DispatchTime\.now|CLOCK_MONOTONIC|CLOCK_REALTIME|Date\(\)|Date\.now\b|gettimeofday)|(?<![\w.])(?<!func )time\(")
raw_call = re.compile(r"(?<![\w.])(?<!func )(?<!case )(?:Glibc\.)?(open|openat|fopen|fdopen|close|read|write|pread|pwrite|poll|opendir|readdir|rename|renameat|unlink|unlinkat|rmdir|mkdir|mkfifo|symlink|chmod|mkstemps?|mkdtemp|access|readlink|realpath|stat|lstat|fstat|posix_spawnp?|fork|waitpid|wait4|kill|ftruncate|fsync|flock|system|popen)\(")
pause_call = re.compile(r"(?<![\w.])(?<!func )(usleep|nanosleep|sleep)\(")
foundation_call = re.compile(r"(?<![\w.])(?:Foundation\.)?(Process|FileManager)\b")
system_tests = "Tests/SystemIOTests/"
# A source file is named for its main type: the name before any `+` (`DiskStore+Removal.swift`)
# is a type, protocol or alias the file declares or a type it extends. A public or package type
# declared at the top level has a file of its own, named for it: a reader looking for
# `StopRequest` opens StopRequest.swift. Internal helper types may sit beside the type they
# serve. The files below are the exceptions, each with its reason.
file_name_allowed = {
    "Sources/Scenario/Configuration+Codable.swift": "one concern, the Codable conformances of the configuration types",
    "Sources/StrictJSON/DecodingSupport.swift": "one concern, the strict decoding helpers over the standard library decoders",
    "Sources/Lab/Soak/SoakDuration.swift": "a free function (parseSoakDuration), no type",
}
declared_name = re.compile(r"^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private|final|indirect)\s+)*(?:struct|class|enum|protocol|actor|typealias)\s+(\w+)", re.M)
extended_name = re.compile(r"^(?:(?:public|package|internal|fileprivate|private)\s+)?extension\s+([\w.]+)", re.M)
# Targets no product vends declare nothing public: the tool promises nothing outside the package.
unvended = {"RetentionTool", "RetentionCLI"}
public_decl = re.compile(r"^\s*(@\w+(\([^)]*\))?\s+)*public\b")
# A top-level public or package type (not an alias: an alias names another file'"'"'s type).
top_level_type = re.compile(r"^(?:@[\w().,: ]+\s+)*(?:public|package|open)\s+(?:(?:final|indirect)\s+)*(?:struct|class|enum|protocol|actor)\s+(\w+)", re.M)
for name in sorted(actual):
    for path in swift_files(name):
        text = open(path).read()
        if path.startswith("Sources/Lab/"):
            stripped = without_comments(text)
            for literal in string_literal.finditer(stripped):
                body = literal.group(0).strip(chr(34))
                for flag in flag_in_literal.findall(body):
                    number = stripped.count("\n", 0, literal.start()) + 1
                    problems.append(f"  {path}:{number}: the flag \"{flag}\" in Lab (children get a typed ChildRunRequest, and messages name a LabTerm the tool spells)")
        if path.startswith("Sources/"):
            for attributes, module in imports(text):
                if "@_exported" in attributes:
                    problems.append(f"  {path}: @_exported import {module}: a re-export hands {module} to every importer, out of sight of the import rules")
                if (module in c_library or module in reexports_c_library) and not path.startswith(("Sources/SystemIO/", "Sources/MemoryProbe/")) \
                        and path not in glibc_allowed:
                    how = f"{module}, which re-exports Glibc," if module in reexports_c_library else module
                    problems.append(f"  {path}: imports {how} outside SystemIO and MemoryProbe, and not for a reason the list allows (see tools/check-architecture.sh)")
        base = os.path.basename(path)[:-len(".swift")].split("+")[0]
        if path.startswith("Sources/") and base != "main" and path not in file_name_allowed:
            names = set(declared_name.findall(text))
            for extended in extended_name.findall(text):
                names |= {extended.split(".")[0], extended.split(".")[-1]}
            if base not in names:
                held = ", ".join(sorted(names)[:4]) or "none"
                problems.append(f"  {path}: named for no type it declares or extends ({held}): name a file for its main type")
            for other in top_level_type.findall(code(text)):
                if other != base:
                    problems.append(f"  {path}: declares the public or package type {other}, which needs a file of its own ({other}.swift)")
        source = code(text)
        for number, line in enumerate(source.split("\n"), 1):
            if name in unvended and public_decl.search(line):
                problems.append(f"  {path}:{number}: a public declaration in {name}, which no product vends (use package access)")
            if name not in tests:
                if wall_clock.search(line) and path not in wall_clock_allowed:
                    problems.append(f"  {path}:{number}: a wall clock outside the allowed files (work is thread CPU time; see tools/check-architecture.sh)")
                if re.search(r"\bMutex\b", line) and path != "Sources/SystemIO/Lock.swift":
                    problems.append(f"  {path}:{number}: Mutex outside SystemIO'"'"'s Lock (the one lock type)")
                match = pause_call.search(line)
                if match and not path.startswith("Sources/SystemIO/"):
                    problems.append(f"  {path}:{number}: {match.group(1)}() outside SystemIO (pause with SystemIO'"'"'s Pause)")
            if path.startswith("Sources/SystemIO/") or path.startswith(system_tests):
                continue
            match = raw_call.search(line)
            if match:
                problems.append(f"  {path}:{number}: the system call {match.group(1)}() outside SystemIO")
            match = foundation_call.search(line)
            if match:
                problems.append(f"  {path}:{number}: Foundation'"'"'s {match.group(1)} outside SystemIO (files and processes go through SystemIO)")
if problems:
    sys.exit("check-architecture: the graph differs or a rule is broken:\n" + "\n".join(problems))
print(f"check-architecture: {len(actual)} targets ({len(tests)} test targets), graph matches Package.swift, every target imports what it declares, clocks, locks and pauses where they belong, the C library (in any import form, Foundation'"'"'s re-export included) only where listed, no re-exports, files named for their types, nothing public in the tool, no flag in Lab, no system call, process or FileManager outside SystemIO (tests included, but for SystemIOTests)")
'
