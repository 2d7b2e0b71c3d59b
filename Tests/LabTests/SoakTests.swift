import Testing
@testable import Lab

@Suite("Soak verdicts")
struct SoakTests {
    static func samples(_ resident: [Int], warmup: Int = 0) -> [SoakSample] {
        resident.enumerated().map { i, bytes in
            SoakSample(iteration: i + 1, warmup: i < warmup, elapsedSeconds: Double(i) * 2, residentBytes: bytes, logicalBytes: 0,
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
        #expect(growing.slopeBytesPerHour == 58_000_000 * 1800)
        #expect(growing.text.contains("verdict: FAIL (growth)"))
        #expect(growing.text.contains("resident: first 100.0 MB, last 274.0 MB"))
        #expect(growing.outcome.exitStatus == 1)
    }

    @Test("broken invariants and failed iterations decide the outcome; too few iterations cannot pass")
    func otherOutcomes() {
        let steady = Self.samples([1, 1, 1, 1])
        let held = GrowthVerdict.decide(measured: steady, maxGrowthBytes: 16_000_000, violations: ["frame 9: rows still held 100 bytes after the container was destroyed"], failures: [])
        #expect(held.outcome == .growth && held.reasons.count == 1)
        let failed = GrowthVerdict.decide(measured: steady, maxGrowthBytes: 16_000_000, violations: [], failures: ["iteration 2: memory probes failed"])
        #expect(failed.outcome == .failedRun && failed.outcome.exitStatus == 2)
        let short = GrowthVerdict.decide(measured: Self.samples([1, 1]), maxGrowthBytes: 16_000_000, violations: [], failures: [])
        #expect(short.outcome == .failedRun)
        #expect(short.reasons == ["only 2 measured iterations after warm-up; at least 3 are needed to fit a slope"])
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
