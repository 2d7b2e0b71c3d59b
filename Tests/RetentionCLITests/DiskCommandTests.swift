import Foundation
import Testing
import SystemIO

/// Strategies with a disk tier through the built tool: a comparison's disk columns, the warm
/// sessions' table, a diskBudget sweep, and the one-line errors.
@Suite("retention compare / sweep with a disk tier")
struct DiskCommandTests {
    /// The small scenario scrolled down and back up (rows return), its stores under `dir/stores`.
    static func scenario(_ dir: String, extra: String = "") throws -> String {
        try LabCommandTests.smallScenario(dir, extra: #","diskFolder":"stores""# + extra,
                                          script: #"{"scroll":{"by":2400,"frames":30}},{"scroll":{"by":-2400,"frames":20}}"#, name: "feed")
    }

    @Test("a comparison with a disk strategy shows disk peak, reads and writes, and the note on what resident memory does not count")
    func compareWithDisk() async throws {
        let dir = try CLIRunner.temporaryDirectory("compare-disk")
        defer { try? FileIO.removeTree(dir) }
        let result = try await CLIRunner.run(["compare", try Self.scenario(dir), "--strategies", "decoded-release,decoded-release+disk",
                                              "--repeat", "1", "--jobs", "1", "--export-json", dir + "/out.json", "--export-csv", dir + "/out.csv"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let header = try #require(lines.first { $0.hasPrefix("strategy ") })
        #expect(header.hasSuffix("placeholders  disk peak  disk reads  disk writes  written  writer CPU"))
        let memory = try #require(lines.first { $0.hasPrefix("decoded-release ") })
        #expect(memory.hasSuffix("-           -            -        -           -"))
        let diskLine = try #require(lines.first { $0.hasPrefix("decoded-release+disk ") })
        #expect(diskLine.hasSuffix(" ms"), "the writer's CPU is measured: \(diskLine)")
        #expect(result.stdout.contains("costs: table measured now, 8 images, median decode"))
        #expect(result.stdout.contains(" ms, median disk read "), "the table measured the disk read")
        #expect(result.stdout.contains("the page cache holding them is in no process's RSS, and the runs mapped 0.0 MB of them"))
        #expect(result.stdout.contains("disk latency: a MODEL of 0.00 ms per disk read"))
        #expect(try FileIO.directoryEntries(dir + "/stores/retention-\(Directory.effectiveUserID)").isEmpty, "every run removed its store")
        let export = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/out.json"))) as? [String: Any])
        let rows = try #require((export["summary"] as? [String: Any])?["rows"] as? [[String: Any]])
        #expect(rows[0]["disk"] == nil && rows[0]["sourceReads"] == nil)
        let disk = try #require(rows[1]["disk"] as? [String: Any])
        #expect((disk["writes"] as? Int ?? 0) > 0 && (disk["hits"] as? Int ?? 0) > 0 && disk["mappedResidentBytes"] as? Int == 0)
        // The CSV carries the same disk figures, and leaves them empty for the memory strategy.
        let csv = try String(contentsOfFile: dir + "/out.csv", encoding: .utf8).split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let columns = try #require(csv.first)
        #expect(csv.count == 3 && columns.suffix(14) == ["sourceReads", "diskReads", "diskHits", "diskWrites", "diskWriteFailures",
                                                          "diskCorruptEntries", "diskPeakBytes", "diskMappedResidentBytes", "diskWriteBytes", "diskWriteCPUSeconds",
                                                          "waitP50Frames", "waitP95Frames", "waitMaxFrames", "model"])
        func cell(_ row: Int, _ name: String) -> String { csv[row][columns.firstIndex(of: name)!] }
        #expect(cell(1, "diskHits").isEmpty && cell(1, "sourceReads").isEmpty)
        #expect(cell(2, "diskWrites") == "\(disk["writes"] as? Int ?? -1)" && cell(2, "diskHits") == "\(disk["hits"] as? Int ?? -1)")
        #expect(cell(2, "diskMappedResidentBytes") == "0" && Int(cell(2, "sourceReads")) ?? -1 > 0)
        #expect((Int(cell(2, "diskWriteBytes")) ?? 0) > 0 && (Double(cell(2, "diskWriteCPUSeconds")) ?? 0) > 0 && cell(1, "diskWriteBytes").isEmpty)
    }

    @Test("sessions: 2 prints the cold and the warm session of each strategy")
    func warmStart() async throws {
        let dir = try CLIRunner.temporaryDirectory("compare-warm")
        defer { try? FileIO.removeTree(dir) }
        let result = try await CLIRunner.run(["compare", try Self.scenario(dir, extra: #","sessions":2,"display":"async","sourceLatencyMs":100"#),
                                              "--strategies", "decoded-lru,decoded-lru+disk", "--repeat", "1", "--jobs", "2"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let start = try #require(lines.firstIndex { $0.hasPrefix("sessions: each run made its sessions in one process") })
        #expect(lines[start + 1].hasPrefix("strategy          session  peak  placeholders"))
        let warmDisk = try #require(lines.first { $0.hasPrefix("decoded-lru+disk   2 warm") })
        let coldDisk = try #require(lines.first { $0.hasPrefix("decoded-lru+disk   1 cold") })
        let cells = warmDisk.split(separator: " ").map(String.init), cold = coldDisk.split(separator: " ").map(String.init)
        // Decodes, source reads and disk hits are the last three columns. The warm session reads
        // from the source only the rows the cold one never loaded (how far each session's loads
        // got depends on the measured decode costs): everything else came from the disk.
        let warmDecodes = Int(cells[cells.count - 3]) ?? -1, coldDecodes = Int(cold[cold.count - 3]) ?? -1
        #expect(Int(cells[cells.count - 2]) == max(0, warmDecodes - coldDecodes) && (Int(cells[cells.count - 1]) ?? 0) > 0,
                "the warm session read from the source only what the cold one never stored: \(coldDisk) / \(warmDisk)")
        let warmMemory = try #require(lines.first { $0.hasPrefix("decoded-lru        2 warm") })
        #expect(warmMemory.hasSuffix("-"), "a memory strategy has no disk hits: \(warmMemory)")
    }

    @Test("sweep --vary diskBudget runs each budget as the store's limit")
    func sweepDiskBudget() async throws {
        let dir = try CLIRunner.temporaryDirectory("sweep-disk")
        defer { try? FileIO.removeTree(dir) }
        let result = try await CLIRunner.run(["sweep", try Self.scenario(dir), "--strategies", "decoded-release+disk", "--vary", "diskBudget",
                                              "--values", "1MB,8MB", "--repeat", "1", "--jobs", "2", "--export-json", dir + "/sweep.json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("diskBudget over 1MB, 8MB"))
        let header = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("strategy ") })
        #expect(header.contains("diskBudget") && header.contains("disk peak") && header.contains("writer CPU"))
        #expect(result.stdout.split(separator: "\n").contains { $0.hasPrefix("decoded-release+disk ") && $0.contains(" ms") }, "the writer's CPU per point")
        let points = try SweepCommandTests.points(String(decoding: (try? FileIO.readAll(dir + "/sweep.json")) ?? Data(), as: UTF8.self))
        let small = try #require(points["decoded-release+disk diskBudget=1MB"]?["disk"] as? [String: Any])
        let large = try #require(points["decoded-release+disk diskBudget=8MB"]?["disk"] as? [String: Any])
        #expect((small["peakBytes"] as? Int ?? .max) <= 1_000_000)
        #expect((small["hits"] as? Int ?? .max) < (large["hits"] as? Int ?? 0), "a larger store keeps more rows for their return")
    }

    @Test("bad disk inputs are one line: a diskFolder that is a file, a run with --set diskBudget on a memory strategy")
    func badInputs() async throws {
        let dir = try CLIRunner.temporaryDirectory("disk-bad")
        defer { try? FileIO.removeTree(dir) }
        let scenario = try Self.scenario(dir)
        try "x".write(toFile: dir + "/stores", atomically: true, encoding: .utf8)
        let file = try await CLIRunner.run(["run", scenario, "--strategy", "decoded-lru+disk"])
        #expect(file.status == 1)
        #expect(file.stderr == "Error: diskFolder: \(dir)/stores is a file, not a folder\n", "\(file.stderr)")
        let memory = try await CLIRunner.run(["run", scenario, "--strategy", "decoded-lru", "--set", "diskBudget=8MB"])
        #expect(memory.status == 64)
        #expect(memory.stderr.contains("diskBudget does not apply to decoded-lru: it keeps nothing on disk"), "\(memory.stderr)")
    }

    @Test("a comparison stopped by SIGTERM, or whose children a --timeout kills, leaves no store folder behind")
    func stoppedRunsLeaveNoStore() async throws {
        let dir = try CLIRunner.temporaryDirectory("disk-stopped")
        defer { try? FileIO.removeTree(dir) }
        // Long enough to be caught mid-run: the list scrolled down and up twenty times.
        let script = (0..<20).map { _ in #"{"scroll":{"by":2400,"frames":30}},{"scroll":{"by":-2400,"frames":30}}"# }.joined(separator: ",")
        let scenario = try LabCommandTests.smallScenario(dir, extra: #","diskFolder":"stores","sourceLatencyMs":30"#, script: script, name: "long")
        let costs = try await CLIRunner.run(["costs", scenario, "-o", dir + "/costs.json", "--strategies", "decoded-release+disk"])
        #expect(costs.status == 0, "\(costs.stderr)")
        let stopped = try await CLIRunner.shell("""
            "$R" compare '\(scenario)' --strategies decoded-release+disk --repeat 3 --costs '\(dir)/costs.json' >/dev/null 2>&1 &
            pid=$!
            for i in $(seq 1 400); do ls '\(dir)/stores/retention-\(Directory.effectiveUserID)' 2>/dev/null | grep -q retention-disk && break; sleep 0.05; done
            ls '\(dir)/stores/retention-\(Directory.effectiveUserID)' | grep -c retention-disk
            kill -TERM $pid; wait $pid; echo "status $?"
            """)
        // One store per run in flight (the runs go --jobs at a time), each caught before the signal.
        let lines = stopped.stdout.split(separator: "\n")
        #expect(lines.count == 2 && (Int(lines[0]) ?? 0) >= 1 && lines[1] == "status 143", "\(stopped.stdout)")
        #expect(try FileIO.directoryEntries(dir + "/stores/retention-\(Directory.effectiveUserID)").isEmpty, "SIGTERM left a store folder")
        let timedOut = try await CLIRunner.run(["compare", scenario, "--strategies", "decoded-release+disk", "--repeat", "1",
                                                "--costs", dir + "/costs.json", "--timeout", "1"])
        #expect(timedOut.status != 0)
        #expect(try FileIO.directoryEntries(dir + "/stores/retention-\(Directory.effectiveUserID)").isEmpty, "a timed-out child left a store folder")
    }
}
