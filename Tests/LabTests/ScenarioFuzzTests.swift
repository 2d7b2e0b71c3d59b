import Foundation
import RetentionTestSupport
import Testing
import Visibility
@testable import Lab

/// Seeded mutations of valid scenarios: every document either decodes or fails with a
/// `ScenarioError`, and every one that decodes simulates without a trap. A trap crashes the
/// test process, which fails the run; the seed is printed first so it can be replayed.
@Suite("Scenario fuzzing")
struct ScenarioFuzzTests {
    static let seed: UInt64 = ProcessInfo.processInfo.environment["RETENTION_FUZZ_SEED"].flatMap(UInt64.init) ?? 20261123
    static let documents = 2000

    /// Values that once reached a trap or an unbounded loop somewhere.
    nonisolated(unsafe) static let extremes: [Any] = [
        0, -1, 1, 2.5, 1e300, -1e300, 1e16, 9_223_372_036_854_775_807, 1_000_000_000, 1e-300,
        "", "x", [Any](), [String: Any](), NSNull(), true, [1e300, 0], ["repeat": ["times": 1_000_000_000, "steps": []]],
    ]

    @Test("mutated scenarios decode or fail with one line; decoded ones simulate their first frames")
    func mutatedScenarios() throws {
        print("scenario fuzz seed \(Self.seed) (set RETENTION_FUZZ_SEED to replay)")
        var random = RetentionTestSupport.SplitMix64(seed: Self.seed)
        let base = try JSONSerialization.jsonObject(with: Data(DefaultScenario.json.utf8))
        var decoded = 0
        for _ in 0..<Self.documents {
            var tree = base
            for _ in 0...(random.next() % 3) { tree = Self.mutate(tree, &random, depth: 0) }
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

    /// Replaces, deletes or wraps one randomly chosen member of `value`.
    static func mutate(_ value: Any, _ random: inout RetentionTestSupport.SplitMix64, depth: Int) -> Any {
        let pick = random.next()
        if var object = value as? [String: Any], !object.isEmpty {
            let keys = object.keys.sorted()
            let key = keys[Int(pick % UInt64(keys.count))]
            switch (pick >> 8) % 6 {
            case 0: object.removeValue(forKey: key)
            case 1: object[key] = extremes[Int((pick >> 16) % UInt64(extremes.count))]
            case 2: object[key] = [object[key] as Any]
            default: object[key] = mutate(object[key] as Any, &random, depth: depth + 1)
            }
            return object
        }
        if var array = value as? [Any], !array.isEmpty {
            let index = Int(pick % UInt64(array.count))
            switch (pick >> 8) % 5 {
            case 0: array.remove(at: index)
            case 1: array.append(array[index])
            default: array[index] = mutate(array[index], &random, depth: depth + 1)
            }
            return array
        }
        return extremes[Int(pick % UInt64(extremes.count))]
    }
}
