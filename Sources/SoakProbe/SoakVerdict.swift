import SystemIO

/// The verdict of a soak of your code: does the memory it keeps grow? Printable in one line
/// (`"\(verdict)"`), for a test's failure message.
///
/// Decided by ``GrowthRule``, the rule the lab's soak uses: the least-squares slope of the
/// measured iterations (warm-up left out) and its 95 % interval against ``limitBytesPerIteration``.
public struct SoakVerdict: Sendable, Hashable, CustomStringConvertible {
    /// PASS, FAIL (growth), a failed run, or INCONCLUSIVE.
    public var outcome: SoakOutcome
    /// What was measured.
    public var measure: SoakMeasure
    /// Least-squares slope of the measure, bytes per measured iteration.
    public var slopeBytesPerIteration: Double
    /// The slope's 95 % interval, lower end (the slope itself with fewer than three iterations).
    public var slopeLowerBytesPerIteration: Double
    /// The slope's 95 % interval, upper end.
    public var slopeUpperBytesPerIteration: Double
    /// The limit as given.
    public var limit: SoakLimit
    /// The limit in bytes per iteration (per unit × mean units per iteration).
    public var limitBytesPerIteration: Double
    /// Mean units per measured iteration (1 for a per-iteration limit).
    public var unitsPerIteration: Double
    /// Iterations run before measuring, left out of the fit (a negative warm-up given is 0).
    public var warmupIterations: Int
    /// Measured iterations.
    public var measuredIterations: Int
    /// Measured iterations a PASS needs (at least 3, the fewest a slope's interval needs).
    public var minimumIterationsToPass: Int
    /// About how many more iterations would decide an open verdict; nil when it cannot be told.
    public var moreIterationsToDecide: Int?
    /// The measure after the first and the last measured iterations.
    public var firstBytes: Int
    /// See ``firstBytes``.
    public var lastBytes: Int
    /// What the allocator holds and whether it was counted, in words.
    public var allocatorNote: String
    /// True when the slope's interval lies below zero: a measurement artefact, named in ``reasons``.
    public var certainlyShrinks: Bool
    /// Every reason the verdict is what it is, in words (empty for a plain PASS).
    public var reasons: [String]
    /// What the reader should know that is no reason against a PASS: a fill the verdict judged
    /// past, an interval widened to the measure's resolution. Empty for most verdicts.
    public var notes: [String] = []
    /// Where growth stopped or slowed inside the measured series (``GrowthKnee``), when it did;
    /// with an accepted fill, the slope and interval above are those after it.
    public var fill: GrowthKnee?
    /// The step the measure moves by, bytes (``SoakMeasure/resolutionBytes``).
    public var resolutionBytes: Double = 0
    /// True when the interval was widened to what that step can resolve.
    public var widenedToResolution = false
    /// What the soak saw of other work in the process while it measured (SoakProbe's soaks
    /// only; nil for another process's).
    public var interference: SoakInterference?

    /// True for a PASS. O(1).
    public var passed: Bool { outcome == .pass }

