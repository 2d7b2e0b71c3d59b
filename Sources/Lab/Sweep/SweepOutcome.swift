import Imaging
import SystemIO

/// A sweep's results judged: per point its medians and spreads, the Pareto frontier over peak
/// resident and placeholder frames (hitches break ties), and the cheapest point that meets the
/// constraints in every repeat.
public struct SweepOutcome: Sendable, Hashable, Codable {
    /// One point with its summary.
    public struct Entry: Sendable, Hashable, Codable {
        /// The point.
        public var point: SweepPlan.Point
        /// Medians and spreads over its runs (`runs` 0 when every run failed or none ran).
        public var row: ComparisonSummary.Row
        /// On the frontier: no other point has a lower or equal peak and placeholder count,
        /// lower in one (or equal in both with fewer hitches).
        public var onFrontier: Bool
        /// Constraints this point breaks in some repeat, in words (empty when it meets all).
        public var failures: [String]
    }

    /// How the recommendation was reached.
    public enum Verdict: String, Sendable, Hashable, Codable {
        /// A point meets every constraint in every repeat.
        case met
        /// No point does; `recommended` is the nearest.
        case nearest
        /// No constraints were given; the frontier is the answer.
        case unconstrained
        /// No point has a measured run.
        case nothingMeasured = "nothing-measured"
    }

    /// Every point, in plan order.
    public var entries: [Entry]
    /// The constraints judged.
    public var constraints: SweepConstraints
    /// The verdict.
    public var verdict: Verdict
    /// The recommended (or nearest) point's label.
    public var recommended: String?
    /// Why, in one or two sentences: the margins, or what fails.
    public var reason: String
    /// For a sweep over a condition with constraints, where each strategy breaks, in plan
    /// order; nil for a knob's sweep.
    public var breakingPoints: [BreakingPoint]? = nil
    /// For a grid with constraints, the cheapest point that holds up to each condition value,
    /// mildest first; nil otherwise.
    public var gridAnswers: [GridAnswer]? = nil

