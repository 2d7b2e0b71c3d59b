import Lab
import SoakProbe
import SystemIO

/// `retention soak`: one scenario repeated under one strategy until a limit, an adapter over
/// Lab's ``ScenarioSoak`` (which prepares, runs, streams the exports and compares with a
/// baseline): it writes the JUnit report and turns the result into text and an exit status.
/// Every problem is found before a long soak starts.
package struct SoakJob {
    /// What a finished soak left.
    package struct Outcome {
        /// The verdict on what was measured.
        package var verdict: GrowthVerdict
        /// The lines for standard output: the run's facts, then the verdict.
        package var report: [String]
        /// One-line errors and notes for standard error: the resident limit that stopped the
        /// soak, a stop signal, the first result that could not be written.
        package var errors: [String]
        /// The process exit status: the verdict's, or a failed run's (2) when a result could
        /// not be written.
        package var exitStatus: Int32
    }

    /// The exit status of a soak that could not run or whose results could not be written (2),
    /// which scripts tell apart from growth (1).
    package static let failedRunStatus = SoakOutcome.failedRun.exitStatus

    /// Parses a soak duration: `90s`, `30m`, `2h`, `1h30m`; nil for anything else. O(length).
    package static func duration(parsing text: String) -> Double? { parseSoakDuration(text) }

    /// What to soak.
    package var request: ScenarioSoak.Request
    /// Where a JUnit XML report of the soak goes (`--junit`); nil for none.
    package var junitPath: String?

    /// A soak of `request`, with a JUnit report at `junitPath`; nothing is checked or run until
    /// ``run(sink:)``. O(1).
    package init(_ request: ScenarioSoak.Request, junitPath: String? = nil) {
        self.request = request
        self.junitPath = junitPath
    }

    /// Asks the soak to stop at the end of the current frame, as SIGTERM would (the request's
    /// stop request); safe from any thread (an atomic).
    package func requestStop() {
        request.stop.request(signal: 15)
    }

    /// Prepares the soak (``ScenarioSoak/init(_:progress:)``'s checks; throws the first problem:
    /// `LabError.usage` for an export that is an input, anything else a failed run), runs it to
    /// its limit, its verdict or a stop request, and writes the JUnit report. Costs the soak;
    /// memory stays constant.
    package func run(sink: ProgressSink) throws -> Outcome {
        var request = request
        request.reportPath = junitPath
        let result = try ScenarioSoak(request, progress: sink).run(progress: sink)
        return outcome(result)
    }

    /// The text of a soak's result, its JUnit report written, and its exit status (a JUnit
    /// report that cannot be written makes it a failed run). O(reasons).
    func outcome(_ result: ScenarioSoak.Result) -> Outcome {
        let verdict = result.verdict
        var errors: [String] = []
        if let reached = result.residentLimitReached { errors.append("Error: \(reached)") }
        if let signal = verdict.stoppedBy {
            errors.append("retention soak: stopped by \(signal)\(result.interruptedIteration.map { " during iteration \($0)" } ?? ""); the verdict covers the \(result.iterationsRun) iteration\(result.iterationsRun == 1 ? "" : "s") before it")
        }
        let run = result.iterationsRun, warmup = result.warmup
        let iterations = run > warmup ? "\(run) iterations (\(warmup) warm-up, \(run - warmup) measured)"
            : run == 0 ? "no iteration finished" : "\(run) of \(warmup) warm-up iterations finished, none measured"
        var report = [
            "soak: \(result.scenarioName) under \(result.strategyName), \(iterations), failed decodes \(result.failedDecodes), failed reads \(result.failedReads)",
            verdict.text,
        ]
        if let baseline = result.baseline { report.append(baseline.description) }
        if let path = result.unwrittenExport {
            errors.append("retention soak: no iteration finished, so \(PathText.display(path)) was not written")
        }
        var writeFailure = result.writeFailure
        if let junitPath {
            let test = JUnitReport.TestCase(name: "\(result.scenarioName) under \(result.strategyName)", seconds: verdict.wallSeconds,
                                            outcome: result.baselineGrew && verdict.outcome.exitStatus == 0 ? SoakOutcome.growth.rawValue
                                                : result.baselineUndecided && verdict.outcome.exitStatus == 0 ? SoakOutcome.inconclusive.rawValue
                                                : verdict.outcome.rawValue,
                                            message: ([verdict.verdictWord] + result.reasons).joined(separator: "; "),
                                            details: report.joined(separator: "\n"))
            do { try JUnitReport(cases: [test]).write(to: junitPath) } catch { writeFailure = writeFailure ?? error }
        }
        var status = result.exitStatus
        if verdict.outcome.exitStatus == 0, let against = result.baseline?.verdictAgainstPass(measured: max(0, result.iterationsRun - result.warmup)) {
            report.append(against.line)
        }
        if let writeFailure {
            // Results that could not be written make the run a failed one.
            errors.append("Error: \(writeFailure)")
            status = SoakOutcome.failedRun.exitStatus
            report.append("results: not all were written (\(writeFailure)); exit status 2")
        }
        return Outcome(verdict: verdict, report: report, errors: errors, exitStatus: status)
    }
}

extension SoakJob: Job {
    /// `soak`.
    package static let command = "soak"
    /// 2, a failed run: results that cannot be written are never growth.
    package static var outputFailureStatus: Int32 { failedRunStatus }

    /// The summary and verdict lines, the errors (a limit reached, a stop, a write that
    /// failed), and the verdict's exit status. O(lines).
    package func report(_ outcome: Outcome) -> JobReport {
        JobReport(output: outcome.report.map { $0 + "\n" }.joined(), errors: outcome.errors, exitStatus: outcome.exitStatus)
    }

    /// A usage problem is shown with the usage (exit 64); anything else that stops the soak
    /// before it measures is a failed run (`Error: …`, exit 2), never growth (exit 1). O(1).
    package func report(failure error: any Error) -> JobReport {
        if case .usage(let message) = JobFailure(error) { return JobReport(exitStatus: 64, usage: message) }
        return JobReport(errors: ["Error: \(error)"], exitStatus: Self.failedRunStatus)
    }
}
