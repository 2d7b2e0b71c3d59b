import SystemIO
import SoakProbe
import Testing

/// A fill from a leak, a step from growth, a figure finer than the measure: the verdict on
/// synthetic series whose shape is known.
@Suite struct GrowthKneeTests {
    /// Evidence of `values`, measured after `warmup` iterations, each placed at its iteration.
    func evidence(_ values: [Double], warmup: Int) -> SoakEvidence {
        var evidence = SoakEvidence()
        for (index, value) in values.enumerated() {
            let bytes = Int(value.rounded())
            evidence.add(RetainedSample(retainedBytes: bytes, residentBytes: bytes, anonymousBytes: bytes, freeHeldBytes: nil),
                         iteration: Double(warmup + index + 1))
        }
        return evidence
    }

    /// A Python `lru_cache(maxsize=256)` fed ten 40 KB values an iteration: 400 KB more each
    /// iteration until iteration 26, then flat, with a page of noise either way.
    func lruCache(iterations: Int, warmup: Int = 2) -> [Double] {
        (1...iterations).map { index in
            let iteration = warmup + index
            return 9_000_000 + 400_000 * Double(min(iteration, 26)) + (iteration % 3 == 0 ? 4_096 : 0)
        }
    }

    /// The same rate as ``lruCache(iterations:warmup:)``, never bounded.
    func leak(iterations: Int, warmup: Int = 2) -> [Double] {
        (1...iterations).map { index in 9_000_000 + 400_000 * Double(warmup + index) + (index % 3 == 0 ? 4_096 : 0) }
    }

    @Test func aFillingCacheThatStopsPassesAndNamesTheFill() {
        let verdict = SoakVerdict.decide(evidence(lruCache(iterations: 198), warmup: 2), warmup: 2,
                                         limit: .perIteration(.kilobytes(64)), measure: .anonymous, minimumIterationsToPass: 10)
        #expect(verdict.outcome == .pass, "\(verdict)")
        #expect(verdict.fill?.lastGrowingIteration == 26, "\(verdict)")
        #expect(verdict.notes.contains { $0.hasPrefix("a fill ending at iteration 26: anonymous memory rose ") }, "\(verdict)")
        #expect(abs(verdict.slopeBytesPerIteration) < 1_000, "judged on what follows the fill: \(verdict)")
    }

