import Testing
@testable import Lab

@Suite("Soak verdicts")
struct SoakTests {
    static func samples(_ resident: [Int], warmup: Int = 0) -> [SoakSample] {
        resident.enumerated().map { i, bytes in
            SoakSample(iteration: i + 1, warmup: i < warmup, elapsedSeconds: Double(i) * 2, residentBytes: bytes, anonymousBytes: bytes, logicalBytes: 0,
                       rowHeldBytes: 0, evictableBytes: 0, entries: 0, heapInUseBytes: 0, heapFreeHeldBytes: 0, decodes: 0, hitches: 0, rowsInList: 0)
        }
    }

    @Test("least-squares slope of fixed series")
    func slope() {
        #expect(GrowthVerdict.slope([]) == 0)
        #expect(GrowthVerdict.slope([5]) == 0)
        #expect(GrowthVerdict.slope([1, 2, 3, 4]) == 1)
        #expect(GrowthVerdict.slope([10, 10, 10]) == 0)
        #expect(GrowthVerdict.slope([0, 10, 0, 10, 0, 10]).isApproximatelyEqual(to: 15.0 / 17.5, within: 1e-9))
        #expect(GrowthVerdict.slope([100, 80, 60]) == -20)
    }

    @Test("the running fit stays exact over a million iterations at resident-memory magnitudes")
    func longFit() {
        var fit = SlopeFit()
        for i in 0..<1_000_000 { fit.add(90_000_000 + 3 * Double(i) + (i % 2 == 0 ? 4096 : -4096)) }
        #expect(fit.count == 1_000_000)
        #expect(abs(fit.slope - 3) < 1e-6)
    }

    @Test("a steady series passes; a growing one fails with the figures; a noisy flat one passes")
    func verdicts() {
        let flat = GrowthVerdict.decide(measured: Self.samples([90_000_000, 90_100_000, 89_900_000, 90_000_000]), maxGrowthBytes: 16_000_000, violations: [], failures: [])
        #expect(flat.outcome == .pass)
        let growing = GrowthVerdict.decide(measured: Self.samples([100_000_000, 158_000_000, 216_000_000, 274_000_000]), maxGrowthBytes: 16_000_000, violations: [], failures: [])
        #expect(growing.outcome == .growth)
        #expect(growing.slopeBytesPerIteration == 58_000_000)
        #expect(growing.projectedGrowthBytes == 174_000_000, "first to last is 3 steps of 58 MB")
        #expect(growing.slopeIntervalPerHour == nil, "2 s iterations are too short for a per-hour figure")
        #expect(growing.firstResidentBytes == 100_000_000 && growing.lastResidentBytes == 274_000_000)
        #expect(growing.outcome.exitStatus == 1)
    }

    @Test("the verdict fits anonymous memory: file pages the kernel drops and reloads do not make a flat soak inconclusive")
    func fileBackedPagesAreNotGrowth() {
        // VmRSS of a flat soak whose library pages were reclaimed after two iterations and read
        // back two later: 26.5 → 25.5 → 26.5 MB, with 11 MB anonymous throughout.
        let resident = [26_500_000, 26_500_000, 25_500_000, 25_500_000, 26_500_000, 26_500_000]
        let measured = resident.enumerated().map { i, bytes in
            SoakSample(iteration: i + 1, warmup: false, elapsedSeconds: Double(i), residentBytes: bytes, anonymousBytes: 11_000_000,
                       logicalBytes: 0, rowHeldBytes: 0, evictableBytes: 0, entries: 0, heapInUseBytes: 0, heapFreeHeldBytes: 0,
                       decodes: 0, hitches: 0, rowsInList: 0)
        }
        let verdict = GrowthVerdict.decide(measured: measured, maxGrowthBytes: 16_000_000, violations: [], failures: [])
        #expect(verdict.outcome == .pass)
        #expect(verdict.firstResidentBytes == 26_500_000 && verdict.lastResidentBytes == 26_500_000)
        #expect(verdict.firstAnonymousBytes == 11_000_000 && verdict.lastAnonymousBytes == 11_000_000)
        // The same series fitted on VmRSS would not pass: its interval straddles the rate.
        var fit = SlopeFit()
        for bytes in resident { fit.add(Double(bytes)) }
        #expect(fit.slopeInterval95.upper > 256_000)
    }

