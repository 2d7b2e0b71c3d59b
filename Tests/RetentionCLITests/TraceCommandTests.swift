import Foundation
import Testing
import SystemIO

/// Scenarios that replay a recorded trace, run the way a user runs them.
@Suite("trace scenarios")
struct TraceCommandTests {
    static let root = CLIRunner.packageRoot

    /// A scenario in `dir` replaying `lines` (after a frames header) over the committed photos.
    static func scenario(in dir: String, lines: [String]) throws -> String {
        let header = #"{"format":"retention-trace","version":1,"time":"frames"}"#
        try ([header] + lines).joined(separator: "\n").appending("\n").write(toFile: dir + "/t.jsonl", atomically: true, encoding: .utf8)
        let path = dir + "/t.json"
        try """
            {"name": "t", "trace": "t.jsonl", "images": {"directory": "\(root)/assets/images", "pattern": "photo-600x400-*.png"}}
            """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static let impossible = [
        #"{"frame":0,"event":"containerCreated"}"#,
        #"{"frame":0,"event":"initialized","row":1}"#,
        #"{"frame":0,"event":"appeared","row":1}"#,
        #"{"frame":3,"event":"appeared","row":7}"#,
        #"{"frame":5,"event":"containerDestroyed"}"#,
    ]

    @Test("an impossible event is one line with the trace's line number, exit 1; --repair drops and reports it")
    func impossibleEvent() async throws {
        let dir = try CLIRunner.temporaryDirectory("trace-impossible")
        defer { try? FileIO.removeTree(dir) }
        let path = try Self.scenario(in: dir, lines: Self.impossible)
        let strict = try await CLIRunner.run(["run", path, "--strategy", "decoded-lru"])
        #expect(strict.status == 1)
        #expect(strict.stderr == "Error: \(dir)/t.jsonl:5: row 7 appeared but was never initialized\n")
        let repaired = try await CLIRunner.run(["run", path, "--strategy", "decoded-lru", "--repair", "--json"])
        #expect(repaired.status == 0, "\(repaired.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(repaired.stdout.utf8)) as? [String: Any]
        #expect(report?["droppedTraceEvents"] as? Int == 1)
        #expect(report?["decodes"] as? Int == 1)
        #expect((report?["traceRepairs"] as? String)?.hasPrefix("dropped 1 impossible event: 1 rows appearing before initialized (first at line 5") == true)
        let simulate = try await CLIRunner.run(["simulate", path, "--repair"])
        #expect(simulate.status == 0)
        #expect(simulate.stderr.contains("trace: dropped 1 impossible event"))
    }

    @Test("malformed lines, unknown events and a missing trace are one line each, exit 1")
    func malformed() async throws {
        let dir = try CLIRunner.temporaryDirectory("trace-malformed")
        defer { try? FileIO.removeTree(dir) }
        let cases: [([String], String)] = [
            ([#"{"frame":0,"event":"containerCreated"}"#, "{not json"], "t.jsonl:3: column 2: expected a string key"),
            ([#"{"frame":0,"event":"containerCreated"}"#, #"{"frame":1,"event":"scrolled"}"#], "t.jsonl:3: unknown event \"scrolled\""),
            ([#"{"frame":4,"event":"containerCreated"}"#, #"{"frame":2,"event":"memoryWarning"}"#], "t.jsonl:3: time goes backwards: frame 2 after frame 4"),
        ]
        for (lines, expected) in cases {
            let path = try Self.scenario(in: dir, lines: lines)
            // Malformed lines stay errors under --repair; time going backwards is dropped there.
            let repairable = expected.contains("time goes backwards")
            for command in [["simulate", path], ["run", path, "--strategy", "decoded-lru"] + (repairable ? [] : ["--repair"])] {
                let result = try await CLIRunner.run(command)
                #expect(result.status == 1, "\(command)")
                #expect(result.stderr.hasPrefix("Error: \(dir)/\(expected)"), "\(command): \(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1)
            }
        }
        try FileIO.removeTree(dir + "/t.jsonl")
        let missing = try await CLIRunner.run(["compare", dir + "/t.json"])
        #expect(missing.status == 1)
        #expect(missing.stderr == "Error: \(dir)/t.jsonl: cannot read the trace: No such file or directory\n")
    }

    @Test("compare prints the table for the sample trace; a recorded script replays to the same run")
    func sampleAndRoundTrip() async throws {
        let compare = try await CLIRunner.run(["compare", Self.root + "/assets/scenarios/sample-trace.json",
                                               "--strategies", "decoded-lru,decoded-release", "--repeat", "1"])
        #expect(compare.status == 0, "\(compare.stderr)")
        #expect(compare.stdout.contains("decoded-lru") && compare.stdout.contains("decoded-release"))
        let dir = try CLIRunner.temporaryDirectory("trace-roundtrip")
        defer { try? FileIO.removeTree(dir) }
        let recorded = try await CLIRunner.run(["simulate", Self.root + "/assets/scenarios/seed-image-reappear.json", "--trace", "--json"])
        #expect(recorded.status == 0)
        try recorded.stdout.write(toFile: dir + "/seed.jsonl", atomically: true, encoding: .utf8)
        let scenario = try String(contentsOfFile: Self.root + "/assets/scenarios/seed-image-reappear.json", encoding: .utf8)
        var object = try JSONSerialization.jsonObject(with: Data(scenario.utf8)) as! [String: Any]
        object["script"] = nil
        object["trace"] = dir + "/seed.jsonl"
        object["images"] = ["directory": Self.root + "/assets/images", "pattern": "photo-600x400-*.png"]
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: dir + "/seed.json"))
        let a = try await CLIRunner.run(["run", Self.root + "/assets/scenarios/seed-image-reappear.json", "-s", "swiftui-image-state", "--json"])
        let b = try await CLIRunner.run(["run", dir + "/seed.json", "-s", "swiftui-image-state", "--json"])
        let ra = try JSONSerialization.jsonObject(with: Data(a.stdout.utf8)) as! [String: Any]
        let rb = try JSONSerialization.jsonObject(with: Data(b.stdout.utf8)) as! [String: Any]
        #expect(ra["decodes"] as? Int == rb["decodes"] as? Int)
        #expect(ra["frames"] as? Int == rb["frames"] as? Int)
        let logical = { (r: [String: Any]) in (r["checkpoints"] as! [[String: Any]]).map { $0["logicalBytes"] as! Int } }
        #expect(logical(ra) == logical(rb))
    }
}
