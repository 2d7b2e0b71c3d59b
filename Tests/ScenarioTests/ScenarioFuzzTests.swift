import AssetGen
import Foundation
import RetentionTestSupport
import Testing
import Visibility
@testable import Scenario

/// Seeded mutations of valid scenarios: every document either decodes or fails with a
/// `ScenarioError`, and every one that decodes simulates without a trap. A trap crashes the
/// test process, which fails the run; the seed is printed first so it can be replayed.
@Suite("Scenario fuzzing")
struct ScenarioFuzzTests {
    static let seed: UInt64 = ProcessInfo.processInfo.environment["RETENTION_FUZZ_SEED"].flatMap(UInt64.init) ?? 20261123
    static let documents = 2000

    @Test("mutated scenarios decode or fail with one line; decoded ones simulate their first frames")
    func mutatedScenarios() throws {
        print("scenario fuzz seed \(Self.seed) (set RETENTION_FUZZ_SEED to replay)")
        var random = SplitMix64(seed: Self.seed)
        let base = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: TestPaths.packageRoot + "/assets/scenarios/default.json")))
        var decoded = 0
        for _ in 0..<Self.documents {
            var tree = base
            for _ in 0...(random.next() % 3) { tree = Mutations.scenario(tree, &random) }
            guard JSONSerialization.isValidJSONObject(tree),
                  let data = try? JSONSerialization.data(withJSONObject: tree) else { continue }
            do {
                let scenario = try Scenario.decode(data, source: "fuzz.json")
                decoded += 1
                var simulator = VisibilitySimulator(configuration: scenario.simulation)
                var frames = 0
                // Only the first steps, so a valid but long script cannot stretch the test.
                simulator.run(script: Array(scenario.script.prefix(3)).map(Self.shortened), onEvent: { _ in }, onFrameEnd: { _ in frames += 1 })
            } catch {
                let text = error.description
                #expect(!text.isEmpty && !text.contains("\n"), "not one line: \(text) (seed \(Self.seed))")
            }
        }
        #expect(decoded > 0, "no mutation kept the scenario valid (seed \(Self.seed))")
    }

    /// A step with its frame counts capped at 200, so the simulation stays quick.
    static func shortened(_ step: ScriptStep) -> ScriptStep {
        switch step {
        case .scroll(let by, let frames): return .scroll(by: by, frames: min(frames, 200))
        case .pause(let frames): return .pause(frames: min(frames, 200))
        case .repeat(let times, let steps): return .repeat(times: min(times, 2), steps: Array(steps.prefix(3)).map(shortened))
        default: return step
        }
    }
}
