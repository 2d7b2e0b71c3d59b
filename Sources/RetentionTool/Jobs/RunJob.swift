import Lab
import Scenario
import SystemIO

/// `retention run`: one strategy on a scenario, in this process, measured.
package struct RunJob {
    /// The scenario file; nil for the built-in default scenario.
    package var scenarioPath: String?
    /// A preset or a strategy the scenario defines.
    package var strategy: String
    /// Settings applied before the run (`--set`).
    package var settings: [SweepSetting] = []
    /// A timeline sample every this many frames; nil for about 200 samples.
    package var timelineEvery: Int?
    /// A cost table to price loads with; nil prices each at its own measured CPU time.
    package var costsPath: String?
    /// The decode-speed model the table's costs are divided by.
    package var decodeSpeed = 1.0
    /// The resident limit the run stops at; nil for the default.
    package var maxResidentBytes: Int?
    /// Drop a trace's impossible events instead of stopping at the first.
    package var repairTrace = false
    /// The report as one JSON object (a repaired trace's note then in it, not on standard
    /// error).
    package var json = false

    /// A run of `strategy`. O(1).
    package init(scenarioPath: String? = nil, strategy: String) {
        self.scenarioPath = scenarioPath
        self.strategy = strategy
    }

    /// What a run measured.
    package struct Outcome {
        /// The scenario file.
        package var scenarioPath: String
        /// The report: everything measured up to the end, or up to the stop.
        package var report: RunReport
        /// The stop, when resident memory went over the limit.
        package var stopped: ResidentLimitReached?

        /// The line for standard error, or nil: the stop's reason, else the failed loads'.
        package var errorLine: String? { stopped?.description ?? report.failedLoadsLine }

        /// 1 when the run stopped or a load failed (after the report), 0 otherwise.
        package var exitStatus: Int32 { errorLine == nil ? 0 : 1 }
    }

    /// Prepares the experiment (usage problems — a setting that cannot apply, a timeline of too
    /// many samples — are `LabError.usage`), runs it, and returns what it measured, a stop
    /// included (a repaired trace's note is the report's `traceRepairs`). Throws what stops it
    /// before it starts.
    /// Costs the scenario's decodes plus a statm read per frame.
    package func run(sink: ProgressSink) throws -> Outcome {
        try Preflight.fileDescriptors(Preflight.baseFileDescriptors, command: "run")
        let path = try scenarioPath ?? DefaultScenario.path(announce: sink.note)
        var request = ChildRunRequest.StrategyRun(scenarioPath: path, strategy: strategy)
        request.settings = settings
        request.repairTrace = repairTrace
        request.costsPath = costsPath
        request.decodeSpeed = decodeSpeed
        request.maxResidentBytes = maxResidentBytes
        var experiment = try request.experiment()
        experiment.timelineInterval = timelineEvery ?? 0
        if let timelineEvery, experiment.estimatedFrames / timelineEvery > RunReport.maximumTimelineSamples {
            let least = (experiment.estimatedFrames + RunReport.maximumTimelineSamples - 1) / RunReport.maximumTimelineSamples
            throw LabError.usage("--timeline-every \(timelineEvery) would keep \(experiment.estimatedFrames / timelineEvery) samples of this run's \(experiment.estimatedFrames) frames, over the limit of \(RunReport.maximumTimelineSamples); give --timeline-every \(least) or more")
        }
        let (report, stopped) = try experiment.runToEnd()
        return Outcome(scenarioPath: path, report: report, stopped: stopped)
    }
}

extension RunJob: Job {
    /// `run`.
    package static let command = "run"

    /// The report (text, or one JSON object with ``json``), a repaired trace's note and the
    /// stop's or failed loads' line on standard error, and the exit status. O(report).
    package func report(_ outcome: Outcome) -> JobReport {
        var errors: [String] = []
        if let repairs = outcome.report.traceRepairs, !json { errors.append("\(outcome.scenarioPath): trace: \(repairs)") }
        if let line = outcome.errorLine { errors.append("Error: \(line)") }
        return JobReport(output: JobText.render(outcome, json: json) + "\n", errors: errors, exitStatus: outcome.exitStatus)
    }
}
