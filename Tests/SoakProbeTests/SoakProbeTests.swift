import SoakProbe
import SystemIO
import Testing

/// SoakProbe.measure on closures whose growth is known. Each soak runs alone in a fresh
/// `MemoryCheck soak-probe KIND` child: resident memory is the whole process's, and the tests
/// of this process run in parallel.
@Suite struct SoakProbeMeasureTests {
    /// Runs `MemoryCheck soak-probe KIND` and returns its `key value` lines.
    func check(_ kind: String) throws -> [String: String] {
        let here = FileIO.executablePath ?? CommandLine.arguments[0]
        let outcome = try ChildProcess(executable: FileIO.directory(of: here) + "/MemoryCheck", arguments: ["soak-probe", kind],
                                       timeoutSeconds: 120).run()
        let output = String(decoding: outcome.stdout, as: UTF8.self)
        #expect(outcome.exitStatus == 0, "MemoryCheck soak-probe \(kind): \(output) \(String(decoding: outcome.stderr, as: UTF8.self))")
        var values: [String: String] = [:]
        for line in output.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0])] = String(parts[1]) }
        }
        return values
    }

    @Test func aClosureThatKeeps64KBEveryCallFails() throws {
        let result = try check("leak")
        #expect(result["outcome"] == "growth", "\(result["verdict"] ?? "no verdict")")
        #expect(result["verdict"]?.hasPrefix("FAIL (growth): retained memory slope") == true)
        #expect(result["verdict"]?.contains("lies above the allowed 4.0 KB per iteration") == true, "\(result["verdict"] ?? "")")
    }

    @Test func aBoundedLRUOf64KBBuffersPasses() throws {
        let result = try check("lru")
        #expect(result["outcome"] == "pass", "\(result["verdict"] ?? "no verdict")")
    }

    @Test func allocatingAndFreeingAMegabyteEveryCallIsNotGrowth() throws {
        let result = try check("churn")
        #expect(result["outcome"] == "pass", "\(result["verdict"] ?? "no verdict")")
    }

    @Test func aPerRequestLimitScalesWithTheRequestsEachCallReports() throws {
        let within = try check("units")
        #expect(within["outcome"] == "pass", "\(within["verdict"] ?? "no verdict")")
        #expect(within["verdict"]?.contains("allowed 16.0 KB per request (80.0 KB per iteration)") == true, "\(within["verdict"] ?? "")")
        let strict = try check("units-strict")
        #expect(strict["outcome"] == "growth", "\(strict["verdict"] ?? "no verdict")")
        #expect(strict["verdict"]?.contains("allowed 2.0 KB per request (10.0 KB per iteration)") == true, "\(strict["verdict"] ?? "")")
    }

    /// A Swift memo of 40 entries filling while it is measured, default flags: it passes,
    /// naming the fill, or is still undecided about the fill; never a FAIL.
    @Test func aMemoOf40FillingWhileMeasuredIsNotALeak() throws {
        let result = try check("memo")
        let outcome = result["outcome"] ?? ""
        #expect(outcome == "pass" || outcome == "inconclusive", "\(outcome): \(result["verdict"] ?? "no verdict")")
        #expect(result["verdict"]?.contains("a fill ending at iteration") == true, "\(result["verdict"] ?? "")")
    }

    /// A closure that frees 64 KB a call: the slope certainly lies below zero, which is never
    /// a pass (interference, or a warm-up too short).
    @Test func aCertainlyShrinkingClosureIsNotPassed() throws {
        let result = try check("shrink")
        #expect(result["outcome"] == "inconclusive", "\(result["verdict"] ?? "no verdict")")
        #expect(result["passed"] == "0")
    }

    /// A soak beside a parallel test that allocates gives the verdict it gives alone, or
    /// INCONCLUSIVE naming the interference: never a FAIL of the bounded code, never a PASS of
    /// the leak.
    @Test(arguments: [("parallel-leak", "growth"), ("parallel-lru", "pass")])
    func besideAnAllocatingThreadTheVerdictIsRightOrNamesTheInterference(kind: String, alone: String) throws {
        let result = try check(kind)
        let outcome = result["outcome"] ?? ""
        #expect(outcome == alone || outcome == "inconclusive", "\(outcome): \(result["interference"] ?? ""): \(result["verdict"] ?? "no verdict")")
        if outcome == "inconclusive" {
            #expect(result["verdict"]?.contains("reason: interference: ") == true, "\(result["verdict"] ?? "")")
        }
    }

    /// The issue's early-iteration bias: 36 KB kept per call. glibc grows its heap by the request
    /// plus a 128 KB pad that counts as freed-but-held until it is touched, so retained memory
    /// climbs in a sawtooth of about 128 KB: a fit of 6 iterations reads anywhere from half to
    /// 1.3 times the truth (17 to 46 KB measured), with or without the warm-up; 48 iterations
    /// after a warm-up of 3 read within 5 %.
    @Test func theSlopeOfA36KBLeakSettlesWithIterations() throws {
        let result = try check("bias")
        let slopes = result.filter { $0.key.hasPrefix("slope.") }.sorted { $0.key < $1.key }
        print("36 KB per iteration:", slopes.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        #expect(slopes.count == 8)
        let long = Double(result["slope.w3.n48"] ?? "") ?? 0
        #expect(abs(long - 36_000) < 36_000 * 0.05, "48 iterations after 3 warm-up read \(long) B per iteration for 36,000")
        let short = Double(result["slope.w3.n6"] ?? "") ?? 0
        #expect(short > 0 && short < 36_000 * 2, "6 iterations read \(short) B per iteration")
    }
}