    /// Judges `summary` (rows labelled by point) of `plan` against `constraints`.
    /// O(points²) for the frontier.
    public init(plan: SweepPlan, summary: ComparisonSummary, constraints: SweepConstraints) {
        self.constraints = constraints
        let rows = Dictionary(summary.rows.map { ($0.strategy, $0) }, uniquingKeysWith: { a, _ in a })
        var entries: [Entry] = plan.points.map { point in
            let row = rows[point.label] ?? ComparisonSummary(results: [], strategies: [point.label]).rows[0]
            return Entry(point: point, row: row, onFrontier: false, failures: Self.failures(row, constraints))
        }
        let measured = entries.indices.filter { entries[$0].row.runs > 0 }
        for i in measured {
            let p = entries[i].row
            entries[i].onFrontier = !measured.contains { j in
                guard j != i else { return false }
                let q = entries[j].row
                guard q.peakBytes <= p.peakBytes, q.placeholderFrames <= p.placeholderFrames else { return false }
                if q.peakBytes < p.peakBytes || q.placeholderFrames < p.placeholderFrames { return true }
                return q.hitches < p.hitches || (q.hitches == p.hitches && j < i)
            }
        }
        self.entries = entries
        let candidates = measured.map { entries[$0] }
        guard !candidates.isEmpty else {
            verdict = .nothingMeasured
            recommended = nil
            reason = "no point has a successful run"
            return
        }
        func cheaper(_ a: Entry, _ b: Entry) -> Bool {
            (a.row.peakBytes, a.row.hitches, a.point.value) < (b.row.peakBytes, b.row.hitches, b.point.value)
        }
        if constraints.isEmpty {
            verdict = .unconstrained
            recommended = nil
            reason = "no constraints given (\([LabTerm.maxPlaceholders, .maxHitches, .maxResident, .maxDecodes, .maxDisk, .maxWaitP95].map(\.spelled).joined(separator: ", "))): the frontier (*) is the answer"
            return
        }
        if plan.grid != nil {
            (verdict, recommended, reason, gridAnswers) = Self.judgeGrid(plan: plan, entries: entries, constraints: constraints)
            return
        }
        if plan.key.kind == .condition {
            (verdict, recommended, reason, breakingPoints) = Self.judgeCondition(plan: plan, entries: entries, constraints: constraints)
            return
        }
        let meeting = candidates.filter { $0.failures.isEmpty }
        if let lowest = meeting.min(by: cheaper) {
            // Peaks within the repeats' spread of the lowest (at least 2 % of it or 1 MB, the
            // noise of resident memory between identical runs) are a tie; of tied points the
            // smallest value is named, so a re-run gives the same answer.
            func width(_ row: ComparisonSummary.Row) -> Int { row.peakSpread.count == 2 ? row.peakSpread[1] - row.peakSpread[0] : 0 }
            let tied = meeting.filter { $0.row.peakBytes - lowest.row.peakBytes <= max(width(lowest.row), width($0.row), Self.peakTie(lowest.row.peakBytes)) }
            // A category has no smallest value: its tied points are named in plan order.
            func rank(_ entry: Entry) -> (Int, Int) {
                let order = plan.strategies.firstIndex(of: entry.point.strategy) ?? 0
                return plan.key.isCategorical ? (order, entry.point.value) : (entry.point.value, order)
            }
            let best = tied.min { rank($0) < rank($1) }!
            verdict = .met
            recommended = best.point.label
            var text = "\(best.point.label) is the cheapest point that meets every constraint in \(best.row.runs == 1 ? "its one repeat" : "all \(best.row.runs) repeats"): " + Self.margins(best.row, constraints)
            if let admission = plan.admissions[best.point.label], admission.admitsNothing {
                text += "; note: at this value its LRU admits no image (the largest bitmap, \(SystemIO.NumberText.megabytes(admission.largestBytes)), is over the \(SystemIO.NumberText.megabytes(admission.capBytes)) admission cap), so it caches nothing beyond visible rows: what meets the constraints is the source (or a disk tier), not this budget, and any smaller budget would do as well"
            }
            // The answer lies at the edge of what was tried: say so, and what to try next.
            if !plan.key.isCategorical, best.point.value == plan.values.first, plan.values.count > 1 || plan.values.first ?? 0 > 0 {
                let smaller = best.point.value / 2
                text += "; it is the smallest \(plan.key.rawValue) tried, so a smaller one may do too"
                    + (smaller > 0 && smaller < best.point.value ? " (try \(LabTerm.values.spelled) \(plan.key.format(smaller)),\(plan.key.format(best.point.value)))" : "")
            }
            if tied.count > 1, plan.key.isCategorical {
                let others = tied.filter { $0.point.label != best.point.label }.map(\.point.label).joined(separator: ", ")
                text += "; a tie: its peak is within the repeats' spread of \(others), and \(plan.key.rawValue) is a category without order: the tie stays a tie (named first: the first value given)"
            } else if tied.count > 1 {
                text += "; its peak ties with \(tied.count - 1) other point\(tied.count == 2 ? "" : "s") within the repeats' spread, of which it has the smallest \(plan.key.rawValue)"
            }
            // The next smaller value of the same strategy, if measured: why it is not enough.
            if !plan.key.isCategorical, let below = entries.last(where: { $0.point.strategy == best.point.strategy && $0.point.value < best.point.value && $0.row.runs > 0 }),
               !below.failures.isEmpty {
                text += "; the next value down, \(plan.key.format(below.point.value)), fails: " + below.failures.joined(separator: ", ")
            }
            reason = text
        } else {
            verdict = .nearest
            let nearest = candidates.min { (Self.excess($0.row, constraints), $0.row.peakBytes) < (Self.excess($1.row, constraints), $1.row.peakBytes) }!
            recommended = nearest.point.label
            reason = "no point meets every constraint in every repeat; the nearest is \(nearest.point.label), which fails: " + nearest.failures.joined(separator: ", ")
        }
    }

    /// Peak differences up to this were a tie whatever the spread. Sweeps now tie peaks within
    /// ``ComparisonSummary/peakEffect`` (2 % of the peak or 1 MB), as compare's rankings do:
    /// 0.5 MB let the answer of a grid flip between two runs of the same points.
    @available(*, deprecated, message: "sweeps tie peaks within ComparisonSummary.peakEffect.of(_:), as compare's rankings do")
    public static let peakNoiseBytes = 500_000

    /// The peak difference from `cheapest` bytes that is still a tie: ``ComparisonSummary/peakEffect``,
    /// what a host's noise can open between two runs of the same point. O(1).
    static func peakTie(_ cheapest: Int) -> Int { ComparisonSummary.peakEffect.of(cheapest) }

