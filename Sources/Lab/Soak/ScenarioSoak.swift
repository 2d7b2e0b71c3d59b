import SoakProbe
import StrictJSON
import SystemIO

/// A scenario soak from request to result, the engine behind `retention soak`: it prepares
/// (checks, scenario, strategy, exports), then repeats the scenario through ``Soak`` until its
/// limit, streaming one CSV row and one JSON sample per iteration, reporting progress through
/// the one throttle (``ProgressLines``), and comparing the slope with a baseline's. What to say
/// about the result (the text, a JUnit report) is the caller's. A class, since the exports it
/// holds open are written in place as iterations finish; used from one thread.
public final class ScenarioSoak {
    /// What to soak; every field has the soak command's default.
    public struct Request: Sendable {
        /// The scenario file.
        public var scenarioPath: String
        /// A preset or a strategy the scenario defines.
        public var strategy: String
        /// When the soak ends: a number of measured iterations or a duration in seconds.
        public var limit: Soak.Limit
        /// Stop as soon as the verdict is decided.
        public var untilVerdict = false
        /// Iterations run before measuring.
        public var warmup = 2
        /// The largest accepted growth of retained memory over ``horizonHours`` of modelled use,
        /// in bytes.
        public var maxGrowthBytes = 16_000_000
        /// The fastest accepted growth of retained memory (per hour of modelled use by default).
        public var maxGrowthRate = GrowthRate.default
        /// Hours of modelled use the growth limit is judged over.
        public var horizonHours = 1.0
        /// A cost table to price loads with, so an asynchronous scenario's virtual decode timing
        /// is the same on every host; nil prices each load at its measured CPU time.
        public var costsPath: String?
        /// Divides every cost in the table.
        public var decodeSpeed = 1.0
        /// The resident limit the soak stops at; nil for the default share of the machine's or
        /// the cgroup's memory (``ResidentLimit/defaultBytes(sharedBy:)``).
        public var maxResidentBytes: Int?
        /// Where one CSV row per iteration and the JSON document are written; nil for none.
        public var exportCSV: String?, exportJSON: String?
        /// A path the caller will write a report to after the soak (a JUnit file): checked with
        /// the exports, so it is neither an input nor one of them; nil for none.
        public var reportPath: String?
        /// Drop a trace's impossible events instead of stopping at the first.
        public var repairTrace = false
        /// A soak's JSON export from the main branch: the result's ``Result/baseline`` compares
        /// the slopes, and a significant growth fails the soak; nil for none.
        public var baselinePath: String?
        /// Asked at every frame; a signal or `request(signal:)` ends the soak there.
        public var stop = StopRequest()

        /// A soak of `scenarioPath` under `strategy` until `limit`, with the defaults. O(1).
        public init(scenarioPath: String, strategy: String, limit: Soak.Limit) {
            self.scenarioPath = scenarioPath
            self.strategy = strategy
            self.limit = limit
        }
    }

    /// What a finished soak measured and what went wrong on the way.
    public struct Result {
        /// The verdict on what was measured.
        public var verdict: GrowthVerdict
        /// The scenario's and the strategy's names.
        public var scenarioName: String, strategyName: String
        /// Iterations that finished, warm-up included, and the warm-up asked for.
        public var iterationsRun: Int, warmup: Int
        /// Loads that failed to decode or to read over the whole soak.
        public var failedDecodes: Int, failedReads: Int
        /// The resident limit's message when it stopped the soak; nil otherwise.
        public var residentLimitReached: String?
        /// The iteration a stop signal interrupted; nil when none did.
        public var interruptedIteration: Int?
        /// The slope against the baseline's; nil without a baseline or without a fitted slope.
        public var baseline: BaselineComparison?
        /// The JSON export's path when no iteration finished, so it was not written; nil otherwise.
        public var unwrittenExport: String?
        /// The first export that could not be written; later rows were still tried.
        public var writeFailure: (any Error)?

        /// The exit status the result earns: the verdict's; for a PASS, growth (1) when the
        /// slope grew significantly against the baseline and inconclusive (3) when the
        /// comparison is undecided (never a silent pass); a failed run (2) when an export could
        /// not be written. O(1).
        public var exitStatus: Int32 {
            if writeFailure != nil { return SoakOutcome.failedRun.exitStatus }
            let status = verdict.outcome.exitStatus
            guard status == 0 else { return status }
            if baselineGrew { return SoakOutcome.growth.exitStatus }
            return baselineUndecided ? SoakOutcome.inconclusive.exitStatus : status
        }

