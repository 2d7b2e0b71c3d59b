import MemoryProbe
import Retention
import SoakProbe
import SystemIO

/// Repeats a scenario's script under one strategy in one process — one simulator, one cache
/// for the whole soak — and decides whether memory grows.
///
/// Each iteration runs the script again from where the last one left the list (offset,
/// appended feed rows and cache contents carry over); an iteration that ended with the
/// container destroyed is followed by one that starts by recreating it. A stop request (a
/// signal) ends the soak at the end of the current frame; the unfinished iteration is left out
/// and the verdict covers the ones before it, never a pass (a stopped soak is inconclusive
/// unless growth is already certain). Memory stays constant whatever the length: the fits are
/// running sums and no sample is kept. Costs the script's work per iteration plus one
/// `mallinfo2` and one statm read.
public final class Soak {
    /// When to stop.
    public enum Limit: Sendable, Hashable {
        /// After this many measured iterations (warm-up not counted).
        case iterations(Int)
        /// When this many seconds have passed (checked after each iteration).
        case duration(Double)
    }

    /// Measured iterations `--until-verdict` needs before it may stop, and a pass needs at all
    /// (``GrowthVerdict/minimumIterationsToPass``): fewer leave the interval too wide to trust.
    public static let minimumIterationsToDecide = GrowthVerdict.minimumIterationsToPass

    let session: ExperimentSession
    let limit: Limit
    let warmup: Int
    let maxGrowthBytes: Int
    let maxGrowthRate: GrowthRate
    /// Hours of modelled use the total-growth limit is judged over.
    let horizonHours: Double
    /// Stop as soon as the verdict is decided (PASS or FAIL by the rate rule, the same in two
    /// iterations in a row, after at least ``minimumIterationsToDecide``), `limit` being the
    /// most it runs.
    let untilVerdict: Bool
    /// Stops the soak at the end of the current frame: requested by a caller, or by SIGINT or
    /// SIGTERM when it observes signals.
    public let stop: StopRequest
    private var evidence = GrowthVerdict.Evidence()
    private var count = 0
    private var failures: [String] = []
    private var decidedEarly = false
    /// What stopped the soak before it ran its course (a signal, the resident limit, a
    /// duration that ended too soon), in words; nil otherwise.
    private var stopReason: String?
    private var wallSeconds = 0.0
    /// The iteration a stop request cut short, if one did.
    public private(set) var interruptedIteration: Int?
    /// The message when resident memory went over the experiment's `maxResidentBytes` and
    /// stopped the soak; nil otherwise.
    public private(set) var residentLimitReached: String?

    /// A soak of `experiment` (its script is one iteration; a strategy with a disk tier keeps one
    /// store for the whole soak), judging growth over `horizonHours` of modelled use against
    /// `maxGrowthBytes`. Throws `LabError.usage` for a scenario of several `sessions`.
    public init(experiment: Experiment, limit: Limit, warmup: Int = 2, maxGrowthBytes: Int = 16_000_000,
                maxGrowthRate: GrowthRate = .default, horizonHours: Double = 1, untilVerdict: Bool = false,
                stop: StopRequest = StopRequest()) throws {
        guard experiment.settings.sessions == 1 else {
            throw LabError.usage("sessions does not apply to a soak, which repeats its script in one session; run the scenario with `retention run` or `compare`")
        }
        self.stop = stop
        self.maxGrowthRate = maxGrowthRate
        self.horizonHours = horizonHours
        self.untilVerdict = untilVerdict
        session = try ExperimentSession(experiment: experiment)
        session.recordTimeline = false
        session.recordCheckpoints = false
        session.stop = stop
        self.limit = limit
        self.warmup = warmup
        self.maxGrowthBytes = maxGrowthBytes
    }

    /// Runs iterations until the limit, a decided verdict (with `untilVerdict`) or a stop
    /// request, calling `onSample` after each finished iteration (write and flush it there).
    /// Returns the verdict on what was measured. `run(alsoDecided: { _ in true }, onSample:)`.
    public func run(onSample: (SoakSample) -> Void) -> GrowthVerdict {
        run(alsoDecided: { _ in true }, onSample: onSample)
    }