/// The verdict engine on fixed figures: no memory is measured (but for the closures whose
/// verdicts cannot depend on what they retain).
@Suite struct SoakVerdictTests {
    func evidence(_ values: [Int], units: Double = 1) -> SoakEvidence {
        var evidence = SoakEvidence()
        for value in values {
            evidence.add(RetainedSample(retainedBytes: value, residentBytes: value, anonymousBytes: value, freeHeldBytes: 1_000, units: units))
        }
        return evidence
    }

    @Test func aCertainlyShrinkingSlopeIsNamedAnArtefact() {
        let verdict = SoakVerdict.decide(evidence([1_000_000, 990_000, 980_100, 970_000, 960_050, 950_000]), warmup: 0,
                                         limit: .perIteration(.kilobytes(4)), measure: .retained)
        #expect(verdict.certainlyShrinks)
        #expect(verdict.outcome == .inconclusive && !verdict.passed, "shrinking is not passing: \(verdict)")
        #expect(verdict.reasons.contains { $0.contains("certainly shrinks") && $0.contains("measurement artefact") && $0.contains("INCONCLUSIVE") }, "\(verdict)")
        #expect("\(verdict)".contains("reason: retained memory certainly shrinks"))
    }

    @Test func aPerUnitLimitScalesByTheUnitsEachIterationReports() {
        // 10 KB per iteration of 4 requests: 2.5 KB per request, under 3 KB per request.
        let growing = (0..<8).map { 1_000_000 + $0 * 10_000 + ($0 % 2) * 50 }
        let verdict = SoakVerdict.decide(evidence(growing, units: 4), warmup: 2, limit: .perUnit(.kilobytes(3), unit: "request"),
                                         measure: .retained)
        #expect(verdict.outcome == .pass, "\(verdict)")
        #expect(verdict.limitBytesPerIteration == 12_000)
        #expect("\(verdict)".contains("allowed 3.0 KB per request (12.0 KB per iteration)"), "\(verdict)")
        let strict = SoakVerdict.decide(evidence(growing, units: 4), warmup: 2, limit: .perUnit(.kilobytes(2), unit: "request"),
                                        measure: .retained)
        #expect(strict.outcome == .growth, "\(strict)")
    }