        /// True when the slope grew significantly against the baseline's. O(1).
        public var baselineGrew: Bool { baseline?.grewSignificantly ?? false }

        /// True when a baseline was given and its comparison decides nothing: this interval
        /// spans the baseline's upper end plus the minimum effect, or no slope was fitted. O(1).
        public var baselineUndecided: Bool {
            guard hasBaseline else { return false }
            return baseline.map { $0.decision == .undecided } ?? true
        }

        /// True when the soak was given a baseline. O(1).
        public var hasBaseline = false

        /// Why the soak failed or could not decide: the verdict's reasons, then the baseline's
        /// comparison when it grew or is undecided. O(reasons).
        public var reasons: [String] {
            guard let baseline, baseline.decision != .withinEffect else { return verdict.reasons }
            return verdict.reasons + [baseline.description]
        }
    }

    /// The soak's JSON export, apart from its samples (which are streamed to the file as the
    /// iterations finish, so a soak of any length keeps none in memory).
    struct Document: Encodable {
        var schemaVersion = ExportSchema.version
        var scenario: String
        var strategy: String
        var verdict: GrowthVerdict
        var failedDecodes: Int, failedReads: Int
    }

    /// The request as given.
    public let request: Request
    /// The prepared experiment (strategy, settings, limit).
    public let experiment: Experiment
    private let soak: Soak
    private let csv: LineFile?
    private let json: StagedFile?
    private var samplesWritten = 0
    /// The baseline's slope and interval per hour of use.
    private let baselineSlope: (slope: Double, interval: ClosedRange<Double>)?

    /// Prepares a soak: checks the file descriptors, loads and checks the scenario, resolves the
    /// strategy, reads the baseline, and checks that the exports (and ``Request/reportPath``)
    /// can be written and are not among the files the scenario brings (its trace, its images),
    /// so nothing is written over an old export until a sample exists. `progress`'s note gets
    /// the trace repair summary, if any. Throws the first problem: `LabError.usage` for an
    /// export that is an input or a baseline that is not a soak's export, anything else a
    /// failed run. Costs one scenario load.
    public init(_ request: Request, progress: ProgressSink) throws {
        try Preflight.fileDescriptors(Preflight.baseFileDescriptors + 4, command: "soak")
        var experiment = try Experiment.prepare(scenarioPath: request.scenarioPath, strategyName: request.strategy, repairTrace: request.repairTrace)
        if let repairs = experiment.trace?.repairs.summary { progress.note("\(request.scenarioPath): trace: \(repairs)") }
        experiment.maxResidentBytes = request.maxResidentBytes ?? ResidentLimit.defaultBytes()
        experiment.costs = CostModel(table: try request.costsPath.map { try CostTable.load(contentsOf: $0) }, decodeSpeed: request.decodeSpeed)
        try OutputCheck.check(outputs: [request.exportCSV.map { .init(LabTerm.exportCSV.spelled, $0) }, request.exportJSON.map { .init(LabTerm.exportJSON.spelled, $0) },
                                        request.reportPath.map { .init(LabTerm.junit.spelled, $0) }],
                              inputs: OutputCheck.scenarioInputs(path: request.scenarioPath, trace: experiment.trace, images: experiment.images)
                                + (request.costsPath.map { [OutputCheck.Input("the cost table", $0)] } ?? []))
        self.request = request
        self.experiment = experiment
        baselineSlope = try request.baselinePath.map(Self.readBaseline)
        soak = try Soak(experiment: experiment, limit: request.limit, warmup: request.warmup, maxGrowthBytes: request.maxGrowthBytes,
                        maxGrowthRate: request.maxGrowthRate, horizonHours: request.horizonHours, untilVerdict: request.untilVerdict, stop: request.stop)
        csv = try request.exportCSV.map { try LineFile(replacing: $0, header: SoakSample.csvHeader) }
        json = try request.exportJSON.map { try StagedFile(replacing: $0) }
    }

