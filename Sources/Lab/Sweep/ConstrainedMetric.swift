import SystemIO

/// The figure a constraint limits, for a grid's cells and a plot: the first of the
/// constraints set, in the order placeholder frames, hitches, wait p95, decodes, peak, disk peak.
public enum ConstrainedMetric: String, Sendable, Hashable, Codable {
    /// Placeholder frames.
    case placeholderFrames
    /// Hitches.
    case hitches
    /// The 95th-percentile time to image, in frames.
    case waitP95Frames
    /// Decodes per run.
    case decodes
    /// Peak resident memory.
    case peakResidentBytes
    /// The disk tier's peak.
    case diskPeakBytes

    /// How a report names it: `placeholder frames`. O(1).
    public var name: String {
        switch self {
        case .placeholderFrames: "placeholder frames"
        case .hitches: "hitches"
        case .waitP95Frames: "wait p95 frames"
        case .decodes: "decodes"
        case .peakResidentBytes: "peak resident MB"
        case .diskPeakBytes: "disk peak MB"
        }
    }

    /// Its worst repeat in `row`, as a cell shows it (`87`, `45.1`). O(1).
    public func figure(_ row: ComparisonSummary.Row) -> String {
        switch self {
        case .placeholderFrames: "\(SweepOutcome.worst(row.placeholderSpread, row.placeholderFrames))"
        case .hitches: "\(SweepOutcome.worst(row.hitchesSpread, row.hitches))"
        case .waitP95Frames: "\(SweepOutcome.waitP95(row))"
        case .decodes: "\(SweepOutcome.worst(row.decodesSpread, row.decodes))"
        case .peakResidentBytes: SystemIO.NumberText.mb(SweepOutcome.worst(row.peakSpread, row.peakBytes))
        case .diskPeakBytes: SystemIO.NumberText.mb(SweepOutcome.diskPeak(row))
        }
    }
}

extension SweepConstraints {
    /// The metric a grid's cells show: the first constraint set (placeholder frames without any). O(1).
    public var gridMetric: ConstrainedMetric {
        if maxPlaceholders != nil { return .placeholderFrames }
        if maxHitches != nil { return .hitches }
        if maxWaitP95Frames != nil { return .waitP95Frames }
        if maxDecodes != nil { return .decodes }
        if maxResidentBytes != nil { return .peakResidentBytes }
        if maxDiskBytes != nil { return .diskPeakBytes }
        return .placeholderFrames
    }
}
