import Foundation
import Testing
import SystemIO

/// Answers a user can act on: what compare and sweep print on top of their figures must not
/// send anyone the wrong way. Each test runs the built tool as a user does.
@Suite("Answers a user can act on")
struct AnswersCommandTests {
    /// A small scenario of `rows` rows in `container` showing `pattern`, scrolled down and back;
    /// no checkpoint named all-loaded.
    static func scenario(_ dir: String, container: String = #"{"kind": "list", "prefetchRows": 1}"#,
                         pattern: String = "photo-600x400-*.png", rows: Int = 12) throws -> String {
        let path = dir + "/small.json"
        try """
        {"name": "small", "viewport": {"width": 390, "height": 844, "scale": 3}, "container": \(container),
         "rows": {"count": \(rows), "height": 300}, "images": {"directory": "\(CLIRunner.packageRoot)/assets/images", "pattern": "\(pattern)"},
         "script": [{"scroll": {"by": 3000, "frames": 60}}, {"scroll": {"by": -3000, "frames": 60}}, {"destroyContainer": {}}]}
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("compare: a headroom line, the all-loaded fallback, the LazyVStack hint, rankings in the JSON, progress off a terminal")
    func compareNotes() async throws {
        let dir = try CLIRunner.temporaryDirectory("answers-compare")
        defer { try? FileIO.removeTree(dir) }
        let scenario = try Self.scenario(dir, container: #"{"kind": "lazyVStack", "prefetchRows": 1}"#)
        let result = try await CLIRunner.run(["compare", scenario, "--strategies", "decoded-release,decoded-lru", "--repeat", "1",
                                              "--export-json", dir + "/out.json"])
        #expect(result.status == 0, "\(result.stderr)")
        let headroom = result.stdout.split(separator: "\n").first { $0.hasPrefix("headroom: the slowest load (photo-600x400-") }
        #expect(headroom.map { $0.contains(" of the 16.67 ms frame budget (") } == true, "\(result.stdout)")
        #expect(result.stdout.contains("\nall loaded: the script has no checkpoint named all-loaded, so the column shows the end checkpoint, taken after its last step\n"))
        #expect(result.stdout.contains("\nhint: rows leaving this LazyVStack at the top never get onDisappear"))
        #expect(result.stdout.contains("\nlowest peak: ") && result.stdout.contains("; fewer than 3 runs per strategy, so not judged against the spread across repeats"))
        #expect(result.stderr.contains("progress: [2/2] "), "a plain progress line when stderr is not a terminal: \(result.stderr)")
        // The cost table is measured before any run, and says so: the first line, not silence.
        let progress = result.stderr.split(separator: "\n").filter { $0.hasPrefix("progress: ") }
        #expect(progress.first?.hasPrefix("progress: [costs 1/1] measuring the cost table  ") == true, "\(result.stderr)")
        let document = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/out.json"))) as? [String: Any]
        let rankings = document?["rankings"] as? [String] ?? []
        #expect(rankings.count >= 2 && rankings[0].hasPrefix("lowest peak: ") && rankings[1].hasPrefix("fewest hitches: "), "\(rankings)")
        #expect(document?["schemaVersion"] as? Int == 3)
    }

    @Test("sweep: the admits column names a budget under which no image fits, and a recommendation of one says what it is")
    func admission() async throws {
        let dir = try CLIRunner.temporaryDirectory("answers-sweep")
        defer { try? FileIO.removeTree(dir) }
        // 1200x900 photos are 4.32 MB decoded: an 8MB budget admits entries up to 2 MB, none of them.
        let scenario = try Self.scenario(dir, pattern: "photo-1200x900-0[12].png", rows: 8)
        let result = try await CLIRunner.run(["sweep", scenario, "--values", "8MB,32MB", "--repeat", "1", "--max-hitches", "1000"], timeout: 300)
        #expect(result.status == 0, "\(result.stderr)")
        let rows = result.stdout.split(separator: "\n")
        #expect(rows.contains { $0.hasPrefix("decoded-lru") && $0.contains(" 8MB ") && $0.contains(" none ") }, "\(result.stdout)")
        #expect(rows.contains { $0.hasPrefix("decoded-lru") && $0.contains(" 32MB ") && $0.contains(" all ") }, "\(result.stdout)")
        #expect(result.stdout.contains("\nadmits: the scenario's images whose bitmap the LRU admits: "))
        if result.stdout.contains("recommendation: decoded-lru bitmapBudget=8MB ") {
            #expect(result.stdout.contains("note: at this value its LRU admits no image (the largest bitmap, 4.3 MB, is over the 2.0 MB admission cap)"), "\(result.stdout)")
        }
    }

    @Test("messages: no invented default for --vary decodeWorkers, strategies shows the real thumbnail size, no doubled default in help")
    func messages() async throws {
        let workers = try await CLIRunner.run(["sweep", "--vary", "decodeWorkers"])
        #expect(workers.status == 64, "\(workers.stderr)")
        #expect(workers.stderr.hasPrefix("Error: decodeWorkers does not apply: the scenario decodes synchronously"), "\(workers.stderr)")
        let unitless = try await CLIRunner.run(["sweep", "--values", "10,20"])
        #expect(unitless.status == 64 && unitless.stderr.hasPrefix("Error: --values: '10' is not a size with its unit like 8MB (for bitmapBudget)"), "\(unitless.stderr)")
        let dir = try CLIRunner.temporaryDirectory("answers-messages")
        defer { try? FileIO.removeTree(dir) }
        let path = dir + "/big.json"
        try #"{"viewport": {"width": 390, "height": 844, "scale": 3}, "container": {"kind": "list"}, "rows": {"count": 10, "height": 100}, "images": {"directory": "\#(CLIRunner.packageRoot)/assets/images", "displayPixelSize": 1170}}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        let strategies = try await CLIRunner.run(["strategies", path])
        #expect(strategies.stdout.contains("(in this scenario: 1170 px thumbnails, from images.displayPixelSize)"), "\(strategies.stdout)")
        for command in ["run", "compare", "sweep", "soak", "thumbnail"] {
            let help = try await CLIRunner.run([command, "--help"])
            // A default written in the help and printed again by the parser: "(default 2). (default: 2)".
            let flat = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(flat.firstMatch(of: #/\(default[ :][^)]*\)\. \(default/#) == nil, "\(command) --help: \(flat)")
        }
    }

    @Test("a custom strategy built on a thumbnail preset takes the scenario's displayPixelSize unless it gives its own maxPixelSize")
    func customStrategiesInheritTheDisplaySize() async throws {
        let dir = try CLIRunner.temporaryDirectory("answers-inherit")
        defer { try? FileIO.removeTree(dir) }
        let path = dir + "/s.json"
        try #"{"viewport": {"width": 390, "height": 844, "scale": 3}, "container": {"kind": "list"}, "rows": {"count": 10, "height": 100}, "images": {"directory": "\#(CLIRunner.packageRoot)/assets/images", "displayPixelSize": 390}, "strategies": ["thumbnail-lru", {"name": "thumb16", "base": "thumbnail-lru", "thumbnailBudget": "16MB"}, {"name": "own", "base": "thumbnail-lru", "maxPixelSize": 128}, {"name": "plain", "visible": "thumbnail"}]}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        let result = try await CLIRunner.run(["strategies", path, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        func summary(_ name: String) -> String { lines.first { $0.contains("\"name\":\"\(name)\"") } ?? "" }
        #expect(summary("thumb16").contains("\\\"maxPixelSize\\\":390"), "\(summary("thumb16"))")
        #expect(summary("plain").contains("\\\"maxPixelSize\\\":390"), "\(summary("plain"))")
        #expect(summary("own").contains("\\\"maxPixelSize\\\":128"), "\(summary("own"))")
        #expect(summary("thumbnail-lru").contains("(in this scenario: 390 px thumbnails, from images.displayPixelSize)"))
    }

    @Test("a checkpoint named like one the lab records is refused with its JSON path")
    func reservedCheckpoint() async throws {
        let dir = try CLIRunner.temporaryDirectory("answers-reserved")
        defer { try? FileIO.removeTree(dir) }
        let path = dir + "/r.json"
        try #"{"viewport": {"width": 390, "height": 844, "scale": 3}, "container": {"kind": "list"}, "rows": {"count": 10, "height": 100}, "script": [{"checkpoint": {"name": "end"}}]}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        let result = try await CLIRunner.run(["simulate", path])
        #expect(result.status == 1)
        #expect(result.stderr == "Error: script[0].checkpoint.name: \"end\" is a name the lab records itself (startup, end, after-destroy, after-trim, resident-limit); choose another\n", "\(result.stderr)")
    }
}
