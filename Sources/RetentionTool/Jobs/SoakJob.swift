import Lab
import SoakProbe
import StrictJSON
import SystemIO
#if canImport(FoundationEssentials)
import FoundationEssentials
#endif

/// `retention soak`: one scenario repeated under one strategy until a limit, with the exports
/// written as iterations finish, progress on the sink, and a verdict on retained memory. The
/// job is made in two steps, so every problem is found before a long soak starts: `init`
/// prepares (scenario, strategy, exports), ``run(sink:)`` soaks. A class, since
/// ``requestStop()`` reaches a running soak from another thread.
public struct SoakJob {
    /// What the soak is asked to do; every field has the command's default.
    public struct Inputs: Sendable {
        /// The scenario file.
        public var scenarioPath: String
        /// A preset or a strategy the scenario defines.
        public var strategy: String
        /// When the soak ends: a number of measured iterations or a duration in seconds.
        public var limit: Soak.Limit
        /// Stop as soon as the verdict is decided (`--until-verdict`).
        public var untilVerdict = false
        /// Iterations run before measuring.
        public var warmup = 2
        /// The largest accepted growth of retained memory over ``horizonHours`` of modelled use,
        /// in bytes.
        public var maxGrowthBytes = 16_000_000
        /// The fastest accepted growth of retained memory (per hour of modelled use by default).
        public var maxGrowthRate = GrowthRate.default
        /// Hours of modelled use the growth limit is judged over (`--horizon`).
        public var horizonHours = 1.0
        /// A cost table to price loads with (`--costs`), so an asynchronous scenario's virtual
        /// decode timing is the same on every host; nil prices each load at its measured CPU time.
        public var costsPath: String?
        /// Divides every cost in the table (`--decode-speed`).
        public var decodeSpeed = 1.0
        /// The resident limit the soak stops at; nil for the default share of the machine's or
        /// the cgroup's memory.
        public var maxResidentBytes: Int?
        /// Where one CSV row per iteration and the JSON document are written; nil for none.
        public var exportCSV: String?, exportJSON: String?
        /// Drop a trace's impossible events instead of stopping at the first.
        public var repairTrace = false
        /// Where a JUnit XML report of the soak goes (`--junit`); nil for none.
        public var junitPath: String?
        /// A soak's JSON export from the main branch (`--baseline`): the soak fails (exit 1)
        /// when its slope grew significantly against it (``BaselineComparison``); nil for none.
        public var baselinePath: String?
        /// Asked at every frame; a signal or ``SoakJob/requestStop()`` ends the soak there.
        public var stop = StopRequest()

        /// A soak of `scenarioPath` under `strategy` until `limit`, with the defaults. O(1).
        public init(scenarioPath: String, strategy: String, limit: Soak.Limit) {
            self.scenarioPath = scenarioPath
            self.strategy = strategy
            self.limit = limit
        }
    }

    /// What a finished soak left.
    public struct Outcome {
        /// The verdict on what was measured.
        public var verdict: GrowthVerdict
        /// The lines for standard output: the run's facts, then the verdict.
        public var report: [String]
        /// One-line errors and notes for standard error: the resident limit that stopped the
        /// soak, a stop signal, the first result that could not be written.
        public var errors: [String]
        /// The process exit status: the verdict's, or a failed run's (2) when a result could
        /// not be written.
        public var exitStatus: Int32
    }

    /// The exit status of a soak that could not run or whose results could not be written (2),
    /// which scripts tell apart from growth (1).
    public static let failedRunStatus = GrowthVerdict.Outcome.failedRun.exitStatus

    /// Parses a soak duration: `90s`, `30m`, `2h`, `1h30m`; nil for anything else. O(length).
    public static func duration(parsing text: String) -> Double? { parseSoakDuration(text) }

    /// What to soak.
    public var inputs: Inputs

    /// A soak of `inputs`; nothing is checked or run until ``run(sink:)``. O(1).
    public init(_ inputs: Inputs) {
        self.inputs = inputs
    }

    /// Asks the soak to stop at the end of the current frame, as SIGTERM would (the inputs'
    /// stop request); safe from any thread (an atomic).
    public func requestStop() {
        inputs.stop.request(signal: 15)
    }

    /// Prepares the soak (see ``Session``'s checks; throws the first problem: `LabError.usage`
    /// for an export that is an input, anything else a failed run), then runs it to its
    /// limit, its verdict or a stop request. Costs the soak; memory stays constant.
    public func run(sink: JobSink) throws -> Outcome {
        try Session(inputs, sink: sink).run(sink: sink)
    }

    /// One iteration's progress text: wall time (labelled), memory, and the slope per hour of
    /// use beside per iteration. O(1).
    static func progressLine(_ sample: SoakSample, verdict: GrowthVerdict) -> String {
        "iteration \(sample.iteration)\(sample.warmup ? " (warm-up)" : "")  wall \(Int(sample.elapsedSeconds)) s  resident \(NumberText.megabytes(sample.residentBytes)) (retained \(NumberText.megabytes(sample.retainedBytes)))  slope \(verdict.perHourOfUse(verdict.slopeBytesPerIteration))"
    }
}

