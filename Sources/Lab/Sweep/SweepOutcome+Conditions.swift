import SystemIO

extension SweepOutcome {
    /// Judges a sweep over a condition: per strategy its ``BreakingPoint``; the recommendation
    /// is the strategy that holds over the widest range of values from the mildest (ties: the
    /// lower peak where it last holds, peaks within noise in plan order), at its harshest held
    /// value, with its cost. Never suggests a milder value: the world chooses it. O(points).
    static func judgeCondition(plan: SweepPlan, entries: [Entry], constraints: SweepConstraints)
        -> (Verdict, String?, String, [BreakingPoint]) {
        let key = plan.key
        let points = plan.strategies.map { strategy in
            BreakingPoint(strategy: strategy, entries: entries.filter { $0.point.strategy == strategy }, key: key, constraints: constraints)
        }
        let widest = points.map(\.valuesHeld).max() ?? 0
        guard widest > 0 else {
            let mildest = entries.filter { $0.point.value == plan.values.first && $0.row.runs > 0 }
            let nearest = mildest.min { (excess($0.row, constraints), $0.row.peakBytes) < (excess($1.row, constraints), $1.row.peakBytes) }
            let text = "every strategy fails at every value tried from the mildest, \(key.format(plan.values.first ?? 0))"
                + (nearest.map { "; the nearest there is \($0.point.label), which fails: " + $0.failures.joined(separator: ", ") } ?? "")
            return (.nearest, nearest?.point.label, text, points)
        }
        let holding = points.filter { $0.valuesHeld == widest }
        let cheapest = holding.compactMap(\.peakBytes).min() ?? 0
        // Peaks within noise of the cheapest tie; of those, the first in the order given.
        let tied = holding.filter { ($0.peakBytes ?? 0) - cheapest <= peakTie(cheapest) }
        let best = tied[0]
        let value = best.holdsUpTo ?? 0
        let label = "\(best.strategy) \(SweepSetting(key: key, value: value))"
        let row = entries.first { $0.point.label == label }?.row
        var text = "\(best.strategy) holds over the widest range, up to \(SweepSetting(key: key, value: value)) (\(widest) of \(plan.values.count) value\(plan.values.count == 1 ? "" : "s") tried)"
        if let row { text += ", costing " + margins(row, constraints) + " there" }
        text += best.failsAt.map { "; it fails at \(key.format($0)): " + best.failures.joined(separator: ", ") } ?? "; it holds at every value tried: try harsher"
        if tied.count > 1 {
            text += "; it ties in range and cost with " + tied.dropFirst().map(\.strategy).joined(separator: ", ") + " (named first: the first in the order given)"
        }
        let dearer = holding.filter { point in !tied.contains { $0.strategy == point.strategy } }
        if !dearer.isEmpty {
            text += "; " + dearer.map { "\($0.strategy) (\(SystemIO.NumberText.mb($0.peakBytes ?? 0)) MB)" }.joined(separator: ", ")
                + " hold\(dearer.count == 1 ? "s" : "") as far at a higher peak"
        }
        let narrower = points.filter { $0.valuesHeld < widest }.map { point in
            point.holdsUpTo.map { "\(point.strategy) only up to \(key.format($0))" } ?? "\(point.strategy) at no value tried"
        }
        if !narrower.isEmpty { text += "; " + narrower.joined(separator: ", ") }
        return (.met, label, text, points)
    }
}