    /// ``run(onSample:)``, where `untilVerdict` stops a PASS only once `alsoDecided` holds too
    /// (a baseline comparison decided either way); a certain FAIL stops regardless. Costs the
    /// soak plus one call of `alsoDecided` per measured iteration once the verdict is decided.
    public func run(alsoDecided: (GrowthVerdict) -> Bool, onSample: (SoakSample) -> Void) -> GrowthVerdict {
        let clock = ContinuousClock()
        let start = clock.now
        var iteration = 0
        var durationEnded = false
        let framesPerSecond = session.experiment.scenario.frameRate.framesPerSecond
        // SoakProbe's loop, the one every soak stops by: a PASS or a FAIL the same in two
        // measured iterations in a row, after the minimum a pass needs. No fill allowance: a
        // scenario's caches are the lab's own and fill within its warm-up, and each iteration
        // is a whole script of modelled use.
        var most = Int.max
        if case .iterations(let count) = limit { most = count }
        var loop = SoakLoop(iterations: untilVerdict ? .untilVerdict(max: most) : .fixed(most), minimumIterationsToPass: Self.minimumIterationsToDecide,
                            warmup: warmup, fillAllowance: 0)
        while stop.signal == nil && loop.wantsMore {
            if case .duration(let seconds) = limit, (clock.now - start).seconds >= seconds {
                durationEnded = true
                break
            }
            iteration += 1
            let decodesBefore = session.cache.metrics.decodes
            let hitchesBefore = session.frames.hitches
            let framesBefore = session.frameCount
            do {
                try session.runPass()
            } catch {
                // A trace that can no longer be read: every later iteration would fail the same way.
                note(&failures, "iteration \(iteration): \(error)")
                break
            }
            if let over = session.overLimit, let limit = session.experiment.maxResidentBytes {
                reachedResidentLimit(over, limit: limit, iteration: iteration)
                break
            }
            if session.passEndedEarly {
                interruptedIteration = iteration
                break
            }
            // A trace pass starts with its own containerCreated, so one it left alive goes first.
            if session.replayer != nil { session.destroyContainerIfAlive() }
            if let failure = session.probeFailure {
                note(&failures, "iteration \(iteration): \(failure)")
                session.probeFailure = nil
            }
            let usage = session.cache.usage
            let heap = (try? ProcessMemory.heapStatistics())
            let statm = try? session.resident.sample()
            let resident = statm?.residentBytes ?? 0
            let isWarmup = iteration <= warmup
            let sample = SoakSample(
                iteration: iteration, warmup: isWarmup, elapsedSeconds: (clock.now - start).seconds, residentBytes: resident,
                anonymousBytes: statm.map { $0.residentBytes - $0.sharedBytes } ?? 0,
                logicalBytes: usage.totalBytes + session.rowMemory.heldBytes, rowHeldBytes: usage.activeBytes + usage.rowHeldBytes,
                evictableBytes: usage.evictableBytes, entries: usage.entryCount,
                heapInUseBytes: heap.map { $0.inUseBytes + $0.mmappedBytes } ?? 0, heapFreeHeldBytes: heap?.freeHeldBytes ?? 0,
                decodes: session.cache.metrics.decodes - decodesBefore, hitches: session.frames.hitches - hitchesBefore,
                rowsInList: session.simulator.rowCount,
                useSeconds: Double(session.frameCount - framesBefore) / framesPerSecond,
                rowStateBytes: session.rowMemory.heldBytes, diskBytes: session.disk?.store.metrics.bytes ?? 0)
            if resident == 0 || heap == nil { note(&failures, "iteration \(iteration): memory probes failed") }
            let budget = session.cache.policy.bitmapBudget.bytes
            if usage.evictableBytes > budget {
                note(&session.violations, "iteration \(iteration): evictable bytes \(usage.evictableBytes) exceed the budget \(budget)")
            }
            count += 1
            if !isWarmup { evidence.add(sample) }
            onSample(sample)
            guard !isWarmup else { continue }
            // Only a soak that may stop when decided asks the verdict here, and only once it
            // may decide (the soak measures this process: no verdict is built that nothing reads).
            if untilVerdict && loop.measured + 1 >= Self.minimumIterationsToDecide {
                let current = verdict()
                loop.record(current.outcome, alsoDecided: alsoDecided(current))
            } else {
                loop.record(.inconclusive, alsoDecided: false)
            }
        }
        decidedEarly = loop.decided
        let measured = loop.measured
        wallSeconds = (clock.now - start).seconds
        if let signal = stop.signal, stopReason == nil {
            stopReason = "stopped by \(StopSignals.name(signal))\(interruptedIteration.map { " during iteration \($0)" } ?? "")"
        }
        if durationEnded, case .duration(let seconds) = limit, measured < Self.minimumIterationsToDecide {
            stopReason = "stopped by \(LabTerm.duration.spelled) \(Self.durationText(seconds)) after \(measured) measured iteration\(measured == 1 ? "" : "s") (\(warmup) warm-up), fewer than the \(Self.minimumIterationsToDecide) a pass needs; give a longer \(LabTerm.duration.spelled)\(measured == 0 ? " or a smaller \(LabTerm.warmup.spelled)" : "")"
        }
        return verdict()
    }

