import SystemIO

/// A grid's answer at one condition value: the cheapest strategy and knob value whose points
/// hold every constraint at every condition value up to this one, and what it costs.
public struct GridAnswer: Sendable, Hashable, Codable {
    /// The condition's value held up to.
    public var conditionValue: Int
    /// The strategy named; nil when no strategy and knob value holds up to it.
    public var strategy: String?
    /// The knob's value named; nil with ``strategy``.
    public var knobValue: Int?
    /// The largest median peak resident bytes of the named points up to ``conditionValue``: the cost.
    public var peakBytes: Int?
    /// The report's line: `up to sourceLatencyMs.p95=800ms: thumbnail-lru bitmapBudget=16MB (peak 45.0 MB)`.
    public var line: String

    /// The answer at `grid.values[index]` over `entries` (every point of `plan`). O(points).
    init(plan: SweepPlan, grid: SweepPlan.Axis, index: Int, entries: [SweepOutcome.Entry]) {
        let condition = grid.values[index]
        let upTo = Set(grid.values.prefix(index + 1))
        conditionValue = condition
        // Per strategy and knob value: its points up to the condition, all holding, and their worst peak.
        var best: (strategy: String, value: Int, peak: Int, logical: Int)?
        for strategy in plan.strategies {
            for value in plan.values {
                let mine = entries.filter { $0.point.strategy == strategy && $0.point.value == value && upTo.contains($0.point.gridValue ?? -1) }
                guard mine.count == upTo.count, mine.allSatisfy({ $0.failures.isEmpty }) else { continue }
                let peak = mine.map(\.row.peakBytes).max() ?? 0
                let logical = mine.map(\.row.logicalPeakBytes).max() ?? 0
                // Cheaper resident peak by more than noise (SweepOutcome.peakTie) wins. Within
                // noise, the smaller logical peak (the model's own figure, the same in every run)
                // decides, and on a tie the first found (plan order, smaller knob) stays: two
                // points that keep the same bytes get the same answer in every process, whatever
                // their resident noise.
                if let current = best {
                    let cheaper = abs(peak - current.peak) > SweepOutcome.peakTie(min(peak, current.peak)) ? peak < current.peak : logical < current.logical
                    if cheaper { best = (strategy, value, peak, logical) }
                } else {
                    best = (strategy, value, peak, logical)
                }
                if !plan.key.isCategorical { break }   // the smallest value that holds is this strategy's cheapest
            }
        }
        strategy = best?.strategy
        knobValue = best?.value
        peakBytes = best?.peak
        let heading = "up to \(SweepSetting(key: grid.key, value: condition))"
        line = best.map { "\(heading): \($0.strategy) \(SweepSetting(key: plan.key, value: $0.value)) (peak up to \(SystemIO.NumberText.mb($0.peak)) MB)" }
            ?? "\(heading): no strategy and \(plan.key.rawValue) tried holds"
    }
}

extension SweepOutcome {
    /// Judges a grid of a knob (``SweepPlan/key``) and a condition (``SweepPlan/grid``): per
    /// condition value, the cheapest point holding up to it (``GridAnswer``); the recommendation
    /// is the answer at `constraints.holdUpTo`, or at the harshest value tried. O(points × grid values).
    static func judgeGrid(plan: SweepPlan, entries: [Entry], constraints: SweepConstraints) -> (Verdict, String?, String, [GridAnswer]) {
        guard let grid = plan.grid, !grid.values.isEmpty else { return (.nothingMeasured, nil, "the grid has no condition values", []) }
        let answers = grid.values.indices.map { GridAnswer(plan: plan, grid: grid, index: $0, entries: entries) }
        let target = constraints.holdUpTo ?? grid.values[grid.values.count - 1]
        let held = SweepSetting(key: grid.key, value: target)
        guard let answer = answers.last(where: { $0.conditionValue <= target }) else {
            return (.nearest, nil, "\(held) is milder than every value of the grid: nothing was measured there", answers)
        }
        guard let strategy = answer.strategy, let value = answer.knobValue else {
            let holding = answers.last { $0.strategy != nil }
            return (.nearest, nil, "no strategy and \(plan.key.rawValue) tried holds up to \(held)"
                    + (holding.map { "; the harshest held is \(SweepSetting(key: grid.key, value: $0.conditionValue)), by \($0.strategy!) \(SweepSetting(key: plan.key, value: $0.knobValue!))" } ?? "; none holds even at the mildest value tried"),
                    answers)
        }
        let label = "\(strategy) \(SweepSetting(key: plan.key, value: value)) \(SweepSetting(key: grid.key, value: answer.conditionValue))"
        var text = "\(strategy) \(SweepSetting(key: plan.key, value: value)) is the cheapest point that holds every constraint up to \(held)"
            + " (peak up to \(SystemIO.NumberText.mb(answer.peakBytes ?? 0)) MB)"
        if let row = entries.first(where: { $0.point.label == label })?.row { text += ": at \(grid.key.format(answer.conditionValue)), " + margins(row, constraints) }
        if answer.conditionValue == grid.values.last { text += "; it is the harshest value tried: try harsher to find where it breaks" }
        return (.met, label, text, answers)
    }
}
