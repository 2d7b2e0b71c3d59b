import StrictJSON
import Lab
import SystemIO
#if canImport(FoundationEssentials)
import FoundationEssentials
#endif

/// The work of `retention soak` between parsing and the exit status: prepare the experiment and
/// the outputs, run the soak writing one CSV row per iteration, show progress, write the JSON
/// document, and say what the exit status is. The command parses flags, installs the signal
/// handler (which calls `requestStop()`) and prints.
public final class SoakRun {
    /// What a finished soak left.
    public struct Outcome {
        /// The verdict on what was measured.
        public var verdict: GrowthVerdict
        /// The lines for standard output: the run's facts, then the verdict.
        public var report: [String]
        /// One-line errors for standard error: the resident limit that stopped the soak, or
        /// the first result that could not be written.
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

    /// The soak's JSON export.
    public struct Document: Encodable {
        /// The scenario file as given.
        public var scenario: String
        /// The strategy's name.
        public var strategy: String
        /// Every sample, warm-up included.
        public var samples: [SoakSample]
        /// The verdict.
        public var verdict: GrowthVerdict
        /// Rows whose decode failed, and rows whose read failed.
        public var failedDecodes: Int, failedReads: Int
    }

    /// The scenario file as given.
    public let scenarioPath: String
    /// The prepared experiment (strategy, settings, limit).
    public let experiment: Experiment
    private let soak: Soak
    private let csv: LineFile?
    private let exportJSON: String?
    private let warmup: Int

    /// Prepares a soak: loads and checks the scenario, resolves the strategy, checks that
    /// `exportJSON` can be written and creates `exportCSV` with its header, so every problem
    /// is found before a long soak starts. `repairNote` gets the trace repair summary, if any.
    /// Throws the first problem (the command's exit status 2). Costs one scenario load.
    public init(scenarioPath: String, strategyName: String, repairTrace: Bool, maxResidentBytes: Int?,
                limit: Soak.Limit, warmup: Int, maxGrowthBytes: Int, maxGrowthRate: GrowthRate,
                exportCSV: String?, exportJSON: String?, stop: StopRequest = StopRequest(), repairNote: (String) -> Void = { _ in }) throws {
        var experiment = try Experiment.prepare(scenarioPath: scenarioPath, strategyName: strategyName, repairTrace: repairTrace)
        if let repairs = experiment.trace?.repairs.summary { repairNote("\(scenarioPath): trace: \(repairs)") }
        experiment.maxResidentBytes = maxResidentBytes
        self.scenarioPath = scenarioPath
        self.experiment = experiment
        self.warmup = warmup
        self.exportJSON = exportJSON
        soak = try Soak(experiment: experiment, limit: limit, warmup: warmup, maxGrowthBytes: maxGrowthBytes,
                        maxGrowthRate: maxGrowthRate, keepsSamples: exportJSON != nil, stop: stop)
        if let exportJSON { try FileIO.checkWritable(exportJSON) }
        csv = try exportCSV.map { path throws -> LineFile in
            let file = try LineFile(creating: path)
            try file.append(SoakSample.csvHeader)
            return file
        }
    }

    /// Asks the soak to stop after the current iteration, as SIGTERM would; safe from any
    /// thread (an atomic).
    public func requestStop() {
        soak.stop.request(signal: 15)
    }

    /// Runs the soak to its limit or a stop request. After each iteration it appends the CSV
    /// row (a write failure is kept, later rows are still tried) and passes a progress line:
    /// `.transient` every iteration when `terminal`, otherwise `.line` for the first iteration
    /// and then at most every 10 s. Costs the soak itself plus one line of text per iteration.
    public func run(terminal: Bool, progress: (Progress) -> Void) -> Outcome {
        var lastPlain = 0.0
        var writeFailure: (any Error)?
        let verdict = soak.run { sample in
            do { try csv?.append(sample.csvLine) } catch { writeFailure = writeFailure ?? error }
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
        let report = [
            "soak: \(experiment.scenario.name) under \(experiment.strategy.name), \(soak.iterationsRun) iterations (\(warmup) warm-up), failed decodes \(soak.failedDecodes), failed reads \(soak.failedReads)",
            verdict.text,
        ]
        if let exportJSON {
            let document = Document(scenario: scenarioPath, strategy: experiment.strategy.name, samples: soak.recorded,
                                    verdict: verdict, failedDecodes: soak.failedDecodes, failedReads: soak.failedReads)
            do {
                try FileIO.replace(exportJSON, with: Data(JSONDocument.encode(document, pretty: true).utf8))
            } catch {
                writeFailure = writeFailure ?? error
            }
        }
        var status = verdict.outcome.exitStatus
        if let writeFailure {
            // Results that could not be written make the run a failed one.
            errors.append("Error: \(writeFailure)")
            status = GrowthVerdict.Outcome.failedRun.exitStatus
        }
        return Outcome(verdict: verdict, report: report, errors: errors, exitStatus: status)
    }

    /// One iteration's progress text. O(1).
    static func progressLine(_ sample: SoakSample, slope: Double) -> String {
        "iteration \(sample.iteration)\(sample.warmup ? " (warm-up)" : "")  elapsed \(Int(sample.elapsedSeconds)) s  resident \(NumberText.megabytes(sample.residentBytes)) (anonymous \(NumberText.megabytes(sample.anonymousBytes)))  slope \(NumberText.mb(slope)) MB/iteration"
    }
}
