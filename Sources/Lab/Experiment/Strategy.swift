import Retention
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A named retention policy an experiment runs: a preset, or a custom policy from a scenario's
/// `strategies` list.
public struct Strategy: Sendable, Hashable {
    /// The name reports use.
    public var name: String
    /// What the cache does.
    public var policy: RetentionPolicy

    /// A strategy from a policy (its name is the policy's).
    public init(_ policy: RetentionPolicy) {
        self.name = policy.name
        self.policy = policy
    }

    /// Every preset, in `RetentionPolicy.presets` order.
    public static var presets: [Strategy] { RetentionPolicy.presets.map { Strategy($0.policy) } }

    /// The strategies a scenario defines (`strategies`: preset names or custom policy objects),
    /// or every preset when it defines none. Throws `ScenarioError.invalid` naming the path.
    public static func defined(by scenario: Scenario, source: String) throws(ScenarioError) -> [Strategy] {
        guard let value = scenario.strategies else { return presets }
        guard case .array(let items) = value, !items.isEmpty else {
            throw .invalid(source: source, path: "strategies", message: "expected a non-empty array of preset names or policy objects, found \(value.summary)")
        }
        var result: [Strategy] = []
        for (index, item) in items.enumerated() {
            let path = "strategies[\(index)]"
            switch item {
            case .string(let name):
                guard let policy = RetentionPolicy.named(name) else {
                    throw .invalid(source: source, path: path, message: "unknown preset \"\(name)\" (known: \(RetentionPolicy.presets.map(\.name).joined(separator: ", ")))")
                }
                result.append(Strategy(policy))
            case .object:
                do {
                    let data = try JSONEncoder().encode(item)
                    let policy = try JSONDecoder().decode(RetentionPolicy.self, from: data)
                    if RetentionPolicy.named(policy.name) != nil {
                        throw ScenarioError.invalid(source: source, path: path + ".name", message: "\"\(policy.name)\" is a preset's name; give the custom strategy its own name")
                    }
                    result.append(Strategy(policy))
                } catch let error as ScenarioError {
                    throw error
                } catch let error as DecodingError {
                    let inner = Scenario.scenarioError(from: error, tree: item, source: source)
                    if case .invalid(_, let innerPath, let message) = inner {
                        throw .invalid(source: source, path: innerPath.isEmpty ? path : path + "." + innerPath, message: message)
                    }
                    throw inner
                } catch {
                    throw .invalid(source: source, path: path, message: String(describing: error))
                }
            default:
                throw .invalid(source: source, path: path, message: "expected a preset name or a policy object, found \(item.summary)")
            }
        }
        var seen = Set<String>()
        for strategy in result where !seen.insert(strategy.name).inserted {
            throw .invalid(source: source, path: "strategies", message: "the name \"\(strategy.name)\" is used twice")
        }
        return result
    }

    /// Finds `name` among `available` (the scenario's strategies) or the presets; throws
    /// `LabError.unknownStrategy` listing what is known. O(strategies).
    public static func resolve(_ name: String, among available: [Strategy]) throws(LabError) -> Strategy {
        if let found = available.first(where: { $0.name == name }) { return found }
        if let preset = RetentionPolicy.named(name) { return Strategy(preset) }
        var known = available.map(\.name)
        for preset in presets.map(\.name) where !known.contains(preset) { known.append(preset) }
        throw .unknownStrategy(name, known: known)
    }
}
