import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import SystemIO
import Testing

/// `retention soak --exec`: small Python programs (Fixtures/soak-program.py) soaked from outside.
@Suite("retention soak --exec")
struct ExecSoakCommandTests {
    static let program = CLIRunner.packageRoot + "/Tests/RetentionCLITests/Fixtures/soak-program.py"

    @Test("a program that keeps 100 KB more per marker fails, naming its measure and how it weakens the verdict")
    func leakFails() async throws {
        let result = try await CLIRunner.run(["soak", "--exec", "--until-verdict", "--iterations", "60", "--", "python3", Self.program, "leak"], timeout: 60)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("\nverdict: FAIL (growth)\n"), "\(result.stdout)")
        #expect(result.stdout.contains("\nmeasure: anonymous resident memory (smaps_rollup Anonymous), read from /proc/PID/smaps_rollup after each iteration; another process's allocator cannot be read"), "\(result.stdout)")
        #expect(result.stdout.contains("lies above the allowed 64.0 KB per iteration"), "\(result.stdout)")
    }

    @Test("its bounded twin passes, after the 10 measured iterations a PASS of another process needs")
    func boundedPasses() async throws {
        let result = try await CLIRunner.run(["soak", "--exec", "--until-verdict", "--iterations", "80", "--warmup", "3", "--", "python3", Self.program, "bounded"], timeout: 60)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("\nverdict: PASS\n"), "\(result.stdout)")
        let measured = result.stdout.firstMatch(of: /warm-up, (\d+) measured\)/).map { Int($0.1) ?? 0 } ?? 0
        #expect(measured >= 10, "\(result.stdout)")
    }

    @Test("a program that crashes mid-soak is a failed run (exit 2) naming the signal and its last words")
    func crashIsAFailedRun() async throws {
        let result = try await CLIRunner.run(["soak", "--exec", "--iterations", "40", "--", "python3", Self.program, "crash"], timeout: 60)
        #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("\nverdict: FAIL (run failed)\n"), "\(result.stdout)")
        #expect(result.stdout.contains(#/reason: the program crashed: killed by SIGABRT after [78] iterations \(2 warm-up\): a failed run, whatever was measured/#), "\(result.stdout)")
        #expect(result.stderr.contains("fatal: out of widgets in iteration 9"), "\(result.stderr)")
    }

    @Test("a program that dies right after a marker, while its memory is read, is named as crashed, never as unreadable", arguments: 0..<3)
    func dyingWhileSampled(round: Int) async throws {
        let result = try await CLIRunner.run(["soak", "--exec", "--iterations", "40", "--", "python3", Self.program, "dying"], timeout: 60)
        #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("reason: the program crashed: killed by SIGABRT after 8 iterations (2 warm-up): a failed run, whatever was measured"), "\(result.stdout)")
        #expect(result.stdout.contains("could not be read") == false, "\(result.stdout)")
    }

    // 10 s: with the other tests running on a loaded machine, Python took over 5 s to its first marker.
    @Test("a program that stops printing markers is stalled: killed, INCONCLUSIVE (exit 3), the timeout named")
    func stallIsInconclusive() async throws {
        let result = try await CLIRunner.run(["soak", "--exec", "--iterations", "40", "--iteration-timeout", "10s", "--", "python3", Self.program, "stall"], timeout: 60)
        #expect(result.status == 3, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("\nverdict: INCONCLUSIVE\n"), "\(result.stdout)")
        #expect(result.stdout.contains("reason: stalled: no RETENTION-ITERATION marker within --iteration-timeout 10.0 s after iteration 6 (the program was killed): a stopped soak is never a pass"), "\(result.stdout)")
    }

    @Test("--every samples a program that prints no marker; one that exits early is never a pass")
    func everyAndEarlyExit() async throws {
        // About 1.5 s of work: exited before the third 2-second sample, the one after warm-up.
        let result = try await CLIRunner.run(["soak", "--exec", "--every", "2s", "--iterations", "20", "--warmup", "1", "--", "python3", Self.program, "quiet", "150"], timeout: 60)
        #expect(result.status == 3, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("ended by") == false && result.stdout.contains("one every 2.0 s of wall time"), "\(result.stdout)")
        #expect(result.stdout.contains("reason: the program exited (status 0) after "), "\(result.stdout)")
    }

    @Test("--junit from a FAIL is XML with one failed test case whose message holds the reasons")
    func junitFromAFail() async throws {
        let dir = try CLIRunner.temporaryDirectory("soak-junit")
        defer { try? FileIO.removeTree(dir) }
        let path = dir + "/soak.xml"
        let result = try await CLIRunner.run(["soak", "--exec", "--until-verdict", "--iterations", "60", "--junit", path, "--", "python3", Self.program, "leak"], timeout: 60)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let parsed = JUnitReader()
        let parser = XMLParser(data: data)
        parser.delegate = parsed
        #expect(parser.parse(), "\(String(decoding: data, as: UTF8.self))")
        #expect(parsed.elements.first == "testsuites")
        #expect(parsed.elements.filter { $0 == "testcase" }.count == 1)
        #expect(parsed.attributes["testsuite"]?["failures"] == "1")
        let failure = try #require(parsed.attributes["failure"])
        #expect(failure["type"] == "growth")
        #expect(failure["message"]?.hasPrefix("FAIL (growth); anonymous memory grows ") == true, "\(failure)")
        #expect(failure["message"]?.contains("lies above the allowed 64.0 KB per iteration") == true, "\(failure)")
        #expect(parsed.attributes["testcase"]?["name"] == "exec: python3 \(Self.program) leak")
        #expect(parsed.text["failure"]?.contains("verdict: FAIL (growth)\nmeasure: anonymous") == true)
    }

    @Test("--junit from a scenario soak's FAIL: one failed case named after the scenario and strategy")
    func junitFromAScenarioSoak() async throws {
        let dir = try CLIRunner.temporaryDirectory("soak-junit-scenario")
        defer { try? FileIO.removeTree(dir) }
        let path = dir + "/soak.xml"
        let scenario = CLIRunner.packageRoot + "/assets/scenarios/soak-growing-feed.json"
        let result = try await CLIRunner.run(["soak", scenario, "--strategy", "decoded-lru", "--iterations", "6", "--junit", path])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let parsed = JUnitReader()
        let parser = XMLParser(data: try Data(contentsOf: URL(fileURLWithPath: path)))
        parser.delegate = parsed
        #expect(parser.parse())
        #expect(parsed.attributes["testcase"]?["name"] == "soak-growing-feed under decoded-lru")
        #expect(parsed.attributes["failure"]?["type"] == "growth")
        #expect(parsed.attributes["failure"]?["message"]?.contains("FAIL (growth); retained memory grows") == true, "\(parsed.attributes)")
    }

    @Test("bad --exec input: no command, a command not found, a scenario beside it, a rate per hour")
    func badInput() async throws {
        let none = try await CLIRunner.run(["soak", "--exec"])
        #expect(none.status == 64)
        #expect(none.stderr.contains("Error: --exec needs a command after --: retention soak --exec -- CMD ARGS..."), "\(none.stderr)")
        let missing = try await CLIRunner.run(["soak", "--exec", "--", "no-such-program-rtn48"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("Error: --exec: no-such-program-rtn48: command not found in PATH"), "\(missing.stderr)")
        let notAFile = try await CLIRunner.run(["soak", "--exec", "--", "/nonexistent/tool"])
        #expect(notAFile.status == 2)
        #expect(notAFile.stderr.contains("Error: --exec: /nonexistent/tool: no such program (not a file we may execute)"), "\(notAFile.stderr)")
        // A file that is not a program the kernel runs: named once, with the kernel's reason.
        let dir = try CLIRunner.temporaryDirectory("exec-badelf")
        defer { try? FileIO.removeTree(dir) }
        try FileIO.replace(dir + "/bad", with: Data([0x7F, 0x45, 0x4C, 0x46, 1, 2, 3, 4, 5, 6, 7, 8]))
        try FileIO.setPermissions(dir + "/bad", 0o755)
        let badELF = try await CLIRunner.run(["soak", "--exec", "--", dir + "/bad"])
        #expect(badELF.status == 2)
        #expect(badELF.stderr.contains("Error: --exec: cannot start \(dir)/bad: Exec format error\n"), "\(badELF.stderr)")
        let newline = try await CLIRunner.run(["soak", "--exec", "--marker", "A\nB", "--", "true"])
        #expect(newline.status == 64 && newline.stderr.contains("--marker cannot hold a line break"), "\(newline.stderr)")
        for flags in [["--max-growth", "8MB"], ["--horizon", "8h"]] {
            let ignored = try await CLIRunner.run(["soak", "--exec"] + flags + ["--", "true"])
            #expect(ignored.status == 64 && ignored.stderr.contains("--max-growth and --horizon judge a scenario soak's hours of use; --exec has none"), "\(flags): \(ignored.stderr)")
        }
        let both = try await CLIRunner.run(["soak", "scenario.json", "--exec", "--", "true"])
        #expect(both.status == 64)
        #expect(both.stderr.contains("--exec soaks the program after --, not a scenario"), "\(both.stderr)")
        let hourly = try await CLIRunner.run(["soak", "--exec", "--max-growth-rate", "16MB/h", "--", "true"])
        #expect(hourly.status == 64)
        #expect(hourly.stderr.contains("--exec has no modelled use: give --max-growth-rate per iteration, like 64KB/iteration"), "\(hourly.stderr)")
        let stray = try await CLIRunner.run(["soak", "--marker", "X", CLIRunner.packageRoot + "/assets/scenarios/soak-growing-feed.json", "--strategy", "decoded-lru", "--iterations", "3"])
        #expect(stray.status == 64)
        #expect(stray.stderr.contains("--marker, --every, --iteration-timeout, --measure and --pid-only apply to --exec"), "\(stray.stderr)")
    }

    @Test("--export-csv and --export-json write a program's samples and verdict; --baseline compares its slope per iteration: a leak within its limit fails against a bounded baseline")
    func exportsAndBaseline() async throws {
        let dir = try CLIRunner.temporaryDirectory("exec-exports")
        defer { try? FileIO.removeTree(dir) }
        let main = try await CLIRunner.run(["soak", "--exec", "--iterations", "12", "--export-csv", dir + "/main.csv", "--export-json", dir + "/main.json",
                                            "--", "python3", Self.program, "bounded"], timeout: 60)
        #expect(main.status == 0, "\(main.stdout)\(main.stderr)")
        let csv = try String(contentsOfFile: dir + "/main.csv", encoding: .utf8).split(separator: "\n")
        #expect(csv.first == "iteration,warmup,elapsedSeconds,measureBytes,residentBytes,anonymousBytes" && csv.count >= 13, "\(csv)")
        let json = try String(contentsOfFile: dir + "/main.json", encoding: .utf8)
        let document = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        // One sample per read of markers: 14 iterations, fewer samples when markers came together.
        #expect((document?["samples"] as? [Any])?.count == csv.count - 1, "\(json)")
        let verdict = document?["verdict"] as? [String: Any]
        #expect(verdict?["outcome"] as? String == "pass" && verdict?["slopeUpperBytesPerIteration"] is Double, "\(json)")
        // 100 KB more per iteration, within a 200 KB/iteration limit, against the bounded run.
        let grown = try await CLIRunner.run(["soak", "--exec", "--until-verdict", "--iterations", "60", "--max-growth-rate", "200KB/iteration",
                                             "--baseline", dir + "/main.json", "--", "python3", Self.program, "leak"], timeout: 60)
        #expect(grown.status == 1, "\(grown.stdout)\(grown.stderr)")
        #expect(grown.stdout.contains("\nverdict: PASS\n") && grown.stdout.contains("grew significantly (this interval lies above the baseline's by more than 50.0 KB)"), "\(grown.stdout)")
        #expect(grown.stdout.contains("verdict against the baseline: FAIL (the slope grew significantly); exit status 1"), "\(grown.stdout)")
    }
}