    /// The constraints `row` breaks in its worst repeat, in words; a failed run breaks them all.
    static func failures(_ row: ComparisonSummary.Row, _ c: SweepConstraints) -> [String] {
        guard row.runs > 0 else { return ["no successful run"] }
        var list: [String] = []
        if row.failures > 0 { list.append("\(row.failures) failed run\(row.failures == 1 ? "" : "s")") }
        if let limit = c.maxPlaceholders, worst(row.placeholderSpread, row.placeholderFrames) > limit {
            list.append("placeholder frames up to \(worst(row.placeholderSpread, row.placeholderFrames)) > \(limit)")
        }
        if let limit = c.maxHitches, worst(row.hitchesSpread, row.hitches) > limit {
            list.append("hitches up to \(worst(row.hitchesSpread, row.hitches)) > \(limit)")
        }
        if let limit = c.maxResidentBytes, worst(row.peakSpread, row.peakBytes) > limit {
            list.append("peak resident up to \(SystemIO.NumberText.mb(worst(row.peakSpread, row.peakBytes))) MB > \(SystemIO.NumberText.mb(limit)) MB")
        }
        if let limit = c.maxDecodes, worst(row.decodesSpread, row.decodes) > limit {
            list.append("decodes up to \(worst(row.decodesSpread, row.decodes)) > \(limit)")
        }
        if let limit = c.maxDiskBytes, diskPeak(row) > limit {
            list.append("disk peak up to \(SystemIO.NumberText.mb(diskPeak(row))) MB > \(SystemIO.NumberText.mb(limit)) MB")
        }
        if let limit = c.maxWaitP95Frames, waitP95(row) > limit {
            list.append("wait p95 up to \(waitP95(row)) frames > \(limit)")
        }
        return list
    }

    /// The largest disk peak over the repeats; 0 for a strategy without a disk tier.
    static func diskPeak(_ row: ComparisonSummary.Row) -> Int {
        row.disk.map { worst($0.peakSpread, $0.peakBytes) } ?? 0
    }

    /// The largest 95th-percentile time to image over the repeats, in frames; 0 when the runs
    /// did not measure it.
    static func waitP95(_ row: ComparisonSummary.Row) -> Int {
        row.wait.map { worst($0.p95Spread, $0.p95Frames) } ?? 0
    }

    /// The largest value over the repeats (the spread's max, or the median without one).
    static func worst(_ spread: [Int], _ median: Int) -> Int { spread.count == 2 ? spread[1] : median }

    /// How far `row` is beyond the constraints, each excess relative to its limit, summed.
    static func excess(_ row: ComparisonSummary.Row, _ c: SweepConstraints) -> Double {
        var total = row.failures > 0 ? 1.0 : 0
        func add(_ value: Int, _ limit: Int?) {
            guard let limit, value > limit else { return }
            total += (Double(value) - Double(limit)) / Double(max(limit, 1))  // in Double: a merged export's limit may be any Int
        }
        add(worst(row.placeholderSpread, row.placeholderFrames), c.maxPlaceholders)
        add(worst(row.hitchesSpread, row.hitches), c.maxHitches)
        add(worst(row.peakSpread, row.peakBytes), c.maxResidentBytes)
        add(worst(row.decodesSpread, row.decodes), c.maxDecodes)
        add(diskPeak(row), c.maxDiskBytes)
        add(waitP95(row), c.maxWaitP95Frames)
        return total
    }

    /// The margins of a point that meets the constraints, worst repeat against each limit.
    static func margins(_ row: ComparisonSummary.Row, _ c: SweepConstraints) -> String {
        var parts: [String] = []
        if let limit = c.maxResidentBytes {
            let peak = worst(row.peakSpread, row.peakBytes)
            parts.append("peak resident up to \(SystemIO.NumberText.mb(peak)) MB of \(SystemIO.NumberText.mb(limit)) MB allowed (\(SystemIO.NumberText.mb(limit - peak)) MB to spare)")
        } else {
            parts.append("peak resident \(SystemIO.NumberText.mb(row.peakBytes)) MB")
        }
        if let limit = c.maxPlaceholders {
            parts.append("placeholder frames up to \(worst(row.placeholderSpread, row.placeholderFrames)) of \(limit) allowed")
        }
        if let limit = c.maxHitches {
            parts.append("hitches up to \(worst(row.hitchesSpread, row.hitches)) of \(limit) allowed")
        }
        if let limit = c.maxDecodes {
            parts.append("decodes up to \(worst(row.decodesSpread, row.decodes)) of \(limit) allowed")
        }
        if let limit = c.maxDiskBytes {
            parts.append("disk peak up to \(SystemIO.NumberText.mb(diskPeak(row))) MB of \(SystemIO.NumberText.mb(limit)) MB allowed")
        }
        if let limit = c.maxWaitP95Frames {
            parts.append("wait p95 up to \(waitP95(row)) of \(limit) frames allowed")
        }
        return parts.joined(separator: ", ")
    }
}
