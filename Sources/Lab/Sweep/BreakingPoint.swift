import SystemIO

/// Where one strategy breaks as a condition (``SweepKey/Kind/condition``) gets harsher: the
/// harshest value tried at which every constraint holds in every repeat, and the first at which
/// one fails, with what fails.
public struct BreakingPoint: Sendable, Hashable, Codable {
    /// The strategy.
    public var strategy: String
    /// The harshest value held before the first failure; nil when it fails at the mildest value tried.
    public var holdsUpTo: Int?
    /// The first value at which a constraint fails; nil when it holds at every value tried.
    public var failsAt: Int?
    /// What fails at ``failsAt``, in words (`placeholder frames up to 87 > 60`); empty when nothing does.
    public var failures: [String]
    /// How many of the values tried it holds at, from the mildest: the width of its range.
    public var valuesHeld: Int
    /// Median peak resident bytes at ``holdsUpTo``: what holding costs there; nil without one.
    public var peakBytes: Int?
    /// The report's line: `thumbnail-lru holds placeholder frames ≤ 60 up to sourceLatencyMs.p95=400ms; fails at 800ms: placeholder frames up to 87 > 60`.
    public var line: String

    /// Reads `strategy`'s entries of `outcome` (values ascending, mildest first) against
    /// `constraints`. O(values).
    init(strategy: String, entries: [SweepOutcome.Entry], key: SweepKey, constraints: SweepConstraints) {
        self.strategy = strategy
        let held = entries.prefix { $0.failures.isEmpty }
        valuesHeld = held.count
        holdsUpTo = held.last?.point.value
        peakBytes = held.last?.row.peakBytes
        let broken = entries.dropFirst(held.count).first
        failsAt = broken?.point.value
        failures = broken?.failures ?? []
        let holds = "\(strategy) holds \(constraints.words)"
        let failure = broken.map { "\(key.format($0.point.value)): \($0.failures.joined(separator: ", "))" } ?? ""
        switch (held.last, broken) {
        case (let last?, nil):
            line = "\(holds) at every value tried, up to \(SweepSetting(key: key, value: last.point.value)): try harsher"
        case (nil, _) where entries.allSatisfy({ !$0.failures.isEmpty }):
            line = "\(strategy) fails at every value tried; at the mildest, \(failure)"
        case (nil, _):
            line = "\(strategy) fails at the mildest value tried, \(failure)"
        case (let last?, _):
            line = "\(holds) up to \(SweepSetting(key: key, value: last.point.value)); fails at \(failure)"
        }
    }
}

extension SweepConstraints {
    /// The limits in words, for a breaking point's line: `placeholder frames ≤ 60, hitches ≤ 2`. O(1).
    public var words: String {
        var parts: [String] = []
        if let limit = maxPlaceholders { parts.append("placeholder frames ≤ \(limit)") }
        if let limit = maxHitches { parts.append("hitches ≤ \(limit)") }
        if let limit = maxResidentBytes { parts.append("peak resident ≤ \(SystemIO.NumberText.mb(limit)) MB") }
        if let limit = maxDecodes { parts.append("decodes ≤ \(limit)") }
        if let limit = maxDiskBytes { parts.append("disk peak ≤ \(SystemIO.NumberText.mb(limit)) MB") }
        if let limit = maxWaitP95Frames { parts.append("wait p95 ≤ \(limit) frames") }
        return parts.joined(separator: ", ")
    }
}