    @Test func fewIterationsAreInconclusiveAndSaySo() {
        let verdict = SoakVerdict.decide(evidence([5, 5]), warmup: 3, limit: .perIteration(0), measure: .retained)
        #expect(verdict.outcome == .inconclusive)
        #expect(verdict.reasons == ["only 2 measured iterations after warm-up; at least 3 are needed to fit a slope and 5 to pass"])
    }

    @Test func anotherProcessNeedsMoreIterationsAndNamesItsMeasure() {
        let flat = (0..<6).map { 1_000_000 + ($0 % 2) * 4_096 }
        let verdict = SoakVerdict.decide(evidence(flat), warmup: 2, limit: .perIteration(.kilobytes(16)), measure: .anonymous,
                                         minimumIterationsToPass: 10)
        #expect(verdict.outcome == .inconclusive, "\(verdict)")
        #expect("\(verdict)".contains("anonymous memory slope"))
        #expect("\(verdict)".contains("another process's allocator cannot be read"))
        #expect(verdict.reasons.last?.contains("a pass needs at least 10") == true, "\(verdict)")
    }

    @Test func aStoppedPassIsInconclusiveAndACrashAFailedRun() {
        // A limit of 0 would be INCONCLUSIVE: no page-granular measure resolves zero growth.
        let flat = SoakVerdict.decide(evidence(Array(repeating: 1_000, count: 8)), warmup: 0, limit: .perIteration(.kilobytes(1)), measure: .retained)
        #expect(flat.outcome == .pass, "\(flat)")
        #expect(flat.stopped(by: "the program exited").outcome == .inconclusive)
        #expect(flat.stopped(by: "killed by SIGSEGV", failedRun: true).outcome == .failedRun)
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity, 0, -4])
    func unitsThatAreNotFiniteAndPositiveMakeAPerUnitVerdictInconclusive(bad: Double) {
        var samples = evidence(Array(repeating: 1_000_000, count: 8), units: 4)
        samples.add(RetainedSample(retainedBytes: 1_000_000, residentBytes: 1, anonymousBytes: 1, freeHeldBytes: 1_000, units: bad))
        samples.add(RetainedSample(retainedBytes: 1_000_000, residentBytes: 1, anonymousBytes: 1, freeHeldBytes: 1_000, units: .nan))
        #expect(samples.firstInvalidUnits?.iteration == 9)
        let verdict = SoakVerdict.decide(samples, warmup: 0, limit: .perUnit(.kilobytes(4), unit: "r"), measure: .retained)
        #expect(verdict.outcome == .inconclusive, "\(verdict)")
        #expect(verdict.reasons.first == "measured iteration 9 reported \(bad) as its count of r; a limit per r needs a finite, positive count every iteration, so it cannot be judged", "\(verdict)")
        // A limit per iteration never asks for the units.
        let perIteration = SoakVerdict.decide(samples, warmup: 0, limit: .perIteration(.kilobytes(4)), measure: .retained)
        #expect(perIteration.outcome == .pass, "\(perIteration)")
    }

    @Test func aClosureReportingNaNOrInfiniteUnitsNeverPasses() throws {
        for bad in [Double.nan, .infinity] {
            var keep: [[UInt8]] = []
            var calls = 0
            let verdict = try SoakProbe.measureUnits(limit: .perUnit(.kilobytes(4), unit: "r")) {
                calls += 1
                keep.append([UInt8](repeating: 7, count: 1_000_000))
                return bad
            }
            #expect(verdict.outcome == .inconclusive, "\(verdict)")
            #expect(verdict.reasons.first?.hasPrefix("measured iteration 1 reported \(bad) as its count of r") == true, "\(verdict)")
            // Stopped at the first bad count: 3 warm-up calls and 1 measured.
            #expect(calls == 4 && verdict.measuredIterations == 1, "\(calls) calls: \(verdict)")
            #expect(keep.count == calls)
        }
    }

    @Test func aNegativeWarmUpOrIterationCountRunsNoneAndSaysSo() throws {
        var calls = 0
        let verdict = try SoakProbe.measure(warmup: -5, iterations: .fixed(4), limit: .perIteration(.kilobytes(4))) { calls += 1 }
        #expect(calls == 4 && verdict.warmupIterations == 0 && verdict.measuredIterations == 4, "\(calls) calls: \(verdict)")
        #expect("\(verdict)".contains("4 measured iterations after 0 warm-up"), "\(verdict)")
        calls = 0
        let none = try SoakProbe.measure(warmup: -1, iterations: .fixed(-3), limit: .perIteration(.kilobytes(4)),
                                         minimumIterationsToPass: -2) { calls += 1 }
        #expect(calls == 0 && none.warmupIterations == 0 && none.measuredIterations == 0, "\(calls) calls: \(none)")
        #expect(none.minimumIterationsToPass == 3 && none.outcome == .inconclusive, "\(none)")
        #expect(none.reasons == ["only 0 measured iterations after warm-up; at least 3 are needed to fit a slope and 3 to pass"], "\(none)")
    }

    @Test func untilVerdictStopsOnTheSameDecisionTwiceAfterTheMinimum() {
        var loop = SoakLoop(iterations: .untilVerdict(max: 100))
        for _ in 0..<4 { loop.record(.pass) }
        #expect(loop.wantsMore)
        loop.record(.pass)
        #expect(loop.wantsMore)
        loop.record(.pass)
        #expect(!loop.wantsMore && loop.decided && loop.measured == 6)
        var fixed = SoakLoop(iterations: .fixed(3))
        for _ in 0..<3 { fixed.record(.growth) }
        #expect(!fixed.wantsMore && !fixed.decided)
    }
}

