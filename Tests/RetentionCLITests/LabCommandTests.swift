import Foundation
import SystemIO
import Testing
import RetentionTestSupport

/// `run`, `compare` and `strategies`, run as a user runs them, on a small scenario.
@Suite("retention run / compare / strategies")
struct LabCommandTests {
    /// A small scenario beside the committed images: 12 rows of 600x400 photos.
    static func smallScenario(_ dir: String, extra: String = "",
                              script: String = #"{"scroll":{"by":2400,"frames":40}}"#, name: String = "small") throws -> String {
        let path = dir + "/\(name).json"
        let images = CLIRunner.packageRoot + "/assets/images"
        try """
        {"name":"\(name)","viewport":{"width":390,"height":844,"scale":3},"container":{"kind":"list","prefetchRows":1},
         "rows":{"count":12,"height":300},"images":{"directory":"\(images)","pattern":"photo-600x400-*.png"}\(extra),
         "script":[\(script),{"checkpoint":{"name":"all-loaded"}},{"destroyContainer":{}}]}
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("run --json prints the documented fields")
    func runJSON() async throws {
        let dir = try CLIRunner.temporaryDirectory("run")
        defer { try? FileIO.removeTree(dir) }
        let result = try await CLIRunner.run(["run", try Self.smallScenario(dir), "--strategy", "swiftui-image-state", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        for key in ["schemaVersion", "strategy", "scenario", "checkpoints", "peakResidentBytes", "peakLogicalBytes", "decodes",
                    "decodeSeconds", "frames", "frameWork", "hitches", "placeholderFrames", "timeline"] {
            #expect(object[key] != nil, "missing \(key)")
        }
        let checkpoints = try #require(object["checkpoints"] as? [[String: Any]])
        #expect(checkpoints.map { $0["name"] as? String } == ["startup", "all-loaded", "end", "after-destroy", "after-trim"])
        for key in ["name", "residentBytes", "logicalBytes", "decodedBytes", "thumbnailBytes", "compressedBytes", "poolBytes",
                    "rowStateBytes", "heapInUseBytes", "heapFreeHeldBytes"] {
            #expect(checkpoints[0][key] != nil, "checkpoint missing \(key)")
        }
        // Image state keeps every row it decoded until the container goes: 12 rows of 960,000 bytes at most.
        let loaded = checkpoints[1]["decodedBytes"] as? Int ?? 0
        #expect(loaded >= 8 * 960_000 && loaded <= 12 * 960_000)
        #expect(checkpoints[3]["decodedBytes"] as? Int == 0)
    }

    @Test("compare runs each strategy in a child, prints the table and writes CSV and JSON")
    func compare() async throws {
        let dir = try CLIRunner.temporaryDirectory("compare")
        defer { try? FileIO.removeTree(dir) }
        let result = try await CLIRunner.run(["compare", try Self.smallScenario(dir), "--strategies", "decoded-release,swiftui-image-state",
                                        "--repeat", "2", "--export-csv", dir + "/out.csv", "--export-json", dir + "/out.json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("decoded-release"))
        #expect(result.stdout.contains("lowest peak: "))
        #expect(result.stdout.contains("fewest hitches: "))
        let csv = try String(contentsOfFile: dir + "/out.csv", encoding: .utf8).split(separator: "\n")
        #expect(csv.count == 5)
        #expect(csv[0].hasPrefix("strategy,repeat,status,"))
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/out.json"))) as? [String: Any]
        #expect((json?["runs"] as? [Any])?.count == 4)
    }

    @Test("bad inputs: unknown strategy, missing images, bad scenario, bad flags — one line, exit 1 or 64")
    func badInputs() async throws {
        let dir = try CLIRunner.temporaryDirectory("badlab")
        defer { try? FileIO.removeTree(dir) }
        let scenario = try Self.smallScenario(dir)
        let unknown = try await CLIRunner.run(["run", scenario, "--strategy", "keep-everything"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "Error: unknown strategy 'keep-everything' (known: swiftui-image-state, swiftui-data-state, decoded-release, decoded-lru, tiered, decoded-row-kept, thumbnail-lru, decoded-release+disk, decoded-lru+disk, thumbnail-disk)\n")
        let noImages = dir + "/noimages.json"
        try #"{"name":"n","viewport":{"width":390,"height":844,"scale":3},"container":{"kind":"list"},"rows":{"count":3,"height":300},"images":{"directory":"empty"},"script":[]}"#
            .write(toFile: noImages, atomically: true, encoding: .utf8)
        try FileIO.createDirectories(dir + "/empty")
        let missing = try await CLIRunner.run(["compare", noImages])
        #expect(missing.status == 1)
        #expect(missing.stderr == "Error: images: no file in \(dir)/empty matches \"*.png\"\n")
        let badStrategies = try await CLIRunner.run(["compare", scenario, "--strategies", "tiered,nope"])
        #expect(badStrategies.status == 1 && badStrategies.stderr.hasPrefix("Error: unknown strategy 'nope'"))
        let empty = try await CLIRunner.run(["compare", scenario, "--strategies", ""])
        #expect(empty.status == 64 && empty.stderr.contains("--strategies: expected comma-separated strategy names, got ''"))
        let twice = try await CLIRunner.run(["compare", scenario, "--strategies", "tiered,tiered"])
        #expect(twice.status == 64 && twice.stderr.contains("--strategies names a strategy twice: 'tiered,tiered'"))
        let badRepeat = try await CLIRunner.run(["compare", scenario, "--repeat", "0"])
        #expect(badRepeat.status == 64 && badRepeat.stderr.contains("--repeat must be at least 1, got 0"))
        let nanTimeout = try await CLIRunner.run(["compare", scenario, "--timeout", "nan"])
        #expect(nanTimeout.status == 64 && nanTimeout.stderr.contains("--timeout must be a number of seconds from 0 to 86400, got nan"))
        let badSpeed = try await CLIRunner.run(["compare", scenario, "--decode-speed", "0"])
        #expect(badSpeed.status == 64 && badSpeed.stderr.contains("--decode-speed must be a number from 0.01 to 100, got 0.0"))
        let badSetting = try await CLIRunner.run(["run", scenario, "--strategy", "tiered", "--set", "prefetchRows=8MB"])
        #expect(badSetting.status == 64 && badSetting.stderr.hasPrefix("Error: The value 'prefetchRows=8MB' is invalid for '--set <key=value>': prefetchRows: expected a whole number, got '8MB'\n"), "\(badSetting.stderr)")
        let speedWithoutTable = try await CLIRunner.run(["run", scenario, "--strategy", "tiered", "--decode-speed", "2"])
        #expect(speedWithoutTable.status == 64 && speedWithoutTable.stderr.contains("--decode-speed scales a cost table; give one with --costs"))
        let noTable = try await CLIRunner.run(["run", scenario, "--strategy", "tiered", "--costs", dir + "/absent.json"])
        #expect(noTable.status == 1 && noTable.stderr == "Error: --costs: cannot read \(dir)/absent.json: No such file or directory\n")
    }

    @Test("seed-image-vs-data: resident growth tracks the cache's logical growth within 15%, and returns after destroy and trim")
    func residentTracksReality() async throws {
        let scenario = CLIRunner.packageRoot + "/assets/scenarios/seed-image-vs-data.json"
        let result = try await CLIRunner.run(["run", scenario, "--strategy", "swiftui-image-state", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let checkpoints = try #require(object["checkpoints"] as? [[String: Any]])
        func value(_ name: String, _ key: String) -> Int { checkpoints.first { $0["name"] as? String == name }?[key] as? Int ?? -1 }
        let residentGrowth = value("all-loaded", "residentBytes") - value("startup", "residentBytes")
        let logicalGrowth = value("all-loaded", "logicalBytes") - value("startup", "logicalBytes")
        #expect(logicalGrowth > 300_000_000, "100 rows of 1200x900 decoded: \(logicalGrowth)")
        #expect(abs(Double(residentGrowth - logicalGrowth)) <= 0.15 * Double(logicalGrowth), "resident +\(residentGrowth) vs logical +\(logicalGrowth)")
        #expect(value("after-trim", "residentBytes") - value("startup", "residentBytes") <= 32_000_000)
    }

    @Test("a child that times out is reported, the others go on, and the exit status is 1")
    func childTimeout() async throws {
        let dir = try CLIRunner.temporaryDirectory("timeout")
        defer { try? FileIO.removeTree(dir) }
        let scenario = try Self.smallScenario(dir)
        let calibration = try await CLIRunner.run(["compare", scenario, "--strategies", "decoded-lru", "--timeout", "0.001"])
        #expect(calibration.status == 1)
        // --timeout is a budget of CPU time; 10 × it on the wall clock ends a child all the same.
        let reasons = ["used more than 0.001 s of CPU time (--timeout), killed", "timed out after 0.01 s on the wall clock (10 × --timeout)"]
        // Besides the cost table's progress line, one line: the error.
        let errors = calibration.stderr.split(separator: "\n").filter { !$0.hasPrefix("progress: [costs 1/3] measuring the cost table") }
        #expect(reasons.contains { errors == ["Error: measuring the cost table \($0)"] }, "\(calibration.stderr)")
        let costs = try await CLIRunner.run(["costs", scenario, "-o", dir + "/costs.json", "--strategies", "decoded-lru,tiered"])
        #expect(costs.status == 0, "\(costs.stderr)")
        let result = try await CLIRunner.run(["compare", scenario, "--strategies", "decoded-lru,tiered", "--repeat", "1",
                                        "--timeout", "0.001", "--export-csv", dir + "/out.csv", "--costs", dir + "/costs.json"])
        #expect(result.status == 1)
        #expect(reasons.contains { result.stderr.contains("decoded-lru (repeat 1): \($0)") }, "\(result.stderr)")
        #expect(reasons.contains { result.stderr.contains("tiered (repeat 1): \($0)") }, "\(result.stderr)")
        #expect(result.stdout.contains("failed (1 run)"))
        let csv = try String(contentsOfFile: dir + "/out.csv", encoding: .utf8).split(separator: "\n")
        // Two children at once by default: the lines come in the order the runs ended.
        #expect(csv.count == 3 && csv.dropFirst().map { String($0.prefix(while: { $0 != "," })) }.sorted() == ["decoded-lru", "tiered"])
        #expect(csv.dropFirst().allSatisfy { $0.contains(",1,failed,") }, "\(csv)")
    }

    @Test("a corrupt image in a row is counted and reported: run measures and exits 1, soak's verdict stays on memory")
    func corruptRowImage() async throws {
        let dir = try CLIRunner.temporaryDirectory("corrupt")
        defer { try? FileIO.removeTree(dir) }
        try FileIO.createDirectories(dir + "/images")
        try TestPaths.copyFile(CLIRunner.packageRoot + "/assets/images/photo-600x400-01.png", to: dir + "/images/a.png")
        try Data("not a png at all".utf8).write(to: URL(fileURLWithPath: dir + "/images/b.png"))
        let scenario = dir + "/s.json"
        try #"{"name":"c","viewport":{"width":390,"height":844,"scale":3},"container":{"kind":"list","prefetchRows":0},"rows":{"count":6,"height":300},"images":{"directory":"images"},"script":[{"scroll":{"by":900,"frames":20}},{"destroyContainer":{}}]}"#
            .write(toFile: scenario, atomically: true, encoding: .utf8)
        let run = try await CLIRunner.run(["run", scenario, "--strategy", "decoded-release", "--json"])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.hasPrefix("Error: ") && run.stderr.contains(" failed (rows showed placeholders); first: row "), "\(run.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        #expect((object?["failedDecodes"] as? Int ?? 0) >= 1)
        #expect((object?["placeholderFrames"] as? Int ?? 0) >= 1)
        let soak = try await CLIRunner.run(["soak", scenario, "--strategy", "decoded-release", "--iterations", "6", "--warmup", "2"])
        // The verdict is on memory (PASS, or INCONCLUSIVE over six short iterations), never a
        // failed run (2) for images that do not decode.
        #expect([0, 3].contains(soak.status), "\(soak.stdout)\(soak.stderr)")
        #expect(soak.stdout.contains("failed decodes "))
        #expect(!soak.stdout.contains("failed decodes 0"))
    }

    @Test("strategies lists every preset with what it models")
    func strategies() async throws {
        let result = try await CLIRunner.run(["strategies"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n")
        // TextTable's header and dash rule, as wide as the longest name and summary.
        #expect(lines.first == "strategy              summary")
        #expect(lines.count > 2 && lines[1].hasPrefix("--------------------  --") && lines[1].count == lines.map(\.count).max())
        #expect(!result.stdout.contains(" \n"), "no line ends in spaces")
        let names = lines.dropFirst(2).map { $0.split(separator: " ")[0] }
        #expect(names == ["swiftui-image-state", "swiftui-data-state", "decoded-release", "decoded-lru", "tiered", "decoded-row-kept", "thumbnail-lru",
                          "decoded-release+disk", "decoded-lru+disk", "thumbnail-disk"])
        #expect(lines.contains { $0.hasPrefix("thumbnail-disk        256px thumbnail while visible, released on disappear; thumbnails on disk as PNG") })
        let dir = try CLIRunner.temporaryDirectory("strategies")
        defer { try? FileIO.removeTree(dir) }
        let scenario = try Self.smallScenario(dir, extra: #","strategies":["tiered",{"name":"small-lru","base":"decoded-lru","decodedBudget":"8MB"}]"#)
        let custom = try await CLIRunner.run(["strategies", scenario])
        #expect(custom.status == 0)
        #expect(custom.stdout.split(separator: "\n").last?.hasPrefix("small-lru             custom: {") == true)
        #expect(custom.stdout.contains(#""decodedBudget":"8MB""#))
    }
}

/// A comparison's children never outlive it.
@Suite("retention compare and its children")
struct CompareChildrenTests {
    /// Pids whose parent is `pid`, from /proc/*/stat.
    static func children(of pid: Int32) -> [Int32] {
        CLIRunner.processes().filter { $0.parent == pid }.map(\.pid)
    }

    static func alive(_ pid: Int32) -> Bool {
        // Gone, or a zombie (dead; only its parent has not reaped it yet).
        guard let stat = try? FileIO.readAll("/proc/\(pid)/stat", limit: 4096) else { return false }
        return !String(decoding: stat, as: UTF8.self).contains(") Z ")
    }

    /// Starts a long comparison (temporary files in `tmp`) and returns it with the pid of its
    /// first `retention run` child.
    static func startWithChild(tmp: String) throws -> (ChildProcess.Running, Int32) {
        var child = ChildProcess(executable: CLIRunner.executable,
                                 arguments: ["compare", CLIRunner.packageRoot + "/assets/scenarios/infinite-feed.json", "--repeat", "3"],
                                 timeoutSeconds: 600, environment: ["TMPDIR": tmp])
        child.standardOutput = .file("/dev/null")
        child.standardError = .file("/dev/null")
        let process = try child.start()
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            // The first child measures the cost table; wait for a run child after it.
            for child in children(of: process.processID) {
                let cmdline = (try? FileIO.readAll("/proc/\(child)/cmdline", limit: 1 << 16)) ?? Data()
                if String(decoding: cmdline, as: UTF8.self).contains("run\u{0}") { return (process, child) }
            }
            usleep(50_000)
        }
        process.signal(SIGTERM)
        throw CocoaError(.fileReadUnknown)
    }

    @Test("SIGTERM stops the running child and ends with status 143; SIGKILL of the parent kills the child too")
    func childrenDieWithParent() throws {
        // Its own TMPDIR: the cost table's temporary file, which a SIGKILL leaves behind.
        let tmp = try CLIRunner.temporaryDirectory("die-with-parent")
        defer { try? FileIO.removeTree(tmp) }
        let (compare, child) = try Self.startWithChild(tmp: tmp)
        compare.signal(SIGTERM)
        #expect(compare.wait().exitStatus == 143)
        #expect(!Self.alive(child), "the run child \(child) outlived compare")
        #expect(try FileIO.directoryEntries(tmp) == [], "SIGTERM removed the temporary cost table")

        let (second, orphan) = try Self.startWithChild(tmp: tmp)
        second.signal(SIGKILL)
        _ = second.wait()
        var gone = false
        for _ in 0..<40 where !gone {
            gone = !Self.alive(orphan)
            if !gone { usleep(50_000) }
        }
        #expect(gone, "the run child \(orphan) outlived a killed compare")
    }

    @Test("the test runner's timeout kills compare and every process it started: the child's process group")
    func runnerTimeoutKillsTheGroup() async throws {
        let dir = try CLIRunner.temporaryDirectory("runner-group")
        defer { try? FileIO.removeTree(dir) }
        let scenario = CLIRunner.packageRoot + "/assets/scenarios/infinite-feed.json"
        // A saved cost table: compare goes straight to its runs (each several seconds) and
        // leaves no temporary table behind when it is killed.
        let costs = try await CLIRunner.run(["costs", scenario, "-o", dir + "/costs.json", "--strategies", "decoded-lru"])
        #expect(costs.status == 0, "\(costs.stderr)")
        let result = try await CLIRunner.run(["compare", scenario, "--strategies", "decoded-lru", "--repeat", "3", "--costs", dir + "/costs.json"], timeout: 2)
        #expect(result.status == -9 && result.stderr.hasPrefix("timed out after 2.0 s"), "\(result.stderr)")
        #expect(CLIRunner.groupIsGone(result.processGroup), "still running: \(CLIRunner.liveMembers(of: result.processGroup))")
    }
}
