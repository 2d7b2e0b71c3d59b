import SystemIO
extension ComparisonSummary {
    /// Repeats needed before a ranking line judges differences against the runs' spread.
    public static let repeatsForSpread = 3

    /// The ranking lines the table prints and exports hold: the lowest peak, the fewest
    /// hitches, and, when any strategy showed placeholder frames, the fewest placeholder frames
    /// (asynchronous runs all tie on zero hitches, however their placeholders differ). Rows of
    /// strategies with no successful run are left out. O(rows log rows).
    public var rankingLines: [String] {
        let measured = rows.filter { $0.runs > 0 }
        var lines: [String] = []
        if let line = Self.ranking(measured, label: "lowest peak", value: { $0.peakBytes }, spread: { $0.peakSpread },
                                   describe: { "\(SystemIO.NumberText.mb($0.peakBytes)) MB" }, minimumEffect: Self.peakEffect) {
            lines.append(line)
        }
        if let line = Self.ranking(measured, label: "fewest hitches", value: { $0.hitches }, spread: { $0.hitchesSpread },
                                   describe: { "\(Self.plural($0.hitches, "hitch", "hitches")), \(Self.plural($0.placeholderFrames, "placeholder frame", "placeholder frames"))" },
                                   minimumEffect: Self.countEffect) {
            lines.append(line)
        }
        if measured.contains(where: { ($0.placeholderSpread.last ?? $0.placeholderFrames) > 0 }),
           let line = Self.ranking(measured, label: "fewest placeholder frames", value: { $0.placeholderFrames }, spread: { $0.placeholderSpread },
                                   describe: { Self.plural($0.placeholderFrames, "placeholder frame", "placeholder frames") }, minimumEffect: Self.countEffect) {
            lines.append(line)
        }
        return lines
    }

    /// The smallest gap in peak resident memory a ranking calls a win: 2 % of the best peak
    /// or 1 MB, whichever is larger. A gap that clears both spreads by less is a tie: what a
    /// host's noise moves from one command to the next must not flip the answer. O(1).
    public static let peakEffect = MinimumEffect(fraction: 0.02, floor: 1_000_000, text: "2 % of the peak or 1 MB, whichever is larger")

    /// The smallest gap in hitches or placeholder frames a ranking calls a win: 2 % of the
    /// best count (any gap beside a count under 50). O(1).
    public static let countEffect = MinimumEffect(fraction: 0.02, floor: 0, text: "2 % of the count")

    /// The least a winner must lead by, beside the runs' spread: `fraction` of the best value,
    /// at least `floor`, described by `text`.
    public struct MinimumEffect: Sendable, Hashable {
        /// The share of the best value.
        public var fraction: Double
        /// The least, in the value's unit.
        public var floor: Int
        /// Its description, for the ranking's wording and the docs.
        public var text: String
        /// No minimum: only the spread decides.
        public static let none = MinimumEffect(fraction: 0, floor: 0, text: "")

        /// The minimum for a best value of `best`. O(1).
        public func of(_ best: Int) -> Int { max(floor, Int((Double(best) * fraction).rounded(.up))) }

        /// A minimum effect. O(1).
        public init(fraction: Double, floor: Int, text: String) {
            self.fraction = fraction
            self.floor = floor
            self.text = text
        }
    }

    /// `1 hitch`, `2 hitches`: `count` and the word that goes with it. O(1).
    public static func plural(_ count: Int, _ one: String, _ many: String) -> String {
        SystemIO.NumberText.plural(count, one, many)
    }

    /// The best row by `value` (smaller is better), named alone only when it beats the next by
    /// more than both rows' spread (max − min across repeats) and than `minimumEffect`;
    /// otherwise every row within that reach of the best is named as a tie. With fewer than 3
    /// runs per row the spread cannot be judged, and the line says so; rows with exactly the
    /// best value are a tie all the same, whatever the number of runs, and when every run of
    /// every tied row gave that value the line says "exactly equal in every run".
    /// O(rows log rows).
    public static func ranking(_ rows: [Row], label: String, value: (Row) -> Int, spread: (Row) -> [Int], describe: (Row) -> String,
                               minimumEffect: MinimumEffect = .none) -> String? {
        let sorted = rows.enumerated().sorted { (value($0.element), $0.offset) < (value($1.element), $1.offset) }.map(\.element)
        guard let best = sorted.first else { return nil }
        func width(_ row: Row) -> Int {
            let s = spread(row)
            return s.count == 2 ? s[1] - s[0] : 0
        }
        let effect = minimumEffect.of(value(best))
        let judged = !sorted.contains(where: { $0.runs < repeatsForSpread })
        let tied = sorted.filter { row in
            row.strategy == best.strategy || (judged ? value(row) - value(best) <= max(width(best), width(row), effect) : value(row) == value(best))
        }
        let note = judged ? "" : "; fewer than \(repeatsForSpread) runs per strategy, so not judged against the spread across repeats"
        let effectClause = minimumEffect.text.isEmpty ? "" : " and than \(minimumEffect.text)"
        if tied.count == 1 {
            guard judged else { return "\(label): \(best.strategy) (\(describe(best)))" + note }
            let next = sorted.count > 1 ? sorted[1] : nil
            return "\(label): \(best.strategy) (\(describe(best)))"
                + (next.map { ", ahead of \($0.strategy) by more than either's spread across repeats\(effectClause)" } ?? "")
        }
        let figures = Set(tied.map(describe))
        let names = figures.count == 1 ? tied.map(\.strategy) : tied.map { "\($0.strategy) (\(describe($0)))" }
        let list = names.count == 2 ? names.joined(separator: " and ") : names.dropLast().joined(separator: ", ") + " and " + names.last!
        let exact = tied.allSatisfy { value($0) == value(best) && width($0) == 0 }
        let reach: String
        if exact { reach = judged ? ", exactly equal in every run" : ", exactly equal" + note }
        else { reach = ", within their spread across repeats" + (minimumEffect.text.isEmpty ? "" : " or \(minimumEffect.text)") }
        return "\(label): a tie between \(list)" + (figures.count == 1 ? " (\(figures.first!) each)" : "") + reach
    }
}
