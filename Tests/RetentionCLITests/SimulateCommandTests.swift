import Foundation
import Testing
import SystemIO

@Suite("retention simulate")
struct SimulateCommandTests {
    static let scenarios = CLIRunner.packageRoot + "/assets/scenarios"

    @Test("--trace prints frame, event and row; the issue's example begins as documented")
    func trace() async throws {
        let result = try await CLIRunner.run(["simulate", Self.scenarios + "/issue-trace-example.json", "--trace"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        var expected = ["0\tcontainerCreated\t-"]
        for row in 0..<10 { expected += ["0\tinitialized\t\(row)", "0\tappeared\t\(row)"] }
        #expect(Array(lines.prefix(21)) == expected)
        #expect(lines.last == "\(lines.last!.split(separator: "\t")[0])\tcontainerDestroyed\t-")
    }

    @Test("without --trace, a summary per container lifetime; --json gives JSON lines")
    func summary() async throws {
        let text = try await CLIRunner.run(["simulate", Self.scenarios + "/list-vs-lazyvstack-list.json"])
        #expect(text.status == 0 && text.stdout.hasPrefix("container 1: frames 0-"))
        let json = try await CLIRunner.run(["simulate", Self.scenarios + "/issue-trace-example.json", "--trace", "--json"])
        // A trace: the header line, then the events.
        let lines = json.stdout.split(separator: "\n")
        #expect(lines[0].hasPrefix(#"{"format":"retention-trace","version":1,"time":"frames""#))
        let first = try JSONSerialization.jsonObject(with: Data(lines[2].utf8)) as? [String: Any]
        #expect(first?["event"] as? String == "initialized" && first?["row"] as? Int == 0 && first?["frame"] as? Int == 0)
    }

    @Test("a bad scenario exits 1 with a one-line message naming the JSON path")
    func badScenario() async throws {
        let dir = try CLIRunner.temporaryDirectory("simulate")
        defer { try? FileIO.removeTree(dir) }
        let path = dir + "/bad.json"
        try #"{"name":"x","frameRate":60,"viewport":{"width":390,"height":844,"scale":3},"container":{"kind":"list"},"rows":{"count":"ten","height":100},"script":[]}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        let result = try await CLIRunner.run(["simulate", path])
        #expect(result.status == 1)
        #expect(result.stderr == "Error: rows.count: expected a non-negative integer, found \"ten\"\n")
        let missing = try await CLIRunner.run(["simulate", dir + "/nope.json"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("nope.json"))
        #expect(missing.stderr.split(separator: "\n").count == 1)
    }
}
