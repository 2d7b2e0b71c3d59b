import Lab
import StrictJSON
import SystemIO
#if canImport(FoundationEssentials)
import FoundationEssentials
#endif

/// The work of `retention soak` between parsing and the exit status: prepare the experiment and
/// the outputs, run the soak writing one CSV row and one JSON sample per iteration, show
/// progress, finish the JSON document, and say what the exit status is. The command parses
/// flags, installs the stop signals and prints.
public final class SoakRun {
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

    /// How a progress line is shown.
    public enum Progress {
        /// Redrawn in place on a terminal.
        case transient(String)
        /// A line of its own (a log, not a terminal), at most one every 10 s.
        case line(String)
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

    /// The scenario file as given.
    public let scenarioPath: String
    /// The prepared experiment (strategy, settings, limit).
    public let experiment: Experiment
    private let soak: Soak
    private let csv: LineFile?
    private let json: StagedFile?
    private var samplesWritten = 0
    private let warmup: Int

    /// Prepares a soak: loads and checks the scenario, resolves the strategy, and checks that
    /// the exports can be written and are not among the files the scenario brings (its trace,
    /// its images), so every problem is found before a long soak starts and nothing is written
    /// over an old export until a sample exists. `repairNote` gets the trace repair summary,
    /// if any. Throws the first problem: `LabError.usage` for an export that is an input
    /// (exit 64), anything else a failed run (exit 2). Costs one scenario load.
    public init(scenarioPath: String, strategyName: String, repairTrace: Bool, maxResidentBytes: Int?,
                limit: Soak.Limit, untilVerdict: Bool = false, warmup: Int, maxGrowthBytes: Int, maxGrowthRate: GrowthRate,
                exportCSV: String?, exportJSON: String?, stop: StopRequest = StopRequest(), repairNote: (String) -> Void = { _ in }) throws {
        var experiment = try Experiment.prepare(scenarioPath: scenarioPath, strategyName: strategyName, repairTrace: repairTrace)
        if let repairs = experiment.trace?.repairs.summary { repairNote("\(scenarioPath): trace: \(repairs)") }
        experiment.maxResidentBytes = maxResidentBytes
        try OutputCheck.check(outputs: [exportCSV.map { .init("--export-csv", $0) }, exportJSON.map { .init("--export-json", $0) }],
                              inputs: OutputCheck.scenarioInputs(path: scenarioPath, trace: experiment.trace, images: experiment.images))
        self.scenarioPath = scenarioPath
        self.experiment = experiment
        self.warmup = warmup
        soak = try Soak(experiment: experiment, limit: limit, warmup: warmup, maxGrowthBytes: maxGrowthBytes,
                        maxGrowthRate: maxGrowthRate, untilVerdict: untilVerdict, stop: stop)
        csv = try exportCSV.map { try LineFile(replacing: $0, header: SoakSample.csvHeader) }
        json = try exportJSON.map { try StagedFile(replacing: $0) }
    }

    /// Asks the soak to stop at the end of the current frame, as SIGTERM would; safe from any
    /// thread (an atomic).
    public func requestStop() {
        soak.stop.request(signal: 15)
    }

    /// Runs the soak to its limit, its verdict (`--until-verdict`) or a stop request. After
    /// each iteration it appends the CSV row and the JSON sample (a write failure is kept,
    /// later rows are still tried) and passes a progress line: `.transient` every iteration
    /// when `terminal`, otherwise `.line` for the first iteration and then at most every 10 s.
    /// Costs the soak itself plus a line of text per iteration; memory stays constant.
    public func run(terminal: Bool, progress: (Progress) -> Void) -> Outcome {
        var lastPlain = 0.0
        var writeFailure: (any Error)?
        func record(_ body: () throws -> Void) {
            do { try body() } catch { writeFailure = writeFailure ?? error }
        }
        let verdict = soak.run { sample in
            record { try csv?.append(sample.csvLine) }
            record { try appendSample(sample) }
            let line = Self.progressLine(sample, slope: soak.verdict().slopeBytesPerIteration)
            if terminal {
                progress(.transient(line))
            } else if sample.elapsedSeconds - lastPlain >= 10 || sample.iteration == 1 {
                progress(.line(line))
                lastPlain = sample.elapsedSeconds
            }
        }
        var errors: [String] = []
        if let reached = soak.residentLimitReached { errors.append("Error: \(reached)") }
        if let signal = verdict.stoppedBy {
            errors.append("retention soak: stopped by \(signal)\(soak.interruptedIteration.map { " during iteration \($0)" } ?? ""); the verdict covers the \(soak.iterationsRun) iteration\(soak.iterationsRun == 1 ? "" : "s") before it")
        }
        var report = [
            "soak: \(experiment.scenario.name) under \(experiment.strategy.name), \(soak.iterationsRun) iterations (\(warmup) warm-up), failed decodes \(soak.failedDecodes), failed reads \(soak.failedReads)",
            verdict.text,
        ]
        if json != nil {
            if samplesWritten > 0 {
                record { try finishDocument(verdict) }
            } else if let path = json?.path {
                errors.append("retention soak: no iteration finished, so \(PathText.display(path)) was not written")
            }
        }
        var status = verdict.outcome.exitStatus
        if let writeFailure {
            // Results that could not be written make the run a failed one.
            errors.append("Error: \(writeFailure)")
            status = GrowthVerdict.Outcome.failedRun.exitStatus
            report.append("results: not all were written (\(writeFailure)); exit status 2")
        }
        return Outcome(verdict: verdict, report: report, errors: errors, exitStatus: status)
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

    /// One iteration's progress text. O(1).
    static func progressLine(_ sample: SoakSample, slope: Double) -> String {
        "iteration \(sample.iteration)\(sample.warmup ? " (warm-up)" : "")  elapsed \(Int(sample.elapsedSeconds)) s  resident \(NumberText.megabytes(sample.residentBytes)) (retained \(NumberText.megabytes(sample.retainedBytes)))  slope \(NumberText.size(slope))/iteration"
    }
}
