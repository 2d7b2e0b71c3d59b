import Foundation
import Testing
@testable import Lab

@Suite("Lab scenario keys")
struct ScenarioSettingsTests {
    static let base = #""name":"t","viewport":{"width":390,"height":844,"scale":3},"container":{"kind":"list"},"rows":{"count":10,"height":100}"#

    static func settings(_ extra: String) throws -> ScenarioSettings {
        let scenario = try Scenario.decode(Data("{\(base),\(extra)}".utf8), source: "t.json")
        return try ScenarioSettings(scenario, source: "t.json")
    }

    static func message(_ extra: String) -> String {
        do {
            let scenario = try Scenario.decode(Data("{\(base),\(extra)}".utf8), source: "t.json")
            _ = try ScenarioSettings(scenario, source: "t.json")
            _ = try Strategy.defined(by: scenario, source: "t.json")
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    @Test("defaults: sync display, 2 workers, no latency")
    func defaults() throws {
        let s = try Self.settings(#""images":{"directory":"../images"}"#)
        #expect(s.display == .sync && s.decodeWorkers == 2 && s.sourceLatencyMs == 0)
        #expect(s.images == .init(directory: "../images", pattern: "*.png", displayPixelSize: nil))
    }

    @Test("bad values name the JSON path and what was found", arguments: [
        (#""display":"fast""#, #"display: expected "sync" or "async", found "fast""#),
        (#""decodeWorkers":0"#, "decodeWorkers: expected an integer from 1 to 64, found 0"),
        (#""sourceLatencyMs":"slow""#, #"sourceLatencyMs: expected a number of milliseconds from 0 to 60000, found "slow""#),
        (#""sourceLatencyMs":1e16"#, "sourceLatencyMs: expected a number of milliseconds from 0 to 60000, found 1e+16"),
        (#""sourceLatencyMs":1e300,"display":"async""#, "sourceLatencyMs: expected a number of milliseconds from 0 to 60000, found 1e+300"),
        (#""images":{"directory":"x","patern":"*.png"}"#, "images.patern: unknown key (expected one of directory, pattern, displayPixelSize)"),
        (#""images":{"pattern":"*.png"}"#, "images.directory: expected a folder path"),
        (#""images":{"directory":"x","displayPixelSize":-3}"#, "images.displayPixelSize: expected a positive integer, found -3"),
        (#""strategies":["decoded-lru","nope"]"#, #"strategies[1]: unknown preset "nope" (known: swiftui-image-state, swiftui-data-state, decoded-release, decoded-lru, tiered, decoded-row-kept, thumbnail-lru)"#),
        (#""strategies":[42]"#, "strategies[0]: expected a preset name or a policy object, found 42"),
        (#""strategies":["tiered","tiered"]"#, #"strategies: the name "tiered" is used twice"#),
        (#""strategies":[{"name":"decoded-lru","base":"decoded-lru","decodedBudget":"2MB"}]"#, #"strategies[0].name: "decoded-lru" is a preset's name; give the custom strategy its own name"#),
        (#""rows2":1"#, "no error"),
    ])
    func badValues(extra: String, expected: String) {
        if expected == "no error" {
            #expect(Self.message(extra).hasPrefix("(top level)") || Self.message(extra).contains("rows2"))
        } else {
            #expect(Self.message(extra) == expected)
        }
    }

    @Test("a custom policy in strategies is decoded with its name and base")
    func customPolicy() throws {
        let scenario = try Scenario.decode(Data(#"{\#(Self.base),"strategies":["tiered",{"name":"small-lru","base":"decoded-lru","decodedBudget":"8MB"}]}"#.utf8), source: "t.json")
        let strategies = try Strategy.defined(by: scenario, source: "t.json")
        #expect(strategies.map(\.name) == ["tiered", "small-lru"])
        #expect(strategies[1].policy.bitmapBudget.bytes == 8_000_000)
        #expect(throws: LabError.unknownStrategy("x", known: ["tiered", "small-lru", "swiftui-image-state", "swiftui-data-state", "decoded-release", "decoded-lru", "decoded-row-kept", "thumbnail-lru"])) {
            try Strategy.resolve("x", among: strategies)
        }
    }

    @Test("images resolve relative to the scenario's folder, sorted; an empty match is a clear error")
    func imageSet() throws {
        let root = packageRoot
        let scenarioPath = root + "/assets/scenarios/default.json"
        let set = try ImageSet(.init(directory: "../images", pattern: "photo-600x400-*.png", displayPixelSize: nil), scenarioPath: scenarioPath)
        #expect(set.paths.count == 8)
        #expect(set.path(forRow: 9).hasSuffix("photo-600x400-02.png"))
        #expect(throws: LabError.images("images: no file in \(root)/assets/scenarios/../images matches \"nothing-*.png\"")) {
            try ImageSet(.init(directory: "../images", pattern: "nothing-*.png", displayPixelSize: nil), scenarioPath: scenarioPath)
        }
        let missing = #expect(throws: LabError.self) {
            try ImageSet(.init(directory: "/nonexistent/images", pattern: "*.png", displayPixelSize: nil), scenarioPath: scenarioPath)
        }
        #expect(missing?.description == "images.directory: cannot open /nonexistent/images: No such file or directory")
    }

    @Test("every lab scenario in assets/scenarios loads, with its images and strategies")
    func labScenarios() throws {
        let root = packageRoot
        let folder = root + "/assets/scenarios"
        var count = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: folder).sorted() where name.hasSuffix(".json") {
            let path = folder + "/" + name
            let scenario = try Scenario.load(contentsOf: path)
            let settings = try ScenarioSettings(scenario, source: path)
            guard let images = settings.images else { continue }
            _ = try ImageSet(images, scenarioPath: path)
            #expect(!(try Strategy.defined(by: scenario, source: path)).isEmpty)
            count += 1
        }
        #expect(count >= 10)
    }
}