extension SoakJob {
    /// One soak's preparation and run: the experiment, the soak, its exports.
    final class Session {
        /// The soak's JSON export, apart from its samples (which are streamed to the file as the
        /// iterations finish, so a soak of any length keeps none in memory).
        struct Document: Encodable {
            var schemaVersion = ExportSchema.version
            var scenario: String
            var strategy: String
            var verdict: GrowthVerdict
            var failedDecodes: Int, failedReads: Int
        }

        /// The scenario file as given.
        let scenarioPath: String
        /// The prepared experiment (strategy, settings, limit).
        let experiment: Experiment
        private let soak: Soak
        private let csv: LineFile?
        private let json: StagedFile?
        private var samplesWritten = 0
        private let warmup: Int
        private let junitPath: String?
        /// The baseline's slope and interval per hour of use, from `--baseline`.
        private let baseline: (slope: Double, interval: ClosedRange<Double>)?

        /// Prepares a soak: checks the file descriptors, loads and checks the scenario, resolves
        /// the strategy, and checks that the exports can be written and are not among the files
        /// the scenario brings (its trace, its images), so nothing is written over an old export
        /// until a sample exists. The sink's note gets the trace repair summary, if any. Throws the
        /// first problem: `LabError.usage` for an export that is an input (exit 64), anything else
        /// a failed run (``failedRunStatus``). Costs one scenario load.
        init(_ inputs: Inputs, sink: JobSink) throws {
            try Preflight.fileDescriptors(Preflight.baseFileDescriptors + 4, command: "soak")
            let scenarioPath = inputs.scenarioPath
            var experiment = try Experiment.prepare(scenarioPath: scenarioPath, strategyName: inputs.strategy, repairTrace: inputs.repairTrace)
            if let repairs = experiment.trace?.repairs.summary { sink.note("\(scenarioPath): trace: \(repairs)") }
            experiment.maxResidentBytes = inputs.maxResidentBytes ?? ResidentLimit.defaultBytes()
            experiment.costs = CostModel(table: try inputs.costsPath.map { try CostTable.load(contentsOf: $0) }, decodeSpeed: inputs.decodeSpeed)
            try OutputCheck.check(outputs: [inputs.exportCSV.map { .init("--export-csv", $0) }, inputs.exportJSON.map { .init("--export-json", $0) },
                                            inputs.junitPath.map { .init("--junit", $0) }],
                                  inputs: OutputCheck.scenarioInputs(path: scenarioPath, trace: experiment.trace, images: experiment.images)
                                    + (inputs.costsPath.map { [OutputCheck.Input("the cost table", $0)] } ?? []))
            self.scenarioPath = scenarioPath
            self.experiment = experiment
            self.warmup = inputs.warmup
            junitPath = inputs.junitPath
            baseline = try inputs.baselinePath.map(Self.readBaseline)
            soak = try Soak(experiment: experiment, limit: inputs.limit, warmup: inputs.warmup, maxGrowthBytes: inputs.maxGrowthBytes,
                            maxGrowthRate: inputs.maxGrowthRate, horizonHours: inputs.horizonHours, untilVerdict: inputs.untilVerdict, stop: inputs.stop)
            csv = try inputs.exportCSV.map { try LineFile(replacing: $0, header: SoakSample.csvHeader) }
            json = try inputs.exportJSON.map { try StagedFile(replacing: $0) }
        }