    /// Decides over `evidence` (measured iterations only). A warm-up below 0 is reported as 0,
    /// and a minimum to pass below 3 as 3 (no slope is fitted from fewer, so no pass comes
    /// sooner). With a per-unit limit, an iteration whose units were not finite and positive
    /// (``SoakEvidence/firstInvalidUnits``) makes the verdict INCONCLUSIVE, with a reason naming
    /// it: the limit in bytes per iteration means nothing then. O(1) but for the estimate of
    /// iterations to decide (O(log)).
    public static func decide(_ evidence: SoakEvidence, warmup: Int, limit: SoakLimit, measure: SoakMeasure,
                              minimumIterationsToPass: Int = GrowthRule.minimumIterationsToPass) -> SoakVerdict {
        let warmup = max(0, warmup)
        let minimumIterationsToPass = max(3, minimumIterationsToPass)
        let units = limit.unit == nil ? 1 : evidence.unitsPerIteration
        let allowed = limit.bytesPerIteration(unitsPerIteration: units)
        let judgement = GrowthRule.judge(evidence.series, fit: evidence.retained, limit: allowed,
                                         minimumIterationsToPass: minimumIterationsToPass, resolution: measure.resolutionBytes)
        var verdict = SoakVerdict(
            outcome: judgement.outcome, measure: measure, slopeBytesPerIteration: judgement.slope,
            slopeLowerBytesPerIteration: judgement.lower, slopeUpperBytesPerIteration: judgement.upper, limit: limit,
            limitBytesPerIteration: allowed, unitsPerIteration: units, warmupIterations: warmup,
            measuredIterations: evidence.retained.count, minimumIterationsToPass: minimumIterationsToPass,
            moreIterationsToDecide: judgement.moreIterationsToDecide, firstBytes: evidence.first?.retainedBytes ?? 0,
            lastBytes: evidence.last?.retainedBytes ?? 0, allocatorNote: allocatorNote(evidence, measure: measure),
            certainlyShrinks: judgement.certainlyShrinks, reasons: [])
        verdict.fill = judgement.knee
        verdict.resolutionBytes = measure.resolutionBytes
        verdict.widenedToResolution = judgement.widenedToResolution
        let count = evidence.retained.count
        let more = judgement.moreIterationsToDecide.map { "; about \($0) more iteration\($0 == 1 ? "" : "s") would decide" } ?? ""
        switch judgement.finding {
        case .tooFewToFit:
            verdict.reasons.append("only \(count) measured iteration\(count == 1 ? "" : "s") after warm-up; at least 3 are needed to fit a slope and \(minimumIterationsToPass) to pass")
        case .above:
            if judgement.fillPending { break }
            verdict.reasons.append("\(measure.shortName) grows \(verdict.rate(judgement.slope)); its 95 % interval, \(verdict.interval), lies above the allowed \(verdict.limitText)")
        case .straddles:
            verdict.reasons.append("the slope's 95 % interval, \(verdict.interval), straddles the allowed \(verdict.limitText)\(more)")
        case .withinTooFew:
            verdict.reasons.append("only \(count) measured iterations; a pass needs at least \(minimumIterationsToPass)\(minimumIterationsToPass > GrowthRule.minimumIterationsToPass ? " with this measure, which cannot leave the allocator's freed memory out" : "")")
        case .within:
            break
        }
        if let shrinking = judgement.shrinkReason({ verdict.rate($0) }) { verdict.reasons.append(shrinking) }
        verdict.describeShape(judgement, evidence: evidence)
        if let unit = limit.unit, let bad = evidence.firstInvalidUnits {
            verdict.outcome = .inconclusive
            verdict.moreIterationsToDecide = nil
            verdict.reasons.insert("measured iteration \(bad.iteration) reported \(bad.units) as its count of \(unit); a limit per \(unit) needs a finite, positive count every iteration, so it cannot be judged", at: 0)
        }
        return verdict
    }

    /// The reasons and notes a series' shape gives (written once, for every soak): a fill the
    /// verdict waits on or judged past, a FAIL whose growth slowed, an interval widened to the
    /// measure's resolution. O(1).
    mutating func describeShape(_ judgement: GrowthJudgement, evidence: SoakEvidence) {
        let name = measure.shortName
        if let knee = judgement.knee {
            let end = NumberText.grouped(knee.lastGrowingIteration)
            let rise = "\(name) rose \(NumberText.size(knee.riseBytes)) from iteration \(NumberText.grouped(knee.firstIteration)) to \(end)"
            let after = "\(rate(knee.tail.slope)) over the \(NumberText.plural(knee.tail.count, "measured iteration", "measured iterations")) after it"
            if knee.accepted {
                notes.append("a fill ending at iteration \(end): \(rise), then grew \(after); the slope, its interval and the verdict are those after the fill (a cache filling to its bound does this; a leak keeps growing)")
            } else if judgement.fillPending && (judgement.finding == .above || judgement.finding == .straddles), let pending = fillPendingReason {
                reasons.append(pending)
            }
            if outcome == .growth, knee.slowed || knee.stopped, let whole = judgement.wholeSlope {
                reasons.append("growth slowed after iteration \(end) (\(rate(whole)) over the whole series, \(rate(knee.tail.slope)) after it): if a cache may still be filling, run more iterations, or a warm-up past iteration \(end), to rule a fill out")
            }
        }
        if judgement.widenedToResolution {
            let fit = judgement.knee.flatMap { $0.accepted ? $0.tail : nil } ?? evidence.retained
            let bare = fit.slopeInterval95.upper - fit.slope
            notes.append("the slope's 95 % interval was widened to ± \(NumberText.grouped(judgement.resolutionHalfWidth)) B per iteration, what a measure read in \(NumberText.grouped(resolutionBytes))-byte pages can resolve over \(NumberText.plural(fit.count, "iteration", "iterations")) (the figures' spread alone gave ± \(NumberText.grouped(max(0, bare))) B)")
        }
    }

    /// The reason a fill still pending gives (growth stopped inside the series, the flat part
    /// not yet as long as the growth), for this verdict or a caller's rule that waits on it
    /// (the lab's horizon); nil when no fill is pending. O(1).
    public var fillPendingReason: String? {
        guard let knee = fill, knee.pending else { return nil }
        let end = NumberText.grouped(knee.lastGrowingIteration)
        let rise = "\(measure.shortName) rose \(NumberText.size(knee.riseBytes)) from iteration \(NumberText.grouped(knee.firstIteration)) to \(end)"
        let after = "\(rate(knee.tail.slope)) over the \(NumberText.plural(knee.tail.count, "measured iteration", "measured iterations")) after it"
        return "growth stopped after iteration \(end): \(rise), then grew \(after): a cache filling to its bound does this, and so does a leak that grows in steps; the soak judges what follows a fill once it has lasted as long as the growth before it, about \(NumberText.plural(knee.moreIterationsToAccept, "more iteration", "more iterations")) (or a warm-up past iteration \(end))"
    }

    /// This verdict with what the soak saw of other work in the process: when it saw any
    /// (``SoakInterference/seen``), under ``SoakInterference/Policy/inconclusive`` a PASS or a
    /// FAIL becomes INCONCLUSIVE with the interference named first among the reasons (the
    /// memory read was the process's, not the code's alone), and an INCONCLUSIVE names it last
    /// among its reasons; under ``SoakInterference/Policy/note``, or for a failed run, it is a note. O(1).
    public func noting(_ interference: SoakInterference, policy: SoakInterference.Policy) -> SoakVerdict {
        var verdict = self
        verdict.interference = interference
        guard let text = interference.text else { return verdict }
        if policy == .inconclusive, outcome == .pass || outcome == .growth {
            verdict.reasons.insert("\(text); a \(outcome == .pass ? "PASS" : "FAIL") measured beside it is not the code's alone, so the soak is INCONCLUSIVE: soak the code alone (a child process: a Swift Testing exit test), or pass interference: .note when those threads are the code's own workers", at: 0)
            verdict.outcome = .inconclusive
            verdict.moreIterationsToDecide = nil
        } else if policy == .inconclusive, outcome == .inconclusive {
            verdict.reasons.append(text)
        } else {
            verdict.notes.append(text)
        }
        return verdict
    }

    /// This verdict when the soak was stopped or its program ended before it ran its course:
    /// `reason` heads the reasons, a PASS becomes INCONCLUSIVE (what was not measured may
    /// grow) and a certain FAIL stays; with `failedRun`, the outcome is a failed run (exit 2)
    /// whatever was measured. O(reasons).
    public func stopped(by reason: String, failedRun: Bool = false) -> SoakVerdict {
        var verdict = self
        Self.stop(&verdict.outcome, reasons: &verdict.reasons, by: reason, failedRun: failedRun)
        return verdict
    }

    /// The rule of a stopped soak, for any soak's outcome and reasons (this verdict's, the
    /// lab's scenario soak's): `reason` heads the reasons; a PASS becomes INCONCLUSIVE (what was
    /// not measured may grow) and a certain FAIL stays; with `failedRun`, the outcome is a
    /// failed run whatever was measured. O(reasons).
    public static func stop(_ outcome: inout SoakOutcome, reasons: inout [String], by reason: String, failedRun: Bool = false) {
        if failedRun {
            outcome = .failedRun
            reasons.insert("\(reason): a failed run, whatever was measured", at: 0)
            return
        }
        switch outcome {
        case .pass:
            outcome = .inconclusive
            reasons.insert("\(reason): a stopped soak is never a pass (the iterations it measured would have passed)", at: 0)
        case .inconclusive:
            reasons.insert("\(reason): a stopped soak is never a pass", at: 0)
        case .growth, .failedRun:
            reasons.insert(reason, at: 0)
        }
    }

    /// `bytesPerIteration` in words: `4.1 KB per iteration`, or per unit first with per
    /// iteration beside it: `2.0 KB per request (4.1 KB per iteration)`. O(1).
    public func rate(_ bytesPerIteration: Double) -> String {
        let perIteration = "\(NumberText.size(bytesPerIteration)) per iteration"
        guard let unit = limit.unit, unitsPerIteration > 0 else { return perIteration }
        return "\(NumberText.size(bytesPerIteration / unitsPerIteration)) per \(unit) (\(perIteration))"
    }

    /// The slope's interval in words: `33.1 KB to 64.8 KB per iteration`, or per unit first
    /// with per iteration beside it. O(1).
    public var interval: String {
        let perIteration = "\(NumberText.size(slopeLowerBytesPerIteration)) to \(NumberText.size(slopeUpperBytesPerIteration)) per iteration"
        guard let unit = limit.unit, unitsPerIteration > 0 else { return perIteration }
        return "\(NumberText.size(slopeLowerBytesPerIteration / unitsPerIteration)) to \(NumberText.size(slopeUpperBytesPerIteration / unitsPerIteration)) per \(unit) (\(perIteration))"
    }

    /// The limit in words. O(1).
    public var limitText: String { rate(limitBytesPerIteration) }

    /// `PASS: retained memory slope 0.1 KB per iteration, 95 % interval …, allowed 4.0 KB per
    /// iteration; 40 measured iterations after 3 warm-up; …; allocator: …; reason: …`. O(reasons).
    public var description: String {
        var text = "\(outcome.verdictWord): \(measure.shortName) slope \(rate(slopeBytesPerIteration))"
        if measuredIterations >= 3 { text += ", 95 % interval \(interval)" }
        text += ", allowed \(limitText); \(NumberText.plural(measuredIterations, "measured iteration", "measured iterations")) after \(warmupIterations) warm-up"
        text += "; \(NumberText.size(Double(firstBytes))) after the first, \(NumberText.size(Double(lastBytes))) after the last"
        text += "; allocator: \(allocatorNote)"
        for reason in reasons { text += "; reason: \(reason)" }
        for note in notes { text += "; note: \(note)" }
        return text
    }

    /// The allocator's line: what glibc held freed (this process), or why it could not be read.
    static func allocatorNote(_ evidence: SoakEvidence, measure: SoakMeasure) -> String {
        guard measure.excludesAllocator else {
            return "another process's allocator cannot be read, so memory it holds freed counts as \(measure.shortName): an allocator that caches freed memory can look like growth, and a PASS needs more iterations"
        }
        guard let range = evidence.freeHeldRange else { return "glibc's freed-but-held bytes were not read" }
        let fit = evidence.freeHeld
        let trend = fit.count >= 3 && (fit.slopeInterval95.lower > 0 || fit.slopeInterval95.upper < 0)
        return "glibc held \(NumberText.size(Double(range.lowerBound))) to \(NumberText.size(Double(range.upperBound))) freed, not counted as growth\(trend ? " (a trend of \(NumberText.size(fit.slope)) per iteration: the allocator keeps more freed memory as it goes)" : "")"
    }
}

extension SoakMeasure {
    /// `retained memory`, `anonymous memory`, `private dirty memory`. O(1).
    public var shortName: String {
        switch self {
        case .retained: return "retained memory"
        case .anonymous: return "anonymous memory"
        case .privateDirty: return "private dirty memory"
        }
    }
}
