import Foundation
import Glibc
import SystemIO
import Testing
import RetentionTestSupport

/// Hostile use the tool refuses or survives: outputs that are inputs, numbers that trap,
/// reports that grow, loops that never end, signals that do not stop, descriptors and address
/// space that run out. Each test runs the built tool as a user does and checks the exit status
/// and the message.
@Suite("Limits and refusals: outputs that are inputs, traps, unbounded reports and loops, signals, exhausted resources")
struct LimitsAndRefusalsCommandTests {
    /// A copy of the default scenario in `dir`, its images named absolutely. Returns its path.
    static func scenario(in dir: String, name: String = "s.json") throws -> String {
        let path = dir + "/" + name
        let text = try String(contentsOfFile: CLIRunner.packageRoot + "/assets/scenarios/default.json", encoding: .utf8)
            .replacingOccurrences(of: "\"../images\"", with: "\"\(CLIRunner.packageRoot)/assets/images\"")
            .replacingOccurrences(of: "\"count\": 150", with: "\"count\": 12")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func refusal(_ flag: String, _ output: String, is role: String, _ input: String) -> String {
        "Error: \(flag) \(output) is \(role) (\(input)), which this command reads; writing it would destroy it, so nothing was run; choose another file\n"
    }

    @Test("an export that is an input is refused with exit 64 before anything runs, and the input is untouched")
    func exportsOntoInputs() async throws {
        let dir = try CLIRunner.temporaryDirectory("onto-inputs")
        defer { try? FileIO.removeTree(dir) }
        let scenario = try Self.scenario(in: dir)
        let original = try String(contentsOfFile: scenario, encoding: .utf8)
        let cases: [([String], String, String)] = [
            (["compare", scenario, "--repeat", "1", "--export-json", scenario], "--export-json", "the scenario"),
            (["compare", scenario, "--repeat", "1", "--export-csv", scenario], "--export-csv", "the scenario"),
            (["sweep", scenario, "--repeat", "1", "--values", "8MB", "--export-json", scenario], "--export-json", "the scenario"),
            (["costs", scenario, "-o", scenario], "-o", "the scenario"),
        ]
        for (arguments, flag, role) in cases {
            let result = try await CLIRunner.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix(Self.refusal(flag, scenario, is: role, scenario)), "\(arguments): \(result.stderr)")
            #expect(try String(contentsOfFile: scenario, encoding: .utf8) == original)
        }
        // The cost table given with --costs, and an image of the scenario.
        let costs = dir + "/c.json"
        let measured = try await CLIRunner.run(["costs", scenario, "-o", costs])
        #expect(measured.status == 0, "\(measured.stderr)")
        let table = try String(contentsOfFile: costs, encoding: .utf8)
        let onCosts = try await CLIRunner.run(["compare", scenario, "--repeat", "1", "--costs", costs, "--export-json", costs])
        #expect(onCosts.status == 64 && onCosts.stderr.hasPrefix(Self.refusal("--export-json", costs, is: "the cost table", costs)), "\(onCosts.stderr)")
        #expect(try String(contentsOfFile: costs, encoding: .utf8) == table)
        let image = CLIRunner.packageRoot + "/assets/images/photo-600x400-01.png"
        let onImage = try await CLIRunner.run(["compare", scenario, "--repeat", "1", "--costs", costs, "--export-csv", image])
        #expect(onImage.status == 64 && onImage.stderr.contains("is an image of the scenario"), "\(onImage.stderr)")
        // Two exports on one file.
        let both = try await CLIRunner.run(["compare", scenario, "--repeat", "1", "--costs", costs, "--export-json", dir + "/o", "--export-csv", dir + "/o"])
        #expect(both.status == 64 && both.stderr.hasPrefix("Error: --export-json and --export-csv both name \(dir)/o; give each output its own file"), "\(both.stderr)")
    }