/// Byte counts from any `Double`: never a trap. `ByteCount` is deprecated (the package's size
/// type is `ByteSize`); these tests keep what its users rely on until it is removed.
@Suite struct ByteCountTests {
    @available(*, deprecated)
    @Test func nanIsZeroAndWhatIsPastIntsRangeIsClamped() {
        #expect(ByteCount.kilobytes(.nan).bytes == 0 && ByteCount.megabytes(.nan).bytes == 0)
        #expect(ByteCount.kilobytes(-.nan).bytes == 0)
        #expect(ByteCount.megabytes(.infinity).bytes == .max && ByteCount.kilobytes(.infinity).bytes == .max)
        #expect(ByteCount.megabytes(-.infinity).bytes == .min && ByteCount.kilobytes(-.infinity).bytes == .min)
        #expect(ByteCount.kilobytes(1e300).bytes == .max && ByteCount.megabytes(-1e300).bytes == .min)
        #expect(ByteCount.kilobytes(.greatestFiniteMagnitude).bytes == .max)
        #expect(ByteCount.kilobytes(9.3e15).bytes == .max, "9.3e18 bytes is past Int.max")
        #expect(ByteCount.kilobytes(9.2e15).bytes == 9_200_000_000_000_000_000)
        #expect(ByteCount.megabytes(-9.3e12).bytes == .min)
        #expect(ByteCount.kilobytes(1.5).bytes == 1_500 && ByteCount.megabytes(-2).bytes == -2_000_000)
        #expect(ByteCount.kilobytes(0.0004).bytes == 0 && ByteCount.kilobytes(.leastNonzeroMagnitude).bytes == 0)
    }

    @available(*, deprecated)
    @Test("a limit given as the deprecated ByteCount is the same ByteSize limit; a negative count is 0 bytes")
    func deprecatedLimitsConvert() {
        #expect(SoakLimit.perIteration(ByteCount.kilobytes(1.5)) == .perIteration(ByteSize(bytes: 1_500)))
        #expect(SoakLimit.perUnit(ByteCount.megabytes(-2), unit: "r") == .perUnit(ByteSize(bytes: 0), unit: "r"))
        #expect(ProcessSoak.defaultLimit.bytes == ProcessSoak.defaultGrowthLimit.bytes)
    }
}
