import Testing
@testable import Lab

/// Ranking lines name one strategy only when it wins by more than the runs' spread.
@Suite("Comparison summary")
struct ComparisonSummaryTests {
    static func row(_ name: String, peak: Int, spread: [Int], hitches: Int = 0, hitchSpread: [Int]? = nil, runs: Int = 3) -> ComparisonSummary.Row {
        ComparisonSummary.Row(strategy: name, runs: runs, failures: 0, startupBytes: 0, allLoadedBytes: 0, peakBytes: peak, peakSpread: spread,
                              afterDestroyBytes: 0, afterTrimBytes: 0, logicalPeakBytes: 0, decodes: 0, hitches: hitches,
                              hitchesSpread: hitchSpread ?? [hitches, hitches], placeholderFrames: 0, placeholderSpread: [0, 0], maxFrameMs: 0)
    }

    static func line(_ rows: [ComparisonSummary.Row]) -> String? {
        ComparisonSummary.ranking(rows, label: "lowest peak", value: { $0.peakBytes }, spread: { $0.peakSpread }, describe: { "\($0.peakBytes)" })
    }

    @Test("a clear winner is named, with the margin's meaning")
    func clearWinner() {
        let text = Self.line([Self.row("a", peak: 100, spread: [99, 101]), Self.row("b", peak: 120, spread: [118, 122])])
        #expect(text == "lowest peak: a (100), ahead of b by more than either's spread across repeats")
    }

    @Test("a difference within either spread is a tie, never a win by list order")
    func tie() {
        let text = Self.line([Self.row("b", peak: 104, spread: [100, 110]), Self.row("a", peak: 100, spread: [99, 101]), Self.row("c", peak: 300, spread: [300, 300])])
        #expect(text == "lowest peak: a tie between a (100) and b (104), within their spread across repeats")
        let equal = ComparisonSummary.ranking([Self.row("x", peak: 0, spread: [0, 0], hitches: 1), Self.row("y", peak: 0, spread: [0, 0], hitches: 1)],
                                              label: "fewest hitches", value: { $0.hitches }, spread: { $0.hitchesSpread }, describe: { "\($0.hitches) hitches" })
        #expect(equal == "fewest hitches: a tie between x and y (1 hitches each), within their spread across repeats")
    }

    @Test("with fewer than 3 runs the line says it was not judged against the spread")
    func fewRuns() {
        let text = Self.line([Self.row("a", peak: 100, spread: [100, 100], runs: 1), Self.row("b", peak: 101, spread: [101, 101], runs: 1)])
        #expect(text == "lowest peak: a (100); fewer than 3 runs per strategy, so not judged against the spread across repeats")
    }

    @Test("hitches and placeholders show their min–max when runs differ; MB keeps its sign")
    func cells() {
        #expect(NumberText.count(3, [1, 7]) == "3 (1–7)")
        #expect(NumberText.count(3, [3, 3]) == "3")
        #expect(NumberText.mb(-500_000) == "-0.5")
        #expect(NumberText.mb(-400_000) == "-0.4")
        #expect(NumberText.mb(-40_000) == "0.0")
        #expect(NumberText.mb(12_345_678) == "12.3")
        #expect(NumberText.megabytes(1_234_567) == "1.2 MB")
        #expect(NumberText.mb(-400_000.0) == "-0.4")
        #expect(NumberText.twoDecimals(-0.07) == "-0.07")
        #expect(NumberText.twoDecimals(12.5) == "12.50")
    }
}