    @Test("an export onto the scenario's own trace is refused")
    func exportOntoTrace() async throws {
        let dir = try CLIRunner.temporaryDirectory("onto-trace")
        defer { try? FileIO.removeTree(dir) }
        try TestPaths.copyFile(CLIRunner.packageRoot + "/assets/traces/sample-session.jsonl", to: dir + "/t.jsonl")
        let scenario = dir + "/t.json"
        try #"{"name": "t", "trace": "t.jsonl", "images": {"directory": "\#(CLIRunner.packageRoot)/assets/images", "pattern": "photo-600x400-*.png"}}"#
            .write(toFile: scenario, atomically: true, encoding: .utf8)
        let trace = dir + "/t.jsonl"
        let before = try Data(contentsOf: URL(fileURLWithPath: trace))
        let result = try await CLIRunner.run(["soak", scenario, "--strategy", "decoded-lru", "--iterations", "3", "--export-csv", trace])
        #expect(result.status == 64 && result.stderr.hasPrefix(Self.refusal("--export-csv", trace, is: "the scenario's trace", trace)), "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: trace)) == before)
    }

    @Test("when nothing is measured, earlier exports stay as they were")
    func earlierResultsKept() async throws {
        let dir = try CLIRunner.temporaryDirectory("kept")
        defer { try? FileIO.removeTree(dir) }
        let scenario = try Self.scenario(in: dir)
        try "old json".write(toFile: dir + "/r.json", atomically: true, encoding: .utf8)
        try "old,csv\n".write(toFile: dir + "/r.csv", atomically: true, encoding: .utf8)
        let result = try await CLIRunner.run(["compare", scenario, "--timeout", "0.000001", "--export-json", dir + "/r.json", "--export-csv", dir + "/r.csv"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(try String(contentsOfFile: dir + "/r.json", encoding: .utf8) == "old json")
        #expect(try String(contentsOfFile: dir + "/r.csv", encoding: .utf8) == "old,csv\n")
        #expect(try FileIO.directoryEntries(dir).sorted() == ["r.csv", "r.json", "s.json"], "no temporary file left")
    }

    @Test("merge: slice counts out of range, duplicated runs, negative figures and truncated JSON are one line each, exit 64")
    func mergeTrustsNothing() async throws {
        let dir = try CLIRunner.temporaryDirectory("merge-hostile")
        defer { try? FileIO.removeTree(dir) }
        let scenario = try Self.scenario(in: dir)
        let costs = dir + "/c.json"
        _ = try await CLIRunner.run(["costs", scenario, "-o", costs, "--strategies", "decoded-lru"])
        let slice = dir + "/slice.json"
        let made = try await CLIRunner.run(["compare", scenario, "--strategies", "decoded-lru", "--repeat", "2", "--shard", "1/2",
                                            "--costs", costs, "--export-json", slice])
        #expect(made.status == 0, "\(made.stderr)")
        let text = try String(contentsOfFile: slice, encoding: .utf8)
        func variant(_ name: String, _ edit: (String) -> String) throws -> String {
            let path = dir + "/" + name
            try edit(text).write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        let huge = try variant("huge.json") { $0.replacingOccurrences(of: "\"count\" : 2", with: "\"count\" : 100000000") }
        let maxed = try variant("maxed.json") { $0.replacingOccurrences(of: "\"count\" : 2", with: "\"count\" : 9223372036854775807") }
        let zero = try variant("zero.json") { $0.replacingOccurrences(of: "\"index\" : 1", with: "\"index\" : 0") }
        let negative = try variant("negative.json") { $0.replacingOccurrences(of: "\"decodes\" : ", with: "\"decodes\" : -") }
        let truncated = try variant("truncated.json") { String($0.prefix($0.count / 2)) }
        for (path, expected) in [(huge, "shard: expected a slice K/N with 1 ≤ K ≤ N ≤ 10000 (found 1/100000000)"),
                                 (maxed, "shard.count: "), (zero, "shard: expected a slice K/N with 1 ≤ K ≤ N ≤ 10000 (found 0/2)"),
                                 (negative, "report.decodes is negative"), (truncated, "malformed JSON at line ")] {
            let result = try await CLIRunner.run(["merge", path])
            #expect(result.status == 64, "\(path): \(result.stderr)")
            #expect(result.stderr.hasPrefix("Error: \(path)") && result.stderr.contains(expected), "\(path): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").first.map { $0.count < 400 } == true)
        }
        let twice = try await CLIRunner.run(["merge", slice, slice])
        #expect(twice.status == 64, "\(twice.stderr)")
        let onto = try await CLIRunner.run(["merge", slice, "--export-json", slice])
        #expect(onto.status == 64 && onto.stderr.hasPrefix(Self.refusal("--export-json", slice, is: "a slice being merged", slice)), "\(onto.stderr)")
    }

    @Test("cost tables: figures out of range are one line naming the JSON path, never a trap")
    func costNumbers() async throws {
        let dir = try CLIRunner.temporaryDirectory("cost-numbers")
        defer { try? FileIO.removeTree(dir) }
        let scenario = try Self.scenario(in: dir)
        let costs = dir + "/c.json"
        _ = try await CLIRunner.run(["costs", scenario, "-o", costs, "--strategies", "decoded-lru"])
        let text = try String(contentsOfFile: costs, encoding: .utf8)
        for (value, found) in [("1e308", "1e+308"), ("-1e300", "-1e+300"), ("-5", "-5"), ("1e16", "1e+16")] {
            let bad = dir + "/bad.json"
            try text.replacingOccurrences(of: #"("decodeMs" : )[0-9.e+-]+"#, with: "$1\(value)", options: .regularExpression)
                .write(toFile: bad, atomically: true, encoding: .utf8)
            let result = try await CLIRunner.run(["run", scenario, "--strategy", "decoded-lru", "--costs", bad, "--decode-speed", "0.01"])
            #expect(result.status == 1, "\(value): \(result.stderr)")
            #expect(result.stderr == "Error: --costs: \(bad): images[0].decodeMs: expected a number of milliseconds from 0 to 60000, found \(found)\n", "\(value): \(result.stderr)")
        }
        let duplicate = dir + "/dup.json"
        try text.replacingOccurrences(of: "\"repeats\" : 5,", with: "\"repeats\" : 5, \"repeats\" : 5,").write(toFile: duplicate, atomically: true, encoding: .utf8)
        let dup = try await CLIRunner.run(["run", scenario, "--strategy", "decoded-lru", "--costs", duplicate])
        #expect(dup.status == 1 && dup.stderr.contains("duplicate key \"repeats\""), "\(dup.stderr)")
    }

    @Test("repeats of steps that take no frame are refused, not run for ever")
    func zeroFrameRepeats() async throws {
        let dir = try CLIRunner.temporaryDirectory("zero-frames")
        defer { try? FileIO.removeTree(dir) }
        for (name, script) in [("empty", #"[{"repeat": {"times": 9000000000000000000, "steps": []}}]"#),
                               ("checkpoints", #"[{"repeat": {"times": 1000000000, "steps": [{"checkpoint": {"name": "c"}}]}}]"#)] {
            let path = dir + "/\(name).json"
            try #"{"viewport": {"width": 390, "height": 844, "scale": 3}, "container": {"kind": "list"}, "rows": {"count": 10, "height": 100}, "images": {"directory": "\#(CLIRunner.packageRoot)/assets/images"}, "script": \#(script)}"#
                .write(toFile: path, atomically: true, encoding: .utf8)
            for command in [["simulate", path], ["run", path, "--strategy", "decoded-lru"]] {
                let result = try await CLIRunner.run(command, timeout: 30)
                #expect(result.status == 1, "\(command): \(result.stderr)")
                #expect(result.stderr.hasPrefix("Error: script: the script "), "\(command): \(result.stderr)")
            }
        }
    }

    /// Waits until a thread of process `pid` sleeps opening a FIFO nobody reads (the kernel's
    /// `wait_for_partner` in `/proc/PID/task/TID/wchan`, or an older kernel's name for it), at
    /// most 60 s. A thread that runs, or waits for the CPU on a loaded host, shows `0`; where
    /// /proc hides where threads sleep (a sleeping thread, state `S`, whose wchan is `0`, and no
    /// thread ever named), it waits 4 s, as this test used to.
    static func waitUntilBlockedOnFIFO(_ pid: Int32) async throws {
        func contents(_ path: String) -> String? {
            (try? FileIO.readAll(path, limit: 4096)).map { String(decoding: $0, as: UTF8.self) }
        }
        let clock = ContinuousClock()
        let start = clock.now
        var named = false, hidden = false
        while clock.now - start < .seconds(60) {
            for task in (try? FileIO.directoryEntries("/proc/\(pid)/task")) ?? [] {
                guard let wchan = contents("/proc/\(pid)/task/\(task)/wchan") else { continue }
                if ["wait_for_partner", "fifo_open", "pipe_wait"].contains(wchan) { return }  // older kernels name the callers
                if !wchan.isEmpty && wchan != "0" {
                    named = true
                } else if let stat = contents("/proc/\(pid)/task/\(task)/stat"), let close = stat.lastIndex(of: ")"),
                          stat[close...].dropFirst(2).first == "S" {
                    hidden = true
                }
            }
            if hidden && !named && clock.now - start >= .seconds(4) { return }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test("SIGTERM ends compare and soak promptly even while they wait on a FIFO nobody reads: 143")
    func signalsWhileBlocked() async throws {
        let dir = try CLIRunner.temporaryDirectory("blocked")
        defer { try? FileIO.removeTree(dir) }
        let scenario = try Self.scenario(in: dir)
        let costs = dir + "/c.json"
        _ = try await CLIRunner.run(["costs", scenario, "-o", costs, "--strategies", "decoded-lru"])
        let fifo = dir + "/fifo"
        try FileIO.makeFIFO(fifo)
        for arguments in [["compare", scenario, "--strategies", "decoded-lru", "--repeat", "1", "--costs", costs, "--export-json", fifo],
                          ["soak", scenario, "--strategy", "decoded-lru", "--iterations", "3", "--warmup", "0", "--export-csv", fifo]] {
            var child = ChildProcess(executable: CLIRunner.executable, arguments: arguments, timeoutSeconds: 120)
            child.standardOutput = .file("/dev/null")
            child.standardError = .file("/dev/null")
            let running = try child.start()
            // Until the run has finished and blocks opening the FIFO: a fixed 4 s was too short
            // on a loaded host, where soak then got SIGTERM mid-run and ended with its verdict.
            try await Self.waitUntilBlockedOnFIFO(running.processID)
            let start = Date()
            running.signal(SIGTERM)
            let ended: Bool = await withCheckedContinuation { continuation in
                Thread {
                    let deadline = Date().addingTimeInterval(20)
                    while !running.hasExited && Date() < deadline { usleep(20_000) }
                    continuation.resume(returning: running.hasExited)
                }.start()
            }
            if !ended { running.signal(SIGKILL) }
            let outcome = await CLIRunner.wait(for: running)
            #expect(ended, "\(arguments[0]) is still running 20 s after SIGTERM")
            #expect(Date().timeIntervalSince(start) < 15)
            #expect(outcome.exitStatus == 143, "\(arguments[0]): \(outcome)")
        }
    }

    @Test("--help and --version into a full device fail with one line, exit 1")
    func helpIntoFullDevice() async throws {
        for flag in ["--help", "--version"] {
            let result = try await CLIRunner.shell("\"$R\" \(flag) > /dev/full")
            #expect(result.status == 1, "\(flag): \(result.stderr)")
            #expect(result.stderr == "Error: cannot write to standard output: No space left on device\n", "\(flag): \(result.stderr)")
        }
    }

    @Test("a strategy name with a comma or a line break is refused at validation with its JSON path")
    func strategyNames() async throws {
        let dir = try CLIRunner.temporaryDirectory("names")
        defer { try? FileIO.removeTree(dir) }
        let path = dir + "/n.json"
        try #"{"viewport": {"width": 390, "height": 844, "scale": 3}, "container": {"kind": "list"}, "rows": {"count": 10, "height": 100}, "strategies": ["tiered", {"name": "lru, 16MB", "base": "decoded-lru"}]}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        let result = try await CLIRunner.run(["strategies", path])
        #expect(result.status == 1)
        #expect(result.stderr == "Error: strategies[1].name: expected a policy name: 1 to 64 letters, digits, '-', '_', '.' or '+', found \"lru, 16MB\"\n", "\(result.stderr)")
    }

    @Test("too few file descriptors and too little address space are one line each, never a trap")
    func resourceLimits() async throws {
        let scenario = CLIRunner.packageRoot + "/assets/scenarios/default.json"
        let dir = try CLIRunner.temporaryDirectory("ulimits")
        defer { try? FileIO.removeTree(dir) }
        // `exec` and no redirection: the shell then needs no descriptor of its own (dash saves
        // redirected ones above 9).
        for command in ["run '\(scenario)' --strategy decoded-lru", "soak '\(scenario)' --strategy decoded-lru --iterations 3", "sweep --values 8MB --repeat 1"] {
            let result = try await CLIRunner.shell("ulimit -n 4; exec \"$R\" \(command)")
            #expect(result.status == (command.hasPrefix("soak") ? 2 : 1), "\(command): \(result.stderr)")
            #expect(result.stderr.contains("open files, but ulimit -n allows 4; raise it (ulimit -n "), "\(command): \(result.stderr)")
        }
        let vstack = dir + "/v.json"
        try #"{"viewport": {"width": 390, "height": 844, "scale": 3}, "container": {"kind": "vStack"}, "rows": {"count": 20000, "height": 100}, "images": {"directory": "\#(CLIRunner.packageRoot)/assets/images", "pattern": "photo-600x400-*.png"}, "script": [{"scroll": {"by": 600, "frames": 10}}, {"destroyContainer": {}}]}"#
            .write(toFile: vstack, atomically: true, encoding: .utf8)
        let result = try await CLIRunner.shell("ulimit -v 400000; exec \"$R\" run '\(vstack)' --strategy decoded-lru", timeout: 120)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: resident memory reached ") && result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }

    @Test("reports stay bounded: too many checkpoints or timeline samples are refused up front")
    func boundedReports() async throws {
        let dir = try CLIRunner.temporaryDirectory("bounded")
        defer { try? FileIO.removeTree(dir) }
        let path = dir + "/c.json"
        try #"{"viewport": {"width": 390, "height": 844, "scale": 3}, "container": {"kind": "list"}, "rows": {"count": 10, "height": 100}, "images": {"directory": "\#(CLIRunner.packageRoot)/assets/images"}, "script": [{"repeat": {"times": 2000, "steps": [{"pause": {"frames": 1}}, {"checkpoint": {"name": "c"}}]}}]}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        let checkpoints = try await CLIRunner.run(["run", path, "--strategy", "decoded-lru"])
        #expect(checkpoints.status == 1 && checkpoints.stderr == "Error: script: the script records 2000 checkpoints, over the limit of 1000 (each is a line of every report)\n", "\(checkpoints.stderr)")
        let long = dir + "/l.json"
        try #"{"viewport": {"width": 390, "height": 844, "scale": 3}, "container": {"kind": "list"}, "rows": {"count": 10, "height": 100}, "images": {"directory": "\#(CLIRunner.packageRoot)/assets/images"}, "script": [{"pause": {"frames": 1000000}}]}"#
            .write(toFile: long, atomically: true, encoding: .utf8)
        let timeline = try await CLIRunner.run(["run", long, "--strategy", "decoded-lru", "--timeline-every", "1"])
        #expect(timeline.status == 64 && timeline.stderr.hasPrefix("Error: --timeline-every 1 would keep 1000000 samples of this run's 1000000 frames, over the limit of 100000; give --timeline-every 10 or more"), "\(timeline.stderr)")
    }

    @Test("an interlaced PNG bigger than --max-resident is skipped with its reason; the batch goes on")
    func interlacedThumbnail() async throws {
        let dir = try CLIRunner.temporaryDirectory("interlaced")
        defer { try? FileIO.removeTree(dir) }
        let suite = CLIRunner.packageRoot + "/Tests/Fixtures/pngsuite"
        let interlaced = try FileIO.directoryEntries(suite).filter { $0.hasPrefix("basi") && $0.hasSuffix(".png") }.sorted().first
        let input = try #require(interlaced.map { suite + "/" + $0 })
        try TestPaths.copyFile(input, to: dir + "/i.png")
        try TestPaths.copyFile(CLIRunner.packageRoot + "/assets/images/photo-600x400-01.png", to: dir + "/p.png")
        let result = try await CLIRunner.run(["thumbnail", dir + "/i.png", dir + "/p.png", "-o", dir + "/out", "--max-resident", "1KB"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("\(dir)/i.png: invalid argument: an interlaced 32x32 PNG cannot stream and decodes whole to 0.0 MB, over --max-resident 0.0 MB; skipped"), "\(result.stderr)")
        #expect(FileIO.exists(dir + "/out/p.png"))
    }
}