    /// `90s`, `30m`, `2h`, `2.5s`: a duration as `--duration` was likely given. O(1).
    static func durationText(_ seconds: Double) -> String {
        if seconds >= 3600, seconds.truncatingRemainder(dividingBy: 3600) == 0 { return "\(Int(seconds / 3600))h" }
        if seconds >= 60, seconds.truncatingRemainder(dividingBy: 60) == 0 { return "\(Int(seconds / 60))m" }
        return (seconds == seconds.rounded() ? "\(Int(seconds))" : SystemIO.NumberText.oneDecimal(seconds)) + "s"
    }

    /// Decides what reaching the resident limit means: a stopped soak (inconclusive, or a FAIL
    /// the measured iterations already make certain) once an iteration was measured, a failed
    /// run when the scenario needed more than the limit before any was.
    private func reachedResidentLimit(_ over: (residentBytes: Int, frame: Int, projected: Bool), limit: Int, iteration: Int) {
        let message = ResidentLimitReached.message(residentBytes: over.residentBytes, frame: over.frame, limitBytes: limit, projected: over.projected)
        residentLimitReached = message
        if let first = evidence.first {
            stopReason = "stopped by \(LabTerm.maxResident.spelled) \(SystemIO.NumberText.megabytes(limit)) in iteration \(iteration) (resident \(SystemIO.NumberText.megabytes(over.residentBytes)), up from \(SystemIO.NumberText.megabytes(first.residentBytes)) after the first measured iteration)"
        } else {
            note(&failures, "iteration \(iteration): \(message) before any iteration was measured: the scenario needs more than the limit")
        }
    }

    /// Records a reason, keeping the first ten and then only a count, so a problem that repeats
    /// every iteration cannot grow the soak's own memory.
    private func note(_ list: inout [String], _ reason: String) {
        if list.count < 10 {
            list.append(reason)
        } else if list.count == 10 {
            list.append("… and more like these (only the first ten are kept)")
        }
    }

    /// The verdict on the iterations so far.
    public func verdict() -> GrowthVerdict {
        var verdict = GrowthVerdict.decide(evidence, maxGrowthBytes: maxGrowthBytes, maxGrowthRate: maxGrowthRate, horizonHours: horizonHours,
                                           violations: session.violations, failures: failures)
        if let stopReason { verdict = verdict.stopped(by: stopReason) }
        verdict.stoppedBy = (interruptedIteration != nil || stop.signal != nil) ? stop.signal.map(StopSignals.name) : nil
        verdict.decidedEarly = decidedEarly
        verdict.wallSeconds = wallSeconds
        return verdict
    }

    /// The least-squares slope of retained bytes per measured iteration so far and the mean
    /// seconds of modelled use per measured iteration, read from the running fits without
    /// deciding a verdict (for a progress line). O(1).
    public var runningSlope: (bytesPerIteration: Double, useSecondsPerIteration: Double) {
        let count = evidence.retained.count
        return (evidence.retained.slope, count > 0 ? evidence.useSeconds / Double(count) : 0)
    }

    /// Iterations finished so far, warm-up included.
    public var iterationsRun: Int { count }

    /// Decodes that failed so far (counted, not fatal).
    public var failedDecodes: Int { session.cache.metrics.failedDecodes }
    /// Loads whose bytes could not be read so far.
    public var failedReads: Int { session.cache.metrics.failedReads }
}
