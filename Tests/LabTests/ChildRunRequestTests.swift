import Testing
@testable import Lab

/// The typed request a comparison sends each child: it survives JSON whole, carries no flag of
/// `run` or `costs`, and a malformed one is a single usage line naming its JSON path.
@Suite("Child run requests")
struct ChildRunRequestTests {
    static var fullRun: ChildRunRequest {
        var run = ChildRunRequest.StrategyRun(scenarioPath: "/tmp/café \u{EFE9}.json", strategy: "decoded-lru")
        run.settings = [SweepSetting(key: .decodedBudget, value: 8_000_000)]
        run.repairTrace = true
        run.costsPath = "/tmp/costs.json"
        run.decodeSpeed = 0.5
        run.maxResidentBytes = 3 << 30
        return .run(run)
    }

    @Test("a run and a calibration round-trip through JSON, and the arguments are the subcommand and one JSON object")
    func roundTrip() throws {
        let calibration = ChildRunRequest.costs(.init(scenarioPath: "s.json", outputPath: "/tmp/out.json", strategies: ["tiered", "decoded-lru"]))
        let bare = ChildRunRequest.run(.init(scenarioPath: "s.json", strategy: "tiered"))
        for request in [Self.fullRun, calibration, bare, .costs(.init(scenarioPath: "s.json", outputPath: "o.json"))] {
            #expect(try ChildRunRequest(json: request.json) == request)
            #expect(request.arguments == [ChildRunRequest.subcommand, request.json])
            #expect(!request.arguments.contains { $0.hasPrefix("-") })
        }
        #expect(bare.json == #"{"run":{"decodeSpeed":1,"repairTrace":false,"scenarioPath":"s.json","settings":[],"strategy":"tiered"}}"#)
    }

    @Test("a malformed request throws LabError.usage (the tool's exit status 64) with one line naming the JSON path", arguments: [
        (#"{"run": {"scenarioPath": "s.json", "strategy": "tiered""#, "malformed JSON at line 1"),
        (#"{"run": {"scenarioPath": "s.json", "strategy": "tiered", "strategy": "lru"}}"#, "duplicate key"),
        (#"{"run": {"scenarioPath": "s.json"}}"#, "run.strategy: required key is missing"),
        (#"{"run": {"scenarioPath": "s.json", "strategy": "tiered", "json": true}}"#, "run.json: unknown key for a run"),
        (#"{"run": {"scenarioPath": "s.json", "strategy": "tiered", "decodeSpeed": 200, "costsPath": "c.json"}}"#, "run.decodeSpeed: expected a number from 0.01 to 100"),
        (#"{"run": {"scenarioPath": "s.json", "strategy": "tiered", "decodeSpeed": 2}}"#, "run.decodeSpeed: a decode speed other than 1 scales a cost table"),
        (#"{"run": {"scenarioPath": "s.json", "strategy": "tiered", "maxResidentBytes": 0}}"#, "run.maxResidentBytes: expected a number of bytes above zero"),
        (#"{"costs": {"scenarioPath": "s.json", "outputPath": 7}}"#, "costs.outputPath: expected a string"),
        (#"{"run": {"scenarioPath": "s.json", "strategy": "t"}, "costs": {"scenarioPath": "s.json", "outputPath": "o"}}"#, "one of run or costs is required, found both"),
        (#"{"sweep": {}}"#, "sweep: unknown key"),
        (#"[]"#, "expected an object"),
    ])
    func malformed(text: String, expected: String) {
        #expect {
            _ = try ChildRunRequest(json: text)
        } throws: { error in
            guard case .usage(let message) = error as? LabError else { return false }
            return message.hasPrefix("the child-run request: ") && message.contains(expected) && !message.contains("\n")
        }
    }
}
