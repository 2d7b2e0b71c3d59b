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
                                   describe: { "\(NumberText.mb($0.peakBytes)) MB" }) {
            lines.append(line)
        }
        if let line = Self.ranking(measured, label: "fewest hitches", value: { $0.hitches }, spread: { $0.hitchesSpread },
                                   describe: { "\(Self.plural($0.hitches, "hitch", "hitches")), \(Self.plural($0.placeholderFrames, "placeholder frame", "placeholder frames"))" }) {
            lines.append(line)
        }
        if measured.contains(where: { ($0.placeholderSpread.last ?? $0.placeholderFrames) > 0 }),
           let line = Self.ranking(measured, label: "fewest placeholder frames", value: { $0.placeholderFrames }, spread: { $0.placeholderSpread },
                                   describe: { Self.plural($0.placeholderFrames, "placeholder frame", "placeholder frames") }) {
            lines.append(line)
        }
        return lines
    }

    /// `1 hitch`, `2 hitches`: `count` and the word that goes with it. O(1).
    public static func plural(_ count: Int, _ one: String, _ many: String) -> String {
        NumberText.plural(count, one, many)
    }

    /// The best row by `value` (smaller is better), named alone only when it beats the next by
    /// more than both rows' spread (max − min across repeats); otherwise every row within that
    /// reach of the best is named as a tie. With fewer than 3 runs per row the spread cannot
    /// be judged, and the line says so; rows with exactly the best value are a tie all the
    /// same, whatever the number of runs. O(rows log rows).
    public static func ranking(_ rows: [Row], label: String, value: (Row) -> Int, spread: (Row) -> [Int], describe: (Row) -> String) -> String? {
        let sorted = rows.enumerated().sorted { (value($0.element), $0.offset) < (value($1.element), $1.offset) }.map(\.element)
        guard let best = sorted.first else { return nil }
        func width(_ row: Row) -> Int {
            let s = spread(row)
            return s.count == 2 ? s[1] - s[0] : 0
        }
        let judged = !sorted.contains(where: { $0.runs < repeatsForSpread })
        let tied = sorted.filter { row in
            row.strategy == best.strategy || (judged ? value(row) - value(best) <= max(width(best), width(row)) : value(row) == value(best))
        }
        let note = judged ? "" : "; fewer than \(repeatsForSpread) runs per strategy, so not judged against the spread across repeats"
        if tied.count == 1 {
            guard judged else { return "\(label): \(best.strategy) (\(describe(best)))" + note }
            let next = sorted.count > 1 ? sorted[1] : nil
            return "\(label): \(best.strategy) (\(describe(best)))" + (next.map { ", ahead of \($0.strategy) by more than either's spread across repeats" } ?? "")
        }
        let figures = Set(tied.map(describe))
        let names = figures.count == 1 ? tied.map(\.strategy) : tied.map { "\($0.strategy) (\(describe($0)))" }
        let list = names.count == 2 ? names.joined(separator: " and ") : names.dropLast().joined(separator: ", ") + " and " + names.last!
        let reach = judged ? ", within their spread across repeats" : ", exactly equal" + note
        return "\(label): a tie between \(list)" + (figures.count == 1 ? " (\(figures.first!) each)" : "") + reach
    }
}
