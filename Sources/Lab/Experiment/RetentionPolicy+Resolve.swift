import Retention

extension RetentionPolicy {
    /// Finds `name` among `available` (a scenario's strategies) or the presets; throws
    /// `LabError.unknownStrategy` listing what is known. O(strategies).
    public static func resolve(_ name: String, among available: [RetentionPolicy]) throws(LabError) -> RetentionPolicy {
        if let found = available.first(where: { $0.name == name }) { return found }
        if let preset = RetentionPolicy.named(name) { return preset }
        var known = available.map(\.name)
        for preset in presets.map(\.name) where !known.contains(preset) { known.append(preset) }
        throw .unknownStrategy(name, known: known)
    }
}
