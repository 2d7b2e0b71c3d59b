import RetentionTestSupport
import Foundation
import Retention
import Scenario
import Testing
@testable import Lab
import SystemIO

@Suite("Lab scenario inputs: strategies resolved, images found")
struct LabScenarioInputTests {
    static let base = #""name":"t","viewport":{"width":390,"height":844,"scale":3},"container":{"kind":"list"},"rows":{"count":10,"height":100}"#

    @Test("a name resolves among the scenario's strategies, then the presets; an unknown one lists both")
    func resolve() throws {
        let scenario = try Scenario.decode(Data(#"{\#(Self.base),"strategies":["tiered",{"name":"small-lru","base":"decoded-lru","decodedBudget":"8MB"}]}"#.utf8), source: "t.json")
        #expect(try RetentionPolicy.resolve("small-lru", among: scenario.strategies).bitmapBudget.bytes == 8_000_000)
        #expect(try RetentionPolicy.resolve("decoded-lru", among: scenario.strategies) == RetentionPolicy.named("decoded-lru"))
        #expect(throws: LabError.unknownStrategy("x", known: ["tiered", "small-lru", "swiftui-image-state", "swiftui-data-state", "decoded-release", "decoded-lru", "decoded-row-kept", "thumbnail-lru", "decoded-release+disk", "decoded-lru+disk", "thumbnail-disk"])) {
            try RetentionPolicy.resolve("x", among: scenario.strategies)
        }
    }

    @Test("every scenario in assets/scenarios is ready for run, compare and soak: images, strategies, a trace that checks")
    func labScenarios() throws {
        let root = TestPaths.packageRoot
        let folder = root + "/assets/scenarios"
        var count = 0
        for name in try FileIO.directoryEntries(folder).sorted() where name.hasSuffix(".json") {
            let path = folder + "/" + name
            let scenario = try Scenario.load(contentsOf: path)
            #expect(scenario.settings.images != nil, "\(name) has no images, so it cannot soak")
            let experiment = try Experiment.prepare(scenarioPath: path, strategyName: scenario.strategies[0].name)
            #expect(!experiment.images.paths.isEmpty)
            count += 1
        }
        #expect(count >= 35)
    }

    @Test("a scenario without images says what it can do and what to add")
    func noImages() throws {
        let folder = try TestPaths.temporaryFolder("no-images")
        defer { try? FileIO.removeTree(folder) }
        let path = folder + "/sim.json"
        try Data(#"{"viewport": {"width": 390, "height": 844, "scale": 3}, "container": {"kind": "list"}, "rows": {"count": 10, "height": 100}}"#.utf8)
            .write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: LabError.self) { try Experiment.prepare(scenarioPath: path, strategyName: "decoded-lru") }
        #expect(error?.description == "\(path): the scenario has no \"images\" key, which run, compare and soak need; it can drive `retention simulate` only. Add \"images\": {\"directory\": \"FOLDER\", \"pattern\": \"*.png\"} to measure it")
    }
}
