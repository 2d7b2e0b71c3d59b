import FoundationEssentials
import RetentionTestSupport
import Testing
import Visibility
@testable import Scenario
import StrictJSON
import SystemIO

/// Loading, defaults, round trips, and every shipped example scenario.
@Suite("Scenario loading")
struct ScenarioLoadingTests {
    @Test("every scenario in assets/scenarios loads and runs")
    func shippedScenarios() throws {
        let folder = packageRoot + "/assets/scenarios"
        let names = try FileIO.directoryEntries(folder).filter { $0.hasSuffix(".json") }
        #expect(names.count >= 12)
        for name in names.sorted() {
            let scenario = try Scenario.load(contentsOf: folder + "/" + name)
            #expect(scenario.name + ".json" == name)
            var simulator = VisibilitySimulator(configuration: scenario.simulation)
            var summary = SimulationSummary()
            simulator.run(script: scenario.script, onEvent: { summary.record($0) })
            #expect(!summary.lifetimes.isEmpty, "\(name)")
        }
    }

    @Test("the README's quick-start scenario is the committed file, which loads with its images and strategies")
    func quickStart() throws {
        let readme = try String(contentsOfFile: packageRoot + "/README.md", encoding: .utf8)
        let marker = "<!-- quick-start-scenario -->\n```json\n"
        let start = try #require(readme.range(of: marker), "the README has lost its quick-start scenario")
        let end = try #require(readme.range(of: "\n```", range: start.upperBound..<readme.endIndex))
        let quoted = String(readme[start.upperBound..<end.lowerBound]) + "\n"
        let path = packageRoot + "/assets/scenarios/quick-start.json"
        #expect(quoted == (try String(contentsOfFile: path, encoding: .utf8)), "README.md quotes assets/scenarios/quick-start.json exactly")
        let scenario = try Scenario.load(contentsOf: path)
        #expect(scenario.strategies.map(\.name) == ["decoded-release", "thumbnail-lru", "lru-32mb", "lru-32mb+disk"])
        #expect(try scenario.imageSet()?.paths.count == 8)
    }

    @Test("the issue's example decodes to the expected values, with defaults filled in")
    func issueExample() throws {
        let scenario = try Scenario.decode(Data(document(script: #"[{"scroll": {"by": 20000, "frames": 600}}, {"destroyContainer": {}}]"#).utf8), source: "x.json")
        #expect(scenario.name == "test")
        #expect(scenario.frameRate == .hz60)
        #expect(scenario.viewport == Viewport(width: 390, height: 844, scale: 3))
        #expect(scenario.container == ContainerConfiguration(kind: .list, prefetchRows: 2))
        #expect(scenario.rows == RowsConfiguration(count: 100, height: .fixed(200)))
        #expect(scenario.script == [.scroll(by: 20000, frames: 600), .destroyContainer])
        #expect(scenario.settings == ScenarioSettings())
        #expect(scenario.strategies == Scenario.presetStrategies)
    }

    @Test("a scenario without a name takes the file's base name")
    func nameFromFile() throws {
        let json = #"{"viewport": {"width": 1, "height": 1}, "container": {"kind": "vStack"}, "rows": {"count": 1, "height": 1}}"#
        #expect(try Scenario.decode(Data(json.utf8), source: "/a/b/my-list.json").name == "my-list")
    }

    @Test("the lab's keys are typed, null keeps a default, and everything survives a round trip")
    func roundTrip() throws {
        let json = document(
            container: #"{"kind": "lazyVGrid", "columns": 3, "prefetchRows": 1, "disappearEdges": "both"}"#,
            rows: #"{"count": 40, "height": [100, 150.5], "explicitID": true, "destination": "lazy", "loadMore": {"batch": 5}}"#,
            script: #"""
                [{"fling": {"velocity": -300}}, {"scrollTo": {"row": 3, "anchor": "center"}}, {"navigate": {"row": 2}},
                 {"repeat": {"times": 2, "steps": [{"pause": {"frames": 3}}, {"back": {}}, {"memoryWarning": {}}]}},
                 {"checkpoint": {"name": "all-loaded"}}, {"destroyContainer": {}}, {"recreateContainer": {}}]
                """#,
            extra: #", "images": {"directory": "imgs", "pattern": "a-*.png"}, "decodeWorkers": 3, "sourceLatencyMs": null"#)
        let scenario = try Scenario.decode(Data(json.utf8), source: "x.json")
        #expect(scenario.settings.images == .init(directory: "imgs", pattern: "a-*.png"))
        #expect(scenario.settings.decodeWorkers == 3)
        #expect(scenario.settings.sourceLatencyMs == 0)
        #expect(scenario.rows.loadMore == LoadMore(threshold: 10, batch: 5, delayFrames: 90))
        #expect(scenario.script[0] == .fling(velocity: -300, deceleration: 0.998))
        let encoded = try JSONEncoder().encode(scenario)
        #expect(try Scenario.decode(encoded, source: "x.json") == scenario)
    }

    @Test("JSON escapes and unicode survive parsing")
    func parserStrings() throws {
        let value = try JSONParser.parse(Array(#"{"s": "a\"b\\c\n\u00e9\ud83d\ude00/", "n": [-0.5e2, 0, 12]}"#.utf8))
        #expect(value["s"] == .string("a\"b\\c\né😀/"))
        #expect(value["n"] == .array([.number(-50), .number(0), .number(12)]))
    }

    @Test("images resolve relative to the scenario's folder, sorted; an empty match is a clear error")
    func imageSet() throws {
        let root = TestPaths.packageRoot
        let scenarioPath = root + "/assets/scenarios/default.json"
        let set = try ImageSet(.init(directory: "../images", pattern: "photo-600x400-*.png", displayPixelSize: nil), scenarioPath: scenarioPath)
        #expect(set.paths.count == 8)
        #expect(set.path(forRow: 9).hasSuffix("photo-600x400-02.png"))
        #expect(throws: ScenarioError.invalid(source: scenarioPath, path: "images", message: "no file in \(root)/assets/scenarios/../images matches \"nothing-*.png\"")) {
            try ImageSet(.init(directory: "../images", pattern: "nothing-*.png", displayPixelSize: nil), scenarioPath: scenarioPath)
        }
        let missing = #expect(throws: ScenarioError.self) {
            try ImageSet(.init(directory: "/nonexistent/images", pattern: "*.png", displayPixelSize: nil), scenarioPath: scenarioPath)
        }
        #expect(missing?.description == "images.directory: cannot open /nonexistent/images: No such file or directory")
    }
}