    /// Runs the soak to its limit, its verdict (``Request/untilVerdict``) or a stop request.
    /// After each iteration it appends the CSV row and the JSON sample (a write failure is kept,
    /// later rows are still tried) and shows ``progressLine(_:verdict:)`` through
    /// ``ProgressLines`` (ended with an empty note on a terminal); at the end it puts the JSON
    /// document in place. Costs the soak itself plus a line of text per iteration; memory stays
    /// constant.
    public func run(progress: ProgressSink) -> Result {
        var lines = ProgressLines(sink: progress, plainPrefix: "")
        var writeFailure: (any Error)?
        func record(_ body: () throws -> Void) {
            do { try body() } catch { writeFailure = writeFailure ?? error }
        }
        // Under untilVerdict a PASS stops only once the baseline comparison is decided too.
        let verdict = soak.run(alsoDecided: { comparison(with: $0)?.decision != .undecided || baselineSlope == nil }) { sample in
            record { try csv?.append(sample.csvLine) }
            record { try appendSample(sample) }
            // The running slope, not a whole verdict: the soak measures this process, and a
            // verdict's text built every iteration (allocations whose sizes change as the
            // series grows) read as a few KB of growth per iteration in a short soak.
            let slope = soak.runningSlope
            lines.report(Self.progressLine(sample, slopeBytesPerIteration: slope.bytesPerIteration, useSecondsPerIteration: slope.useSecondsPerIteration))
        }
        if progress.isTerminal { progress.note("") }
        var result = Result(verdict: verdict, scenarioName: experiment.scenario.name, strategyName: experiment.strategy.name,
                            iterationsRun: soak.iterationsRun, warmup: request.warmup,
                            failedDecodes: soak.failedDecodes, failedReads: soak.failedReads,
                            residentLimitReached: soak.residentLimitReached, interruptedIteration: soak.interruptedIteration)
        result.hasBaseline = baselineSlope != nil
        if result.iterationsRun > request.warmup { result.baseline = comparison(with: verdict) }
        if let json {
            if samplesWritten > 0 {
                record { try finishDocument(verdict) }
            } else {
                result.unwrittenExport = json.path
            }
        }
        result.writeFailure = writeFailure
        return result
    }

    /// The verdict's slope per hour of use against the baseline's, beyond a quarter of the
    /// allowed rate; nil without a baseline or a fitted slope. O(1).
    func comparison(with verdict: GrowthVerdict) -> BaselineComparison? {
        guard let baselineSlope, verdict.slopeLowerBytesPerHourOfUse.isFinite, verdict.slopeUpperBytesPerHourOfUse.isFinite,
              verdict.slopeBytesPerHourOfUse.isFinite else { return nil }
        return BaselineComparison(
            slope: verdict.slopeBytesPerHourOfUse,
            interval: verdict.slopeLowerBytesPerHourOfUse...max(verdict.slopeLowerBytesPerHourOfUse, verdict.slopeUpperBytesPerHourOfUse),
            baselineSlope: baselineSlope.slope, baselineInterval: baselineSlope.interval, unit: "hour of use",
            minimumEffect: (verdict.maxGrowthRateBytesPerHour ?? 0) / 4)
    }

    /// One iteration's progress text: wall time (labelled), memory, and the slope per hour of
    /// use beside per iteration. O(1).
    public static func progressLine(_ sample: SoakSample, verdict: GrowthVerdict) -> String {
        progressLine(sample, slopeBytesPerIteration: verdict.slopeBytesPerIteration, useSecondsPerIteration: verdict.useSecondsPerIteration)
    }

    /// ``progressLine(_:verdict:)`` from the running slope alone (``Soak/runningSlope``), which
    /// the soak reads without deciding a verdict. O(1).
    public static func progressLine(_ sample: SoakSample, slopeBytesPerIteration slope: Double, useSecondsPerIteration seconds: Double) -> String {
        "iteration \(sample.iteration)\(sample.warmup ? " (warm-up)" : "")  wall \(Int(sample.elapsedSeconds)) s  resident \(SystemIO.NumberText.megabytes(sample.residentBytes)) (retained \(SystemIO.NumberText.megabytes(sample.retainedBytes)))  slope \(GrowthVerdict.perHourOfUse(slope, useSecondsPerIteration: seconds))"
    }

    /// The slope and its interval per hour of use in a soak's JSON export (`verdict`'s
    /// `slopeBytesPerHourOfUse`, `slopeLowerBytesPerHourOfUse`, `slopeUpperBytesPerHourOfUse`).
    /// Throws `LabError.usage` naming the file and what is missing. O(size).
    public static func readBaseline(_ path: String) throws -> (slope: Double, interval: ClosedRange<Double>) {
        try readBaseline(path, per: "HourOfUse")
    }

