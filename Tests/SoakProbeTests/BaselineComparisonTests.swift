import Testing
@testable import SoakProbe

/// A soak's slope against the main branch's: the intervals decide, beyond a minimum effect.
@Suite("Baseline comparison")
struct BaselineComparisonTests {
    @Test("grown only when this interval lies above the baseline's by more than the minimum effect")
    func decides() {
        func compare(_ interval: ClosedRange<Double>, effect: Double = 0) -> BaselineComparison {
            BaselineComparison(slope: (interval.lowerBound + interval.upperBound) / 2, interval: interval,
                               baselineSlope: 5_800_000, baselineInterval: 1_400_000...10_200_000, unit: "hour of use", minimumEffect: effect)
        }
        #expect(compare(51_100_000...86_000_000, effect: 4_000_000).grewSignificantly)
        #expect(!compare(12_000_000...20_000_000, effect: 4_000_000).grewSignificantly, "apart by less than the minimum effect")
        #expect(compare(12_000_000...20_000_000).grewSignificantly)
        #expect(!compare(9_000_000...30_000_000).grewSignificantly, "overlapping intervals")
        #expect(compare(51_100_000...86_000_000, effect: 4_000_000).description
                == "baseline: 68.6 MB per hour of use (51.1 MB to 86.0 MB) against the baseline's 5.8 MB (1.4 MB to 10.2 MB): grew significantly (this interval lies above the baseline's by more than 4.0 MB)")
        #expect(compare(-500_000...500_000).description.hasSuffix(": shrank (this interval lies below the baseline's)"))
        #expect(compare(12_000_000...20_000_000, effect: 4_000_000).description.hasSuffix(
            ": undecided (this interval spans the baseline's upper end plus the minimum effect of 4.0 MB, 14.2 MB: it may have grown by more than the minimum effect or not; more iterations narrow it)"))
        #expect(compare(9_000_000...30_000_000).description.hasSuffix(
            ": undecided (this interval spans the baseline's upper end, 10.2 MB: it may have grown by more than the minimum effect or not; more iterations narrow it)"))
        #expect(compare(2_000_000...14_000_000, effect: 4_000_000).description.hasSuffix(
            ": no significant growth (this interval lies at or below the baseline's upper end plus the minimum effect of 4.0 MB, 14.2 MB)"))
    }

    @Test("decided either way only when this interval lies wholly on one side of the baseline's upper end plus the minimum effect")
    func decision() {
        func compare(_ interval: ClosedRange<Double>) -> BaselineComparison.Decision {
            BaselineComparison(slope: interval.lowerBound, interval: interval, baselineSlope: 440_000, baselineInterval: 160_000...720_000,
                               unit: "hour of use", minimumEffect: 4_000_000).decision
        }
        #expect(compare(4_800_000...9_000_000) == .grew)
        #expect(compare(-500_000...4_720_000) == .withinEffect)
        #expect(compare(-571_500...12_000_000) == .undecided, "the 300 B-per-row feed after 11 measured iterations: it passed, exit 0")
    }
}