        /// Runs the soak to its limit, its verdict (`--until-verdict`) or a stop request. After
        /// each iteration it appends the CSV row and the JSON sample (a write failure is kept,
        /// later rows are still tried) and shows progress: redrawn every iteration on a terminal
        /// (ended when the soak ends), otherwise a note for the first iteration and then at most
        /// every 10 s. Costs the soak itself plus a line of text per iteration; memory stays
        /// constant.
        func run(sink: JobSink) -> Outcome {
            var lines = ProgressLines(sink: sink, plainPrefix: "")
            var writeFailure: (any Error)?
            func record(_ body: () throws -> Void) {
                do { try body() } catch { writeFailure = writeFailure ?? error }
            }
            let verdict = soak.run { sample in
                record { try csv?.append(sample.csvLine) }
                record { try appendSample(sample) }
                lines.report(SoakJob.progressLine(sample, verdict: soak.verdict()))
            }
            if sink.isTerminal { sink.note("") }
            var errors: [String] = []
            if let reached = soak.residentLimitReached { errors.append("Error: \(reached)") }
            if let signal = verdict.stoppedBy {
                errors.append("retention soak: stopped by \(signal)\(soak.interruptedIteration.map { " during iteration \($0)" } ?? ""); the verdict covers the \(soak.iterationsRun) iteration\(soak.iterationsRun == 1 ? "" : "s") before it")
            }
            let run = soak.iterationsRun
            let iterations = run > warmup ? "\(run) iterations (\(warmup) warm-up, \(run - warmup) measured)"
                : run == 0 ? "no iteration finished" : "\(run) of \(warmup) warm-up iterations finished, none measured"
            var report = [
                "soak: \(experiment.scenario.name) under \(experiment.strategy.name), \(iterations), failed decodes \(soak.failedDecodes), failed reads \(soak.failedReads)",
                verdict.text,
            ]
            var reasons = verdict.reasons
            var baselineGrew = false
            if let baseline, run > warmup, verdict.slopeLowerBytesPerHourOfUse.isFinite, verdict.slopeUpperBytesPerHourOfUse.isFinite,
               verdict.slopeBytesPerHourOfUse.isFinite {
                let comparison = BaselineComparison(
                    slope: verdict.slopeBytesPerHourOfUse, interval: verdict.slopeLowerBytesPerHourOfUse...max(verdict.slopeLowerBytesPerHourOfUse, verdict.slopeUpperBytesPerHourOfUse),
                    baselineSlope: baseline.slope, baselineInterval: baseline.interval, unit: "hour of use",
                    minimumEffect: (verdict.maxGrowthRateBytesPerHour ?? 0) / 4)
                report.append(comparison.description)
                baselineGrew = comparison.grewSignificantly
                if baselineGrew { reasons.append(comparison.description) }
            }
            if json != nil {
                if samplesWritten > 0 {
                    record { try finishDocument(verdict) }
                } else if let path = json?.path {
                    errors.append("retention soak: no iteration finished, so \(PathText.display(path)) was not written")
                }
            }
            if let junitPath {
                let test = JUnitReport.TestCase(name: "\(experiment.scenario.name) under \(experiment.strategy.name)", seconds: verdict.wallSeconds,
                                                outcome: verdict.outcome.rawValue,
                                                message: ([verdict.verdictWord] + reasons).joined(separator: "; "),
                                                details: report.joined(separator: "\n"))
                record { try JUnitReport(cases: [test]).write(to: junitPath) }
            }
            var status = verdict.outcome.exitStatus
            if baselineGrew && status == 0 {
                status = GrowthVerdict.Outcome.growth.exitStatus
                report.append("verdict against the baseline: FAIL (the slope grew significantly); exit status 1")
            }
            if let writeFailure {
                // Results that could not be written make the run a failed one.
                errors.append("Error: \(writeFailure)")
                status = GrowthVerdict.Outcome.failedRun.exitStatus
                report.append("results: not all were written (\(writeFailure)); exit status 2")
            }
            return Outcome(verdict: verdict, report: report, errors: errors, exitStatus: status)
        }

        /// The slope and its interval per hour of use in a soak's JSON export (`verdict`'s
        /// `slopeBytesPerHourOfUse`, `slopeLowerBytesPerHourOfUse`, `slopeUpperBytesPerHourOfUse`).
        /// Throws `LabError.usage` naming the file and what is missing. O(size).
        static func readBaseline(_ path: String) throws -> (slope: Double, interval: ClosedRange<Double>) {
            let data: [UInt8]
            do { data = Array(try FileIO.readAll(path, limit: 256 << 20)) } catch { throw LabError.usage("--baseline: \(error)") }
            let tree: JSONValue
            do { tree = try JSONDocument.parse(data, source: path) } catch { throw LabError.usage("--baseline: \(error)") }
            func number(_ key: String) -> Double? {
                guard case .object(let verdict)? = tree["verdict"], let value = verdict[key] else { return nil }
                switch value {
                case .number(let n): return n
                default: return nil
                }
            }
            guard let slope = number("slopeBytesPerHourOfUse"), let lower = number("slopeLowerBytesPerHourOfUse"),
                  let upper = number("slopeUpperBytesPerHourOfUse"), lower <= upper, lower.isFinite, upper.isFinite else {
                throw LabError.usage("--baseline: \(PathText.display(path)) is not a soak's --export-json (no verdict with slopeBytesPerHourOfUse and its interval)")
            }
            return (slope, lower...upper)
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
            let rest = JSONDocument.encode(Document(scenario: scenarioPath, strategy: experiment.strategy.name, verdict: verdict,
                                                    failedDecodes: soak.failedDecodes, failedReads: soak.failedReads), pretty: true)
            try json.write("\n  ]," + rest.dropFirst() + "\n")
            try json.commit()
        }
    }
}

extension SoakJob: Job {
    /// `soak`.
    public static let command = "soak"
    /// 2, a failed run: results that cannot be written are never growth.
    public static var outputFailureStatus: Int32 { failedRunStatus }

    /// The summary and verdict lines, the errors (a limit reached, a stop, a write that
    /// failed), and the verdict's exit status. O(lines).
    public func report(_ outcome: Outcome) -> JobReport {
        JobReport(output: outcome.report.map { $0 + "\n" }.joined(), errors: outcome.errors, exitStatus: outcome.exitStatus)
    }

    /// A usage problem is shown with the usage (exit 64); anything else that stops the soak
    /// before it measures is a failed run (`Error: …`, exit 2), never growth (exit 1). O(1).
    public func report(failure error: any Error) -> JobReport {
        if case .usage(let message) = JobFailure(error) { return JobReport(exitStatus: 64, usage: message) }
        return JobReport(errors: ["Error: \(error)"], exitStatus: Self.failedRunStatus)
    }
}
