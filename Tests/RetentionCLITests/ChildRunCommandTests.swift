import Foundation
import SystemIO
import Testing
import RetentionTestSupport

/// The protocol between `compare`/`sweep` and their children: a typed request as one JSON
/// argument to the hidden `child-run` subcommand, never the flags of `run` or `costs`.
@Suite("retention child-run: the children's typed request")
struct ChildRunCommandTests {
    /// A request written as the tool reads it: JSON, no flag in it.
    static func request(_ kind: String, _ fields: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: [kind: fields], options: [.sortedKeys]), as: UTF8.self)
    }

    @Test("a calibration request writes a cost table, a run request prints its report as JSON with what it asked for")
    func calibrationThenRun() async throws {
        let dir = try CLIRunner.temporaryDirectory("child-run")
        defer { try? FileIO.removeTree(dir) }
        let scenario = try LabCommandTests.smallScenario(dir)
        let costs = dir + "/costs.json"
        let calibration = try await CLIRunner.run(["child-run", try Self.request("costs", ["scenarioPath": scenario, "outputPath": costs,
                                                                                          "strategies": ["decoded-lru"]])])
        #expect(calibration.status == 0, "\(calibration.stderr)")
        #expect(calibration.stdout.isEmpty)
        #expect(FileIO.exists(costs))

        let run = try await CLIRunner.run(["child-run", try Self.request("run", [
            "scenarioPath": scenario, "strategy": "decoded-lru", "costsPath": costs, "decodeSpeed": 2,
            "settings": [["key": "prefetchRows", "value": 0]], "maxResidentBytes": 8 << 30, "repairTrace": true,
        ])])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(report["strategy"] as? String == "decoded-lru")
        let priced = try #require(report["costs"] as? [String: Any])
        #expect(priced["source"] as? String == "table")
        #expect(priced["decodeSpeed"] as? Double == 2)
    }

    @Test("a calibration request whose output is the scenario, or a folder, is refused before any image is read, and the scenario is untouched")
    func calibrationOutputIsChecked() async throws {
        let dir = try CLIRunner.temporaryDirectory("child-run-output")
        defer { try? FileIO.removeTree(dir) }
        let scenario = try LabCommandTests.smallScenario(dir)
        let before = try FileIO.readAll(scenario)
        let onScenario = try await CLIRunner.run(["child-run", try Self.request("costs", ["scenarioPath": scenario, "outputPath": scenario,
                                                                                          "strategies": ["decoded-lru"]])])
        #expect(onScenario.status == 2, "\(onScenario.stderr)")
        #expect(onScenario.stderr.hasPrefix("Error: -o \(scenario) is the scenario (\(scenario)), which this command reads; writing it would destroy it"),
                "\(onScenario.stderr)")
        #expect(try FileIO.readAll(scenario) == before, "the scenario was rewritten")
        let onFolder = try await CLIRunner.run(["child-run", try Self.request("costs", ["scenarioPath": scenario, "outputPath": dir,
                                                                                        "strategies": ["decoded-lru"]])])
        #expect(onFolder.status == 2 && onFolder.stderr.hasPrefix("Error: -o: "), "\(onFolder.stderr)")
        #expect(onFolder.stderr.split(separator: "\n").count == 1, "\(onFolder.stderr)")
    }

    @Test("a malformed request is one error line naming the JSON path, exit status 64, and the command is hidden from help")
    func malformed() async throws {
        for (request, expected) in [
            (#"{"run": {"scenarioPath": "x.json"}"#, "malformed JSON"),
            (#"{"run": {"scenarioPath": "x.json", "strategy": "tiered", "decodeSpeed": 0}}"#, "run.decodeSpeed: expected a number from 0.01 to 100"),
            (#"{"run": {"scenarioPath": "x.json", "strategy": "tiered", "--json": true}}"#, "run.--json: unknown key for a run"),
            (#"{"costs": {"scenarioPath": "x.json"}}"#, "costs.outputPath: required key is missing"),
            (#"{}"#, "one of run or costs is required, found neither"),
        ] {
            let result = try await CLIRunner.run(["child-run", request])
            #expect(result.status == 64, "\(request): \(result.stderr)")
            let first = result.stderr.split(separator: "\n").first.map(String.init) ?? ""
            #expect(first.hasPrefix("Error: the child-run request: "), "\(first)")
            #expect(first.contains(expected), "\(request): \(first)")
        }
        let help = try await CLIRunner.run(["--help"])
        #expect(help.status == 0)
        #expect(!help.stdout.contains("child-run"))
    }

    @Test("compare end to end through child-run requests: decode speed, repair and the resident limit reach every child")
    func compareEndToEnd() async throws {
        let dir = try CLIRunner.temporaryDirectory("child-run-compare")
        defer { try? FileIO.removeTree(dir) }
        let scenario = try LabCommandTests.smallScenario(dir)
        let result = try await CLIRunner.run(["compare", scenario, "--strategies", "decoded-lru,tiered", "--repeat", "2", "--calibrations", "1",
                                              "--decode-speed", "2", "--repair", "--max-resident", "8GB", "--export-json", dir + "/out.json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("lowest peak: "))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/out.json"))) as? [String: Any])
        let runs = try #require(json["runs"] as? [[String: Any]])
        #expect(runs.count == 4)
        for run in runs {
            let report = try #require(run["report"] as? [String: Any], "\(run)")
            #expect((report["costs"] as? [String: Any])?["decodeSpeed"] as? Double == 2)
        }

        // A limit far below any run's resident memory stops every child: it travelled in the request.
        let stopped = try await CLIRunner.run(["compare", scenario, "--strategies", "decoded-lru", "--repeat", "1", "--costs", dir + "/out.json",
                                               "--max-resident", "1MB"])
        #expect(stopped.status == 1, "\(stopped.stderr)")
        #expect((stopped.stdout + stopped.stderr).contains("resident memory reached"), "\(stopped.stdout)\(stopped.stderr)")
    }
}