    @Test("broken invariants and failed iterations decide the outcome; too few iterations cannot pass")
    func otherOutcomes() {
        let steady = Self.samples([1, 1, 1, 1])
        let held = GrowthVerdict.decide(measured: steady, maxGrowthBytes: 16_000_000, violations: ["frame 9: rows still held 100 bytes after the container was destroyed"], failures: [])
        #expect(held.outcome == .growth && held.reasons.count == 1)
        let failed = GrowthVerdict.decide(measured: steady, maxGrowthBytes: 16_000_000, violations: [], failures: ["iteration 2: memory probes failed"])
        #expect(failed.outcome == .failedRun && failed.outcome.exitStatus == 2)
        let short = GrowthVerdict.decide(measured: Self.samples([1, 1]), maxGrowthBytes: 16_000_000, violations: [], failures: [])
        #expect(short.outcome == .inconclusive && short.outcome.exitStatus == 3)
        #expect(short.reasons == ["only 2 measured iterations after warm-up; at least 3 are needed to fit a slope"])
    }

    // MARK: - Rate rule

    @Test("the slope's 95 % interval matches the textbook formula")
    func confidenceInterval() throws {
        // y = 2x + noise over x = 0…5; by the formulas (python3): slope 2.048571, SSres 0.133714,
        // Sxx 17.5, se = sqrt(0.133714 / 4 / 17.5) = 0.043706, t(4) = 2.776.
        var fit = SlopeFit()
        for y in [0.1, 2.0, 4.3, 5.9, 8.2, 10.4] { fit.add(y) }
        #expect(fit.slope.isApproximatelyEqual(to: 2.048571, within: 1e-5))
        let error = try #require(fit.slopeStandardError)
        #expect(error.isApproximatelyEqual(to: 0.043706, within: 1e-5))
        let interval = fit.slopeInterval95
        #expect(interval.lower.isApproximatelyEqual(to: 1.927244, within: 1e-5))
        #expect(interval.upper.isApproximatelyEqual(to: 2.169899, within: 1e-5))
        #expect(SlopeFit.t95(degreesOfFreedom: 1) == 12.706)
        #expect(SlopeFit.t95(degreesOfFreedom: 30) == 2.042)
        #expect(SlopeFit.t95(degreesOfFreedom: 5000) == 1.960)
    }

    @Test("a steady 1 MB-per-iteration leak fails within 6 measured iterations although its total is under --max-growth")
    func slowLeakFails() {
        // 0.96 MB per iteration with ±50 KB of noise: 4.8 MB over 6 iterations, under 16 MB.
        let leak = GrowthVerdict.decide(measured: Self.samples([100.00, 101.01, 101.90, 102.93, 103.81, 104.83].map { Int($0 * 1_000_000) }),
                                        maxGrowthBytes: 16_000_000, violations: [], failures: [])
        #expect(leak.outcome == .growth)
        #expect(leak.projectedGrowthBytes < 16_000_000)
        #expect(leak.slopeLowerBytesPerIteration > 256_000)
        #expect(leak.reasons.first?.hasPrefix("retained memory grows 959.4 KB per iteration (95 % interval ") == true, "\(leak.reasons)")
    }

    @Test("an interval that straddles the rate is inconclusive, never a pass; per-hour rates convert")
    func straddles() {
        // Slope about 250 KB per iteration with 300 KB of noise over 4 points: too wide to decide.
        let noisy = GrowthVerdict.decide(measured: Self.samples([100.0, 100.55, 100.2, 100.95].map { Int($0 * 1_000_000) }),
                                         maxGrowthBytes: 16_000_000, violations: [], failures: [])
        #expect(noisy.outcome == .inconclusive, "\(noisy.slopeLowerBytesPerIteration)…\(noisy.slopeUpperBytesPerIteration)")
        #expect(noisy.reasons.last?.contains("straddles the allowed 256.0 KB per iteration") == true, "\(noisy.reasons)")
        #expect(noisy.moreIterationsToDecide != nil)
        // At 1,800 s per iteration, 1 GB per hour allows 500 MB per iteration.
        let hourly = GrowthRate.perHour(1_000_000_000).bytesPerIteration(meanSecondsPerIteration: 1800)
        #expect(hourly == 500_000_000)
        #expect(GrowthRate(parsing: "256KB") == .perIteration(256_000))
        #expect(GrowthRate(parsing: "1MB/iteration") == .perIteration(1_000_000))
        #expect(GrowthRate(parsing: "100MB/h") == .perHour(100_000_000))
        #expect(GrowthRate(parsing: "100MB/day") == nil)
        #expect(GrowthRate(parsing: "fast") == nil)
    }