    @Test func aFillWhoseFlatPartIsStillShortIsNamedNeverFailed() {
        // 24 measured iterations of growth, then 12 flat (at least the 10 a pass needs, to call
        // growth stopped): too short a flat part to judge on yet.
        let verdict = SoakVerdict.decide(evidence(lruCache(iterations: 36), warmup: 2), warmup: 2,
                                         limit: .perIteration(.kilobytes(64)), measure: .anonymous, minimumIterationsToPass: 10)
        #expect(verdict.outcome == .inconclusive, "\(verdict)")
        #expect(verdict.reasons.contains { $0.hasPrefix("growth stopped after iteration 26: ") && $0.contains("a cache filling to its bound does this") },
                "\(verdict)")
        #expect((10...14).contains(verdict.moreIterationsToDecide ?? 0), "the flat part must last as long as the 24 iterations of growth: \(verdict)")
    }

    @Test func aLeakOfTheSameRateFails() {
        let verdict = SoakVerdict.decide(evidence(leak(iterations: 40), warmup: 2), warmup: 2,
                                         limit: .perIteration(.kilobytes(64)), measure: .anonymous, minimumIterationsToPass: 10)
        #expect(verdict.outcome == .growth, "\(verdict)")
        #expect(verdict.fill == nil, "\(verdict)")
        #expect(verdict.reasons.first?.hasPrefix("anonymous memory grows 400.0 KB per iteration") == true, "\(verdict)")
    }

    @Test func aLeakFailsWithinTheFillAllowancePlusADozenIterations() {
        var loop = SoakLoop(iterations: .untilVerdict(max: 200), minimumIterationsToPass: 10, warmup: 2)
        var values: [Double] = []
        while loop.wantsMore {
            values.append(9_000_000 + 400_000 * Double(values.count))
            loop.record(SoakVerdict.decide(evidence(values, warmup: 2), warmup: 2, limit: .perIteration(.kilobytes(64)),
                                           measure: .anonymous, minimumIterationsToPass: 10).outcome)
        }
        #expect(loop.decided && 2 + loop.measured <= GrowthRule.fillAllowance + 12, "\(loop.measured) measured")
        #expect(2 + loop.measured >= GrowthRule.fillAllowance, "a FAIL waits for the fill allowance: \(loop.measured) measured")
    }

    @Test func aFailWhoseGrowthSlowedSaysHowToRuleAFillOut() {
        // 400 KB per iteration for 20 iterations, then 100 KB: slower, still above 64 KB.
        let values: [Double] = (0..<40).map { (index: Int) -> Double in
            let fast = 400_000 * Double(min(index, 20))
            let slow = 100_000 * Double(max(0, index - 20))
            return 9_000_000 + fast + slow
        }
        let verdict = SoakVerdict.decide(evidence(values, warmup: 2), warmup: 2, limit: .perIteration(.kilobytes(64)),
                                         measure: .anonymous, minimumIterationsToPass: 10)
        #expect(verdict.outcome == .growth, "\(verdict)")
        #expect(verdict.reasons.contains { $0.hasPrefix("growth slowed after iteration 2") && $0.contains("run more iterations, or a warm-up past iteration 2") && $0.hasSuffix(", to rule a fill out") },
                "\(verdict)")
    }

    @Test func aStepThenFlatIsNotGrowth() {
        // One 80-byte step after the first measured iteration, then 7 flat: the 8
        // iterations under --max-growth 0, which failed 3 of 3.
        let values = [50_000_000.0] + Array(repeating: 50_000_080, count: 7)
        let verdict = SoakVerdict.decide(evidence(values, warmup: 2), warmup: 2, limit: .perIteration(.kilobytes(4)), measure: .retained)
        #expect(verdict.outcome == .pass, "\(verdict)")
        #expect(verdict.slopeLowerBytesPerIteration <= 0, "\(verdict)")
        // A step far above the measure's resolution, then flat for longer than the step's head.
        let big = [50_000_000.0] + Array(repeating: 50_800_000, count: 7)
        let stepped = SoakVerdict.decide(evidence(big, warmup: 2), warmup: 2, limit: .perIteration(.kilobytes(4)), measure: .retained)
        // The first measured iteration is 3; the step shows in iteration 4, the last that grew.
        #expect(stepped.fill?.lastGrowingIteration == 4 && stepped.fill?.accepted == true, "\(stepped)")
        #expect(stepped.outcome == .pass, "\(stepped)")
        // With a limit of 0 no finite measure can pass it (the page it reads in is wider), but
        // the step is no FAIL either.
        let zero = SoakVerdict.decide(evidence(big, warmup: 2), warmup: 2, limit: .perIteration(0), measure: .retained)
        #expect(zero.outcome == .inconclusive, "\(zero)")
    }

    @Test func anIntervalNarrowerThanAPageIsWidenedAndSaysSo() {
        // 20 bytes more each iteration, exactly: the residual spread is zero, so the bare
        // interval would be 20 to 20 B per iteration, a certain FAIL of a zero limit. A measure
        // read in pages cannot tell 20 B per iteration over 6 iterations.
        let values = (0..<6).map { 1_000_000 + 20 * Double($0) }
        let verdict = SoakVerdict.decide(evidence(values, warmup: 0), warmup: 0, limit: .perIteration(0), measure: .retained)
        #expect(verdict.widenedToResolution, "\(verdict)")
        #expect(verdict.outcome == .inconclusive, "\(verdict)")
        let page = verdict.resolutionBytes
        #expect(page >= 4_096)
        // Resolution ÷ 2 × Σ|x − x̄| ÷ Σ(x − x̄)² over 6 evenly spaced points: page × 9 ÷ 35.
        #expect(abs((verdict.slopeUpperBytesPerIteration - verdict.slopeBytesPerIteration) - page * 9 / 35) < 1e-6, "\(verdict)")
        #expect(verdict.notes.contains { $0.hasPrefix("the slope's 95 % interval was widened to ± ") && $0.contains("-byte pages can resolve over 6 iterations") },
                "\(verdict)")
        // Growth well above the resolution is not widened.
        let growing: [Double] = (0..<6).map { (index: Int) -> Double in 1_000_000 + 64_000 * Double(index) + Double(index % 2) * 9_000 }
        let leak = SoakVerdict.decide(evidence(growing, warmup: 0), warmup: 0,
                                      limit: .perIteration(.kilobytes(4)), measure: .retained)
        #expect(!leak.widenedToResolution && leak.outcome == .growth, "\(leak)")
    }

    @Test func theSeriesKeepsItsShapeInBoundedMemory() {
        var series = RetainedSeries()
        for i in 0..<5_000 { series.append(x: Double(i), y: Double(min(i, 1_000)) * 10) }
        #expect(series.points.count <= RetainedSeries.capacity)
        #expect(series.points.count >= RetainedSeries.capacity / 2)
        let fit = series.fit(0..<series.points.count)
        #expect(fit.slope > 0)
        #expect(series.points.last.map { $0.y == 10_000 } == true)
    }
}
