import Foundation
import Retention
import SystemIO
import Testing
@testable import Scenario

@Suite("Lab scenario keys")
struct ScenarioSettingsTests {
    static let base = #""name":"t","viewport":{"width":390,"height":844,"scale":3},"container":{"kind":"list"},"rows":{"count":10,"height":100}"#

    static func settings(_ extra: String) throws -> ScenarioSettings {
        try Scenario.decode(Data("{\(base),\(extra)}".utf8), source: "t.json").settings
    }

    static func message(_ extra: String) -> String {
        do {
            _ = try Scenario.decode(Data("{\(base),\(extra)}".utf8), source: "t.json")
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
        #expect(s.diskLatencyMs == 0 && s.sessions == 1 && s.diskFolder == nil)
        let disk = try Self.settings(#""diskLatencyMs":2.5,"sessions":2,"diskFolder":"/var/tmp""#)
        #expect(disk.diskLatencyMs == 2.5 && disk.sessions == 2 && disk.diskFolder == "/var/tmp")
    }

    @Test("the disk folder resolves against the scenario's folder; a file there is an error at diskFolder, one line")
    func diskFolder() throws {
        let folder = FileManager.default.temporaryDirectory.path + "/retention-diskfolder-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/file"))
        func scenario(_ extra: String) throws -> Scenario {
            try Scenario.decode(Data("{\(Self.base)\(extra)}".utf8), source: folder + "/s.json")
        }
        #expect(try scenario(#","diskFolder":"stores""#).diskParentFolder() == folder + "/stores", "a missing folder is made by the run")
        #expect(try scenario(#","diskFolder":"/abs""#).diskParentFolder() == "/abs")
        #expect(try scenario("").diskParentFolder() == TemporaryFile.systemFolder)
        #expect(throws: ScenarioError.invalid(source: folder + "/s.json", path: "diskFolder", message: "\(folder)/file is a file, not a folder")) {
            try scenario(#","diskFolder":"file""#).diskParentFolder()
        }
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
        (#""strategies":["decoded-lru","nope"]"#, #"strategies[1]: unknown preset "nope" (known: swiftui-image-state, swiftui-data-state, decoded-release, decoded-lru, tiered, decoded-row-kept, thumbnail-lru, decoded-release+disk, decoded-lru+disk, thumbnail-disk)"#),
        (#""strategies":[42]"#, "strategies[0]: expected a preset name or a policy object, found 42"),
        (#""strategies":["tiered","tiered"]"#, #"strategies: the name "tiered" is used twice"#),
        (#""strategies":[{"name":"decoded-lru","base":"decoded-lru","decodedBudget":"2MB"}]"#, #"strategies[0].name: "decoded-lru" is a preset's name; give the custom strategy its own name"#),
        (#""diskLatencyMs":-1"#, "diskLatencyMs: expected a number of milliseconds from 0 to 60000, found -1"),
        (#""sessions":0"#, "sessions: expected an integer from 1 to 8, found 0"),
        (#""sessions":9"#, "sessions: expected an integer from 1 to 8, found 9"),
        (#""diskFolder":"""#, #"diskFolder: expected a folder path, found """#),
        (#""diskFolder":7"#, "diskFolder: expected a folder path, found 7"),
        (#""rows2":1"#, "no error"),
    ])
    func badValues(extra: String, expected: String) {
        if expected == "no error" {
            #expect(Self.message(extra).hasPrefix("(top level)") || Self.message(extra).contains("rows2"))
        } else {
            #expect(Self.message(extra) == expected)
        }
    }

    @Test("a custom policy in strategies is decoded with its name and base; no key means every memory preset")
    func customPolicy() throws {
        let scenario = try Scenario.decode(Data(#"{\#(Self.base),"strategies":["tiered",{"name":"small-lru","base":"decoded-lru","decodedBudget":"8MB"}]}"#.utf8), source: "t.json")
        #expect(scenario.strategies.map(\.name) == ["tiered", "small-lru"])
        #expect(scenario.strategies[1].bitmapBudget.bytes == 8_000_000)
        let plain = try Scenario.decode(Data("{\(Self.base)}".utf8), source: "t.json")
        #expect(plain.strategies == RetentionPolicy.presets.filter { !$0.usesDisk }.map(\.policy))
        #expect(plain.strategies.count == 7 && plain.strategies.allSatisfy { $0.disk == nil })
    }

    @Test("settings and strategies encode in the shape they decode from")
    func roundTrip() throws {
        let text = #"{\#(Self.base),"images":{"directory":"d","pattern":"p-*.png","displayPixelSize":300},"display":"async","decodeWorkers":3,"sourceLatencyMs":2.5,"strategies":["tiered",{"name":"mine","base":"thumbnail-lru","maxPixelSize":128}]}"#
        let scenario = try Scenario.decode(Data(text.utf8), source: "t.json")
        let again = try Scenario.decode(try JSONEncoder().encode(scenario), source: "t.json")
        #expect(again == scenario)
        #expect(again.settings == ScenarioSettings(images: .init(directory: "d", pattern: "p-*.png", displayPixelSize: 300),
                                                   display: .async, decodeWorkers: 3, sourceLatencyMs: 2.5))
    }
}