    @Test("a glibc arena that keeps 64 MB of freed memory from iteration 4 on is not growth: the verdict fits retained memory")
    func allocatorArenaIsNotGrowth() {
        let measured = (0..<8).map { i -> SoakSample in
            let arena = i >= 3 ? 64_000_000 : 0
            return SoakSample(iteration: i + 1, warmup: false, elapsedSeconds: Double(i), residentBytes: 90_000_000 + arena,
                              anonymousBytes: 75_000_000 + arena + (i % 2) * 20_000, logicalBytes: 0, rowHeldBytes: 0, evictableBytes: 0,
                              entries: 0, heapInUseBytes: 160_000, heapFreeHeldBytes: 1_000_000 + arena, decodes: 0, hitches: 0, rowsInList: 0)
        }
        let verdict = GrowthVerdict.decide(measured: measured, maxGrowthBytes: 16_000_000, violations: [], failures: [])
        #expect(verdict.outcome == .pass, "\(verdict.reasons)")
        #expect(verdict.lastHeapFreeHeldBytes - verdict.firstHeapFreeHeldBytes == 64_000_000)
        // Fitted on anonymous memory alone, the same series fails.
        var anonymous = SlopeFit()
        for sample in measured { anonymous.add(Double(sample.anonymousBytes)) }
        #expect(anonymous.slopeInterval95.lower > 256_000)
    }

    @Test("--max-growth 0 allows none, and none passes; a per-hour rate is shown per hour and per iteration")
    func zeroAndHourly() {
        let flat = Self.samples([50_000_000, 50_000_000, 50_000_000, 50_000_000])
        #expect(GrowthVerdict.decide(measured: flat, maxGrowthBytes: 0, violations: [], failures: []).outcome == .pass)
        let hourly = GrowthVerdict.decide(measured: flat, maxGrowthBytes: 0, maxGrowthRate: .perHour(100_000_000), violations: [], failures: [])
        #expect(hourly.rateText == "100.0 MB per hour (55.6 KB per iteration at 2.00 s per iteration)")
        #expect(hourly.slopeIntervalPerHour != nil)
    }

    @Test("the iterations that would decide: more when the spread is wide, none needed once decided")
    func iterationsToDecide() {
        var fit = SlopeFit()
        for y in [0.0, 300_000, 100_000, 250_000, 50_000] { fit.add(y) }
        let more = fit.iterationsToDecide(rate: 256_000)
        #expect(more != nil && more! >= 1)
        var noisier = SlopeFit()
        for y in [0.0, 900_000, 300_000, 750_000, 150_000] { noisier.add(y) }
        #expect((noisier.iterationsToDecide(rate: 256_000) ?? .max) > more!)
    }

    @Test("durations accept s, m and h", arguments: [
        ("90s", 90.0), ("30m", 1800.0), ("2h", 7200.0), ("1.5h", 5400.0), ("1h30m", 5400.0), ("0.5s", 0.5),
    ])
    func durations(text: String, seconds: Double) {
        #expect(parseSoakDuration(text) == seconds)
    }

    @Test("bad durations are rejected", arguments: ["", "30", "m", "10x", "-5m", "0s", "5 m", "1h-"])
    func badDurations(text: String) {
        #expect(parseSoakDuration(text) == nil)
    }
}

extension Double {
    func isApproximatelyEqual(to other: Double, within tolerance: Double) -> Bool { abs(self - other) <= tolerance }
}