/// Collects a JUnit document's element names in order, each element's last attributes and text.
final class JUnitReader: NSObject, XMLParserDelegate {
    var elements: [String] = []
    var attributes: [String: [String: String]] = [:]
    var text: [String: String] = [:]
    private var open: [String] = []

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
                attributes attributeDict: [String: String]) {
        elements.append(elementName)
        attributes[elementName] = attributeDict
        open.append(elementName)
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if let element = open.last { text[element, default: ""] += string }
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        _ = open.popLast()
    }

    @Test("a program started through a wrapper is measured with the work it starts: a leak behind sh -c or two shells FAILs as the direct run does, its bounded twin PASSes behind either, --pid-only measures the shell alone")
    func wrapperTree() async throws {
        let dir = try CLIRunner.temporaryDirectory("exec-tree")
        defer { try? FileIO.removeTree(dir) }
        try FileIO.replace(dir + "/leak.py", with: Data("""
            import time
            keep = []
            for i in range(400):
                keep.append(bytearray(500_000))
                for j in range(0, 500_000, 4096): keep[-1][j] = 1
                print("RETENTION-ITERATION", flush=True)
                time.sleep(0.02)
            """.utf8))
        let wrapped = try await CLIRunner.run(["soak", "--exec", "--iterations", "12", "--", "sh", "-c", "python3 \(dir)/leak.py; true"], timeout: 120)
        #expect(wrapped.status == 1, "\(wrapped.stdout) \(wrapped.stderr)")
        #expect(wrapped.stdout.contains("verdict: FAIL (growth)"), "\(wrapped.stdout)")
        #expect(wrapped.stdout.contains("processes: 2 processes measured at the last sample"), "\(wrapped.stdout)")
        // Behind two shells, and the bounded twin behind one and two: FAIL, PASS, PASS.
        let twoShells = try await CLIRunner.run(["soak", "--exec", "--iterations", "12", "--", "sh", "-c", "sh -c 'python3 \(dir)/leak.py'; true"], timeout: 120)
        #expect(twoShells.status == 1 && twoShells.stdout.contains("verdict: FAIL (growth)"), "\(twoShells.stdout) \(twoShells.stderr)")
        for wrapper in ["python3 \(ExecSoakCommandTests.program) bounded; true", "sh -c 'python3 \(ExecSoakCommandTests.program) bounded'; true"] {
            let bounded = try await CLIRunner.run(["soak", "--exec", "--iterations", "12", "--", "sh", "-c", wrapper], timeout: 120)
            #expect(bounded.status == 0 && bounded.stdout.contains("verdict: PASS"), "\(wrapper): \(bounded.stdout) \(bounded.stderr)")
        }
        let shellOnly = try await CLIRunner.run(["soak", "--exec", "--iterations", "12", "--pid-only", "--", "sh", "-c", "python3 \(dir)/leak.py; true"], timeout: 120)
        #expect(!shellOnly.stdout.contains("verdict: FAIL"), "the shell alone does not grow: \(shellOnly.stdout)")
        #expect(shellOnly.stdout.contains("processes: the program's own only (--pid-only)"), "\(shellOnly.stdout)")
    }

    @Test("a Python lru_cache(maxsize=256) still filling while measured passes with the default flags and names the fill; the same program unbounded fails under --until-verdict")
    func fillingCacheIsNotALeak() async throws {
        // Ten 40 KB values an iteration: 400 KB more each, until the 256 entries fill at iteration
        // 26; it runs until the soak ends it, which takes 200 measured iterations by default.
        let memo = CLIRunner.packageRoot + "/Tests/RetentionCLITests/Fixtures/memo-program.py"
        let bounded = try await CLIRunner.run(["soak", "--exec", "--", "python3", memo, "bounded"], timeout: 90)
        #expect(bounded.status == 0, "\(bounded.stdout)\(bounded.stderr)")
        // On a loaded host markers are read together and the first sample may come after the
        // fill: a PASS then needs no fill to name.
        let sampledTheFill = bounded.stdout.contains("(2 warm-up, ") && !bounded.stdout.contains("markers came in the same read")
        #expect(bounded.stdout.contains("\nnote: a fill ending at iteration ") || !sampledTheFill, "\(bounded.stdout)")
        // The unbounded twin until its verdict (a FAIL stops after 48 iterations), so its
        // memory stays bounded however slowly a loaded host samples it.
        let unbounded = try await CLIRunner.run(["soak", "--exec", "--until-verdict", "--", "python3", memo, "unbounded"], timeout: 90)
        #expect(unbounded.status == 1, "\(unbounded.stdout)\(unbounded.stderr)")
        #expect(!unbounded.stdout.contains("a fill ending"), "\(unbounded.stdout)")
    }

    @Test("nothing outlives the soak: a daemon the program detached (setsid, its parent gone) is ended with it; kill -9 of the soak, or a second SIGINT, ends the program and leaves no file")
    func nothingOutlivesTheSoak() async throws {
        let dir = try CLIRunner.temporaryDirectory("exec-outlive")
        defer { try? FileIO.removeTree(dir) }
        let tag = "\(900_000 + Int(getpid()) % 90_000)"
        let loop = "while true; do echo RETENTION-ITERATION; sleep 0.05; done"
        let daemon = try await CLIRunner.run(["soak", "--exec", "--iterations", "12", "--", "sh", "-c", "(setsid sleep \(tag) &); \(loop)"], timeout: 120)
        // The shell and the daemon at least (the loop's sleep too, when one runs at the end).
        let ended = daemon.stdout.split(separator: "\n").first { $0.hasPrefix("ended: ") }.flatMap { Int($0.dropFirst(7).prefix { $0.isNumber }) }
        #expect((ended ?? 0) >= 2, "\(daemon.stdout)")
        let left = try await CLIRunner.shell("sleep 0.3; pgrep -f 'slee[p] \(tag)' || echo none")
        #expect(left.stdout == "none\n", "the detached daemon outlived the soak: \(left.stdout)")
        // The report says what held the tree: its own cgroup where one can be made (removed
        // at the end), else the process tree and why there was no cgroup.
        let contained = try #require(daemon.stdout.split(separator: "\n").first { $0.hasPrefix("contained: ") }, "\(daemon.stdout)")
        if contained.hasPrefix("contained: a cgroup of its own, ") {
            let path = String(contained.dropFirst("contained: a cgroup of its own, ".count).prefix { $0 != "," })
            #expect(FileIO.kind(of: path, followLinks: false) == .missing, "the soak's cgroup \(path) stayed")
        } else {
            #expect(contained.contains("no cgroup of its own ("), "\(contained)")
        }
        // SIGKILL of the soak itself (a CI's hard timeout, the OOM killer): the program, its
        // direct child, dies with it (PR_SET_PDEATHSIG, set before the program ran), and the
        // soak wrote no file, so nothing stays in TMPDIR. (The loop's sleep, orphaned, ends
        // within 0.05 s.)
        let killed = try await CLIRunner.shell("""
            TMPDIR='\(dir)' "$R" soak --exec --iterations 1000 -- sh -c '\(loop)' >/dev/null 2>&1 &
            pid=$!; sleep 1.5; child=$(pgrep -P $pid | head -n 1); kill -9 $pid; wait $pid 2>/dev/null
            sleep 0.5
            state=$(ps -o stat= -p "$child" 2>/dev/null); case "$state" in ""|Z*) echo "program gone";; *) echo "program alive: $state"; kill -9 -- -$child;; esac
            ls '\(dir)' | wc -l
            """)
        #expect(killed.stdout == "program gone\n0\n", "the program outlived a soak killed outright, or a file was left: \(killed.stdout)")
        // A second SIGINT (an impatient user): the soak ends at once, and the program with it.
        let twice = try await CLIRunner.shell("""
            TMPDIR='\(dir)' "$R" soak --exec --iterations 1000 -- sh -c '\(loop)' >/dev/null 2>&1 &
            pid=$!; sleep 1.5; child=$(pgrep -P $pid | head -n 1); kill -INT $pid; kill -INT $pid; wait $pid 2>/dev/null
            sleep 2.5
            state=$(ps -o stat= -p "$child" 2>/dev/null); case "$state" in ""|Z*) echo "program gone";; *) echo "program alive: $state"; kill -9 -- -$child;; esac
            ls '\(dir)' | wc -l
            """)
        #expect(twice.stdout == "program gone\n0\n", "the program outlived a soak ended by a second SIGINT, or a file was left: \(twice.stdout)")
    }

    @Test("a marker after a 1 MiB line's worth of bytes on the same line counts: every iteration is seen")
    func markerAfterALongLine() async throws {
        let line = "i=0; while [ $i -lt 40 ]; do head -c 1048576 /dev/zero | tr '\\0' x; echo ' RETENTION-ITERATION'; i=$((i+1)); sleep 0.02; done"
        let result = try await CLIRunner.run(["soak", "--exec", "--iterations", "12", "--", "sh", "-c", line], timeout: 120)
        #expect(result.status != 3 && result.status != 2, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.hasPrefix("soak --exec: sh -c \(line), 14 iterations (2 warm-up, 12 measured)"), "\(result.stdout)")
    }

    @Test("a program printing 20 MiB per iteration costs the soak no disk and bounded memory, and loses no marker")
    func chattyProgram() async throws {
        let dir = try CLIRunner.temporaryDirectory("exec-chatty")
        defer { try? FileIO.removeTree(dir) }
        // 20 MiB of one line on standard output, 1 MiB of short lines on standard error, then
        // the marker, 16 times; then silence, so the soak ends on its iteration count.
        try FileIO.replace(dir + "/chatty.sh", with: Data("""
            i=0
            while [ $i -lt 16 ]; do
                head -c 20971520 /dev/zero | tr '\\0' x
                yes chatter | head -c 1048576 >&2
                echo RETENTION-ITERATION
                i=$((i+1))
            done
            sleep 60
            """.utf8))
        // The soak's peak resident memory (VmHWM) and the files it holds open, looked at while
        // it runs: a file of its own in TMPDIR (or one deleted while open) would be output kept
        // on disk. (Only those: a full run of the suite once caught one other path open for a
        // moment, and output kept on disk would be in TMPDIR; the paths seen are printed.)
        let result = try await CLIRunner.shell("""
            TMPDIR='\(dir)' "$R" soak --exec --iterations 14 -- sh '\(dir)/chatty.sh' > '\(dir)/report' 2>&1 &
            pid=$!; files=0; peak=0; seen=
            while [ -d /proc/$pid ] && ! grep -q '^State:.*Z' /proc/$pid/status 2>/dev/null; do
                # A zombie's status has no VmHWM line: keep the last figure read.
                hwm=$(awk '/^VmHWM/ {print $2}' /proc/$pid/status 2>/dev/null); [ -n "$hwm" ] && peak=$hwm
                open=$(for f in /proc/$pid/fd/*; do readlink "$f"; done 2>/dev/null | grep -v -e '/report$' | grep -F -e '\(dir)/' -e '(deleted)')
                n=$(printf '%s' "$open" | grep -c .)
                [ "$n" -gt "$files" ] && { files=$n; seen=$(printf '%s' "$open" | tr '\n' ' '); }
                sleep 0.1
            done
            wait $pid; status=$?
            cat '\(dir)/report'; echo "status=$status peak=$peak files=$files left=$(ls '\(dir)' | grep -v -e report -e chatty.sh | wc -l) seen=$seen"
            """, timeout: 300)
        #expect(result.stdout.contains(" 16 iterations (2 warm-up, 14 measured)"), "\(result.stdout)")
        #expect(!result.stdout.contains("same read"), "no marker merged: \(result.stdout)")
        #expect(result.stdout.contains("files=0 left=0"), "output kept on disk: \(result.stdout)")
        let peak = result.stdout.firstMatch(of: /peak=(\d+)/).flatMap { Int($0.1) } ?? .max
        #expect(peak < 64_000, "the soak's peak resident memory, KiB, with 336 MiB printed: \(result.stdout)")
    }
}
