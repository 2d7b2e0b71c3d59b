import MemoryProbe
import SystemIO

/// Soaks your own code in a test: runs a closure for warm-up and measured iterations, samples
/// the memory this process retains after each, and judges whether it grows, with the rule the
/// lab's `retention soak` uses (``GrowthRule``).
///
/// ```swift
/// let verdict = try SoakProbe.measure(warmup: 3, iterations: .untilVerdict(max: 200),
///                                     limit: .perIteration(.kilobytes(4))) { try pipeline.renderNext() }
/// #expect(verdict.passed, "\(verdict)")
/// ```
///
/// **What counts** is what the closure keeps, not what it allocates and frees: the sample is
/// taken after it returns, as anonymous resident memory less the bytes glibc's allocator holds
/// freed (`mallinfo2`), so a closure that allocates and frees a megabyte every call does not
/// grow. No `malloc_trim` runs: glibc keeps a trimmed range in its freed count, so trimming
/// would make retained memory read low by what it released.
///
/// **Run it alone.** Resident memory is the whole process's: tests running in parallel in the
/// same process (Swift Testing's default) allocate while it measures. The soak watches for it
/// (``SoakInterference``): other threads' CPU time while it measures, the process's thread
/// count changing; seen, the verdict is INCONCLUSIVE and names it (`interference: .note` when
/// those threads are the code's own workers). Run the soak in a child process: a Swift Testing
/// exit test (`#expect(processExitsWith:)`), as docs/soak.md shows.
public enum SoakProbe {
    /// Soaks `body`, which reports nothing: a limit per iteration. Runs `warmup` calls left out
    /// of the fit (the first calls fill caches and the allocator's arenas; none when below 0, and
    /// the verdict says 0), then up to `iterations` measured calls (none when that is below 1). Rethrows `body`'s errors; throws `MemoryProbeError` when
    /// memory cannot be read. `interference` says what other threads' work does to the
    /// verdict (``SoakInterference``). Costs the calls plus, per call, a statm read, a
    /// `mallinfo2`, four CPU-clock reads and a read of `/proc/self/stat` (tens of
    /// microseconds), and a look at the series' shape (O(points), at most 1,024); keeps at
    /// most 1,024 points of history (``RetainedSeries``).
    public static func measure(warmup: Int = 3, iterations: SoakIterations = .untilVerdict(max: 200), limit: SoakLimit,
                               minimumIterationsToPass: Int = GrowthRule.minimumIterationsToPass,
                               interference: SoakInterference.Policy = .inconclusive,
                               _ body: () throws -> Void) throws -> SoakVerdict {
        try measureUnits(warmup: warmup, iterations: iterations, limit: limit, minimumIterationsToPass: minimumIterationsToPass,
                         interference: interference) {
            try body()
            return 1
        }
    }

    /// Soaks `body`, which returns the units of work it did (requests, rows, hours of modelled
    /// use): with a ``SoakLimit/perUnit(_:unit:)-enum.case`` limit the allowed growth per iteration is the
    /// limit × the mean units per measured iteration; units that are not finite and positive
    /// (NaN, an infinity, zero or below) stop the soak at once with an INCONCLUSIVE verdict that
    /// names them. Otherwise as ``measure(warmup:iterations:limit:minimumIterationsToPass:interference:_:)``.
    /// A name of its own, since a closure of several statements would fit either.
    public static func measureUnits(warmup: Int = 3, iterations: SoakIterations = .untilVerdict(max: 200), limit: SoakLimit,
                               minimumIterationsToPass: Int = GrowthRule.minimumIterationsToPass,
                               interference policy: SoakInterference.Policy = .inconclusive,
                               _ body: () throws -> Double) throws -> SoakVerdict {
        let probe = try RetainedMemoryProbe()
        var evidence = SoakEvidence()
        // A negative warm-up runs none, and the verdict says 0 (decide clamps it too).
        let warmup = max(0, warmup)
        for _ in 0..<warmup { _ = try body() }
        var loop = SoakLoop(iterations: iterations, minimumIterationsToPass: minimumIterationsToPass, warmup: warmup)
        // What other threads do while it measures: their CPU time, and the thread count.
        var interference = SoakInterference()
        func verdict() -> SoakVerdict {
            SoakVerdict.decide(evidence, warmup: warmup, limit: limit, measure: .retained, minimumIterationsToPass: minimumIterationsToPass)
                .noting(interference, policy: policy)
        }
        while loop.wantsMore {
            let processBefore = ProcessActivity.cpuTime(), threadBefore = ThreadCPUTime.now()
            let units = try body()
            var sample = try probe.sample()
            interference.add(processCPU: ProcessActivity.cpuTime() - processBefore, threadCPU: ThreadCPUTime.now() - threadBefore,
                             threadCount: ProcessActivity.threadCount())
            sample.units = units
            // Placed at its iteration's number, warm-up included, so a fill is named by it.
            evidence.add(sample, iteration: Double(warmup + loop.measured + 1))
            // No count of iterations can judge a per-unit limit once the units are meaningless.
            if limit.unit != nil, evidence.firstInvalidUnits != nil { break }
            loop.record(verdict().outcome)
        }
        return verdict()
    }
}