    /// The slope and its interval per `unit` in a soak's JSON export: per `HourOfUse` (a
    /// scenario soak's, ``readBaseline(_:)``) or per `Iteration` (`verdict`'s
    /// `slopeBytesPerIteration`, `slopeLowerBytesPerIteration`, `slopeUpperBytesPerIteration`,
    /// which a soak of a program exports). Throws `LabError.usage` naming the file and what is
    /// missing. O(size).
    public static func readBaseline(_ path: String, per unit: String) throws -> (slope: Double, interval: ClosedRange<Double>) {
        let data = try baselineBytes(path)
        let tree: JSONValue
        do { tree = try JSONDocument.parse(data, source: path) } catch { throw LabError.invalid(.baseline, problem: "\(error)") }
        func number(_ key: String) -> Double? {
            guard case .object(let verdict)? = tree["verdict"], let value = verdict[key] else { return nil }
            switch value {
            case .number(let n): return n
            default: return nil
            }
        }
        guard let slope = number("slopeBytesPer\(unit)"), let lower = number("slopeLowerBytesPer\(unit)"),
              let upper = number("slopeUpperBytesPer\(unit)"), lower <= upper, lower.isFinite, upper.isFinite else {
            throw LabError.invalid(.baseline, problem: "\(PathText.display(path)) is not a soak's \(LabTerm.exportJSON.spelled) (no verdict with slopeBytesPer\(unit) and its interval)")
        }
        return (slope, lower...upper)
    }

    /// The most of a baseline read and parsed whole: 4 MiB. A larger file (a long soak's
    /// samples) is read only in its last ``baselineTailBytes``, where the export keeps its
    /// verdict, so memory stays bounded whatever the file's size.
    public static let baselineWholeBytes = 4 << 20
    /// The end of a large baseline that is read: 256 KiB.
    public static let baselineTailBytes = 256 << 10

    /// The bytes of the baseline to parse: the whole file up to ``baselineWholeBytes``; past it,
    /// `{` and the document from its top-level `"verdict"` key on, found in the last
    /// ``baselineTailBytes`` (a soak's export writes its keys sorted, the verdict last). Throws
    /// `LabError.usage` naming the bound otherwise. One open, an `fstat` and one read of at most
    /// 4 MiB.
    static func baselineBytes(_ path: String) throws -> [UInt8] {
        do {
            let file = try FileDescriptor.openRegularFile(path)
            let size = try file.status().size
            if size <= baselineWholeBytes { return Array(try file.readAll(limit: baselineWholeBytes)) }
            let start = size - baselineTailBytes
            var tail = [UInt8](repeating: 0, count: baselineTailBytes)
            let filled = try tail.withUnsafeMutableBytes { raw throws(SystemError) -> Int in
                var filled = 0
                while filled < raw.count {
                    let n = try file.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[filled...]), at: start + filled)
                    if n == 0 { break }
                    filled += n
                }
                return filled
            }
            tail.removeLast(tail.count - filled)
            let key = Array("\n  \"verdict\" : ".utf8)
            let last = tail.count >= key.count ? stride(from: tail.count - key.count, through: 0, by: -1).first { tail[$0..<($0 + key.count)].elementsEqual(key) } : nil
            guard let at = last else {
                throw LabError.invalid(.baseline, problem: "\(PathText.display(path)) is \(SystemIO.NumberText.size(Double(size))), over the \(baselineWholeBytes >> 20) MiB read whole, and its last \(baselineTailBytes >> 10) KiB hold no top-level verdict, where a soak's \(LabTerm.exportJSON.spelled) keeps it")
            }
            return Array("{".utf8) + tail[(at + 1)...]
        } catch let error as SystemError {
            throw LabError.invalid(.baseline, problem: "\(error)")
        }
    }

    /// Streams one sample into the JSON document: the opening of the document before the
    /// first. O(sample).
    private func appendSample(_ sample: SoakSample) throws {
        guard let json else { return }
        let text = JSONDocument.encode(sample, pretty: true).replacing("\n", with: "\n    ")
        try json.write((samplesWritten == 0 ? "{\n  \"samples\" : [\n    " : ",\n    ") + text)
        samplesWritten += 1
    }

    /// Closes the samples and writes the rest of the document, then puts it in place. O(1).
    private func finishDocument(_ verdict: GrowthVerdict) throws {
        guard let json else { return }
        let rest = JSONDocument.encode(Document(scenario: request.scenarioPath, strategy: experiment.strategy.name, verdict: verdict,
                                                failedDecodes: soak.failedDecodes, failedReads: soak.failedReads), pretty: true)
        try json.write("\n  ]," + rest.dropFirst() + "\n")
        try json.commit()
    }
}
