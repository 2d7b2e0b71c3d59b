import RetentionTestSupport
import Foundation
import Imaging
import Testing
@testable import Scenario
import SystemIO

@Suite("Default scenario")
struct DefaultScenarioTests {
    @Test("the compiled-in JSON is byte for byte the committed assets/scenarios/default.json")
    func embeddedMatchesFile() throws {
        let committed = try Data(contentsOf: URL(fileURLWithPath: TestPaths.packageRoot + "/" + DefaultScenario.relativePath))
        #expect(Data(DefaultScenario.json.utf8) == committed)
        let images = try ImageSet(#require(try Scenario.load(contentsOf: TestPaths.packageRoot + "/" + DefaultScenario.relativePath).settings.images),
                                  scenarioPath: TestPaths.packageRoot + "/" + DefaultScenario.relativePath)
        #expect(images.paths.map { String($0.split(separator: "/").last!) } == DefaultScenario.imageSpecs.map(\.fileName))
    }

    @Test("away from the checkout it is written once into the cache folder, images byte-identical to the committed ones")
    func materializedInCache() throws {
        let folder = NSTemporaryDirectory() + "retention-default-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileIO.removeTree(folder) }
        var announced: [String] = []
        let path = try DefaultScenario.materialized(in: folder + "/cache") { announced.append($0) }
        #expect(announced.count == 1)
        #expect(announced.first?.contains("first use") == true)
        #expect(try DefaultScenario.materialized(in: folder + "/cache") { announced.append($0) } == path)
        #expect(announced.count == 1, "the second use finds the copy and says nothing")
        let scenario = try Scenario.load(contentsOf: path)
        #expect(scenario.name == "default")
        let images = try ImageSet(#require(scenario.settings.images), scenarioPath: path)
        #expect(images.paths.count == 8)
        for image in images.paths {
            let name = String(image.split(separator: "/").last!)
            let committed = try Data(contentsOf: URL(fileURLWithPath: TestPaths.packageRoot + "/assets/images/" + name))
            #expect(try Data(contentsOf: URL(fileURLWithPath: image)) == committed, "\(name)")
        }
        let leftovers = try FileIO.directoryEntries(folder + "/cache").filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty, "no staging folder is left behind")
    }

    @Test("a cache folder that cannot be made is one line that says why and what to do")
    func unwritableCache() throws {
        let file = NSTemporaryDirectory() + "retention-default-file-\(getpid())"
        try FileIO.replace(file, with: Array("x".utf8))
        defer { try? FileIO.removeTree(file) }
        #expect(throws: ScenarioError.defaultScenario("the default scenario needs a cache folder: cannot create the folder \(file): Not a directory; pass a scenario file")) {
            _ = try DefaultScenario.materialized(in: file + "/cache")
        }
    }
}
