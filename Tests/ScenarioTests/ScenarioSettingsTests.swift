import Foundation
import StrictJSON
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
        let folder = TemporaryFile.systemFolder + "/retention-diskfolder-\(UUID().uuidString.prefix(8))"
        try FileIO.createDirectories(folder)
        defer { try? FileIO.removeTree(folder) }
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
        (#""images":{"directory":"x","patern":"*.png"}"#, "images.patern: unknown key (expected one of directory, pattern, displayPixelSize, identity)"),
        (#""images":{"pattern":"*.png"}"#, "images.directory: expected a folder path"),
        (#""sourceLatencyMs":{"p50":150,"p95":80}"#, #"sourceLatencyMs: expected {"p50": P, "p95": Q} in milliseconds with 0 < P ≤ Q ≤ 60000, found an object"#),
        (#""sourceLatencyMs":[]"#, "sourceLatencyMs: expected a list of 1 to 10000 numbers of milliseconds from 0 to 60000, found an array"),
        (#""fetchLimit":0"#, "fetchLimit: expected an integer from 1 to 64, found 0"),
        (#""fetchLimit":4"#, #"fetchLimit: applies only with "display": "async" (a synchronous list reads and decodes one image at a time, in the frame that shows it); set "display": "async" or remove it"#),
        (#""loadOrder":"fifo""#, #"loadOrder: applies only with "display": "async" (a synchronous list reads and decodes one image at a time, in the frame that shows it); set "display": "async" or remove it"#),
        (#""loadOrder":"lifo""#, #"loadOrder: expected one of priority, fifo, found "lifo""#),
        (#""loadOrder":1"#, "loadOrder: expected one of priority, fifo, found 1"),
        (#""images":{"directory":"x","identity":"url"}"#, #"images.identity: expected one of row, image, found "url""#),
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

    @Test("sourceLatencyMs takes one value, a log-normal fitted to p50 and p95, or a list taken in turn; draws are seeded")
    func latencyModels() throws {
        func settings(_ extra: String) throws -> ScenarioSettings {
            try Scenario.decode(Data("{\(Self.base),\(extra)}".utf8), source: "/tmp/s.json").settings
        }
        #expect(try settings(#""sourceLatencyMs":80"#).sourceLatency == .fixed(80))
        let logNormal = try settings(#""display":"async","sourceLatencyMs":{"p50":80,"p95":150},"fetchLimit":4"#)
        #expect(logNormal.sourceLatency == .logNormal(p50: 80, p95: 150) && logNormal.sourceLatencyMs == 80 && logNormal.fetchLimit == 4)
        #expect(try settings(#""sourceLatencyMs":[40,120,80]"#).sourceLatency == .cycle([40, 120, 80]))
        #expect(try settings(#""display":"async""#).fetchLimit == 6, "the default is 6")
        #expect(try settings(#""display":"async""#).loadOrder == .priority, "the default orders by priority, as ImageCache")
        #expect(try settings(#""display":"async","loadOrder":"fifo""#).loadOrder == .fifo)
        // The fitted distribution: its median and 95th percentile over many draws, and the same
        // draws every time.
        let model = LatencyModel.logNormal(p50: 80, p95: 150)
        let draws = (0..<20_000).map { model.milliseconds(draw: UInt64($0)) }.sorted()
        #expect(abs(draws[10_000] - 80) < 3, "median \(draws[10_000])")
        #expect(abs(draws[19_000] - 150) < 8, "95th percentile \(draws[19_000])")
        #expect(model.milliseconds(draw: 7) == LatencyModel.logNormal(p50: 80, p95: 150).milliseconds(draw: 7))
        #expect(LatencyModel.cycle([40, 120, 80]).milliseconds(draw: 4) == 120)
        // Encoding writes each form back.
        for extra in [#""sourceLatencyMs":{"p50":80,"p95":150}"#, #""sourceLatencyMs":[40,120,80]"#] {
            let decoded = try Scenario.decode(Data("{\(Self.base),\(extra)}".utf8), source: "/tmp/s.json")
            let again = try Scenario.decode(Data(JSONDocument.encode(decoded).utf8), source: "/tmp/s.json")
            #expect(again.settings.sourceLatency == decoded.settings.sourceLatency)
        }
    }
}
