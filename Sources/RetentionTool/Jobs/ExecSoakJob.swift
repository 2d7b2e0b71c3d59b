import Lab
import SoakProbe
import StrictJSON
import SystemIO

/// `retention soak --exec -- CMD ARGS…`: another program soaked from outside through SoakProbe's
/// ``ProcessSoak`` (started through `ChildProcess`, sampled from `/proc/PID/smaps_rollup` after
/// each marker line or interval), judged by the rule every soak shares, with progress on the
/// sink and, with `--junit`, a JUnit XML report. Exit statuses as a scenario soak's: 0 PASS,
/// 1 FAIL, 2 a failed run (the program crashed, could not start, or results could not be
/// written), 3 INCONCLUSIVE (too few iterations, the program exited early or stalled, a signal).
package struct ExecSoakJob {
    /// What to soak; every field has the command's default.
    package struct Inputs: Sendable {
        /// The program and its arguments (the words after `--`).
        package var command: [String]
        /// The marker line's text; nil with ``everySeconds``.
        package var marker: String? = ProcessSoak.defaultMarker
        /// An iteration every this many wall seconds instead of a marker; nil for markers.
        package var everySeconds: Double?
        /// Iterations run before measuring.
        package var warmup = 2
        /// Measured iterations (the most, with ``untilVerdict``).
        package var iterations = 200
        /// Stop as soon as the verdict is decided.
        package var untilVerdict = false
        /// The fastest accepted growth, bytes per iteration.
        package var maxGrowthBytesPerIteration = ProcessSoak.defaultGrowthLimit.bytes
        /// Read `Private_Dirty` instead of `Anonymous`.
        package var privateDirty = false
        /// Measure the program's own process only, not the tree it starts (`--pid-only`).
        package var pidOnly = false
        /// The longest wait for a marker, in seconds.
        package var iterationTimeoutSeconds = ProcessSoak.defaultIterationTimeoutSeconds
        /// Where a JUnit XML report goes; nil for none.
        package var junitPath: String?
        /// Where one CSV row per iteration and the JSON document (samples and verdict) go; nil
        /// for none.
        package var exportCSV: String?, exportJSON: String?
        /// A soak of the same program's `exportJSON` from the main branch: its slope per
        /// iteration and interval are compared with this soak's; nil for none.
        package var baselinePath: String?
        /// Asked between polls; a signal or ``ExecSoakJob/requestStop()`` ends the soak.
        package var stop = StopRequest()

        /// A soak of `command` with the defaults. O(1).
        package init(command: [String]) {
            self.command = command
        }
    }

    /// What a finished soak left.
    package struct Outcome {
        /// The soak's outcome, verdict first.
        package var soak: ProcessSoak.Outcome
        /// The lines for standard output.
        package var report: [String]
        /// One-line errors for standard error.
        package var errors: [String]
        /// The exit status: the verdict's (for a PASS, 1 when the slope grew against the
        /// baseline, 3 when that comparison is undecided), or 2 when a result could not be written.
        package var exitStatus: Int32
        /// The slope against the baseline's; nil without one or without a fitted slope.
        package var baseline: BaselineComparison?
    }

    /// What to soak.
    package var inputs: Inputs

    /// A soak of `inputs`; nothing runs until ``run(sink:)``. O(1).
    package init(_ inputs: Inputs) {
        self.inputs = inputs
    }

    /// Asks the soak to stop between two polls, as SIGTERM would; safe from any thread.
    package func requestStop() {
        inputs.stop.request(signal: 15)
    }

    /// The soak's options from the inputs. O(command).
    var options: ProcessSoak.Options {
        var options = ProcessSoak.Options(command: inputs.command)
        options.delimiter = inputs.everySeconds.map { .every(seconds: $0) } ?? .marker(inputs.marker ?? ProcessSoak.defaultMarker)
        options.warmup = inputs.warmup
        options.iterations = inputs.untilVerdict ? .untilVerdict(max: inputs.iterations) : .fixed(inputs.iterations)
        options.limit = .perIteration(ByteSize(bytes: max(0, inputs.maxGrowthBytesPerIteration)))
        options.measure = inputs.privateDirty ? .privateDirty : .anonymous
        options.iterationTimeoutSeconds = inputs.iterationTimeoutSeconds
        options.stop = inputs.stop
        options.scope = inputs.pidOnly ? .programOnly : .tree
        // The command owns no other children: it takes in the program's detached daemons, so
        // they are measured and ended with the program.
        options.adoptOrphans = true
        // And a cgroup of its own where one can be made, so nothing it starts escapes.
        options.ownCgroup = true
        return options
    }

    /// One measured iteration in the JSON export.
    struct ExportSample: Encodable {
        var iteration: Int, warmup: Bool, elapsedSeconds: Double
        var measureBytes: Int, residentBytes: Int, anonymousBytes: Int
    }

    /// The JSON export apart from its samples (streamed as iterations finish): the program,
    /// the measure and the verdict, with the slope keys a `--baseline` reads.
    struct ExportDocument: Encodable {
        struct Verdict: Encodable {
            var outcome: String
            var slopeBytesPerIteration: Double, slopeLowerBytesPerIteration: Double, slopeUpperBytesPerIteration: Double
            var limitBytesPerIteration: Double
            var warmupIterations: Int, measuredIterations: Int
            var reasons: [String]
        }
        var schemaVersion = ExportSchema.version
        var command: [String]
        var measure: String
        var verdict: Verdict
    }

    /// The slope against the baseline's, per iteration, beyond a quarter of the allowed rate;
    /// nil without a baseline or before an interval was fitted. O(1).
    static func comparison(_ verdict: SoakVerdict, baseline: (slope: Double, interval: ClosedRange<Double>)?, limit: Double) -> BaselineComparison? {
        let lower = verdict.slopeLowerBytesPerIteration, upper = verdict.slopeUpperBytesPerIteration
        guard let baseline, verdict.measuredIterations >= 3, lower.isFinite, upper.isFinite, verdict.slopeBytesPerIteration.isFinite else { return nil }
        return BaselineComparison(slope: verdict.slopeBytesPerIteration, interval: lower...max(lower, upper), baselineSlope: baseline.slope,
                                  baselineInterval: baseline.interval, unit: "iteration", minimumEffect: limit / 4)
    }

    /// Checks that the JUnit report can be written, runs the soak (progress on the sink: redrawn
    /// every iteration on a terminal, otherwise the first and then at most one line every 10 s),
    /// and writes the report. Throws
    /// ``ProcessSoakError`` when the program cannot be found or started (a failed run, exit 2)
    /// and `SystemError` for a JUnit path that cannot be written. Costs the program's run.
    package func run(sink: ProgressSink) throws -> Outcome {
        if let path = inputs.junitPath {
            do { try FileIO.checkWritable(path) } catch { throw LabError.usage("--junit: \(error); nothing was run") }
        }
        try OutputCheck.check(outputs: [inputs.exportCSV.map { .init("--export-csv", $0) }, inputs.exportJSON.map { .init("--export-json", $0) },
                                        inputs.junitPath.map { .init("--junit", $0) }],
                              inputs: inputs.baselinePath.map { [OutputCheck.Input("the baseline", $0)] } ?? [])
        let baseline = try inputs.baselinePath.map { try ScenarioSoak.readBaseline($0, per: "Iteration") }
        let limit = Double(inputs.maxGrowthBytesPerIteration)
        var options = options
        // Under --until-verdict, a PASS stops only once the baseline comparison is decided too.
        options.alsoDecided = { baseline == nil || Self.comparison($0, baseline: baseline, limit: limit)?.decision != .undecided }
        let csv = try inputs.exportCSV.map { try LineFile(replacing: $0, header: CSV.line(["iteration", "warmup", "elapsedSeconds", "measureBytes", "residentBytes", "anonymousBytes"])) }
        let json = try inputs.exportJSON.map { try StagedFile(replacing: $0) }
        var writeFailure: (any Error)?
        var samplesWritten = 0
        func record(_ body: () throws -> Void) {
            do { try body() } catch { writeFailure = writeFailure ?? error }
        }
        var progressLines = ProgressLines(sink: sink, plainPrefix: "")
        let soak = try ProcessSoak.run(options) { progress in
            let sample = progress.sample
            let row = ExportSample(iteration: progress.iteration, warmup: progress.warmup, elapsedSeconds: progress.elapsedSeconds,
                                   measureBytes: sample.retainedBytes, residentBytes: sample.residentBytes, anonymousBytes: sample.anonymousBytes)
            record { try csv?.append(CSV.line(["\(row.iteration)", "\(row.warmup)", "\((row.elapsedSeconds * 1000).rounded() / 1000)",
                                               "\(row.measureBytes)", "\(row.residentBytes)", "\(row.anonymousBytes)"])) }
            record {
                guard let json else { return }
                let text = JSONDocument.encode(row, pretty: true).replacing("\n", with: "\n    ")
                try json.write((samplesWritten == 0 ? "{\n  \"samples\" : [\n    " : ",\n    ") + text)
                samplesWritten += 1
            }
            progressLines.report("iteration \(progress.iteration)\(progress.warmup ? " (warm-up)" : "")  \(progress.verdict.measure.shortName) \(SystemIO.NumberText.size(Double(sample.retainedBytes)))  resident \(SystemIO.NumberText.size(Double(sample.residentBytes)))  slope \(progress.verdict.rate(progress.verdict.slopeBytesPerIteration))")
        }
        progressLines.end()
        var lines = Self.reportLines(soak, inputs: inputs)
        var errors: [String] = []
        if let early = soak.endedEarly {
            errors.append("retention soak --exec: \(early)")
            if !soak.errorTail.isEmpty { errors.append("retention soak --exec: the program's last lines on standard error: " + soak.errorTail.joined(separator: " | ")) }
        }
        var status = soak.verdict.outcome.exitStatus
        let comparison = Self.comparison(soak.verdict, baseline: baseline, limit: limit)
        if let comparison { lines.append(comparison.description) }
        if status == 0, baseline != nil {
            let against = comparison?.verdictAgainstPass(measured: soak.verdict.measuredIterations)
            if let against {
                lines.append(against.line)
                status = against.status
            }
        }
        if let json {
            record {
                let verdict = soak.verdict
                let document = ExportDocument(command: inputs.command, measure: verdict.measure.shortName, verdict: .init(
                    outcome: verdict.outcome.rawValue, slopeBytesPerIteration: verdict.slopeBytesPerIteration,
                    slopeLowerBytesPerIteration: verdict.slopeLowerBytesPerIteration, slopeUpperBytesPerIteration: verdict.slopeUpperBytesPerIteration,
                    limitBytesPerIteration: verdict.limitBytesPerIteration, warmupIterations: verdict.warmupIterations,
                    measuredIterations: verdict.measuredIterations, reasons: verdict.reasons + (comparison.map { [$0.description] } ?? [])))
                let rest = JSONDocument.encode(document, pretty: true)
                try json.write((samplesWritten == 0 ? "{\n  \"samples\" : [" : "\n  ],") + rest.dropFirst() + "\n")
                try json.commit()
            }
        }
        var report = lines
        if let path = inputs.junitPath {
            let test = JUnitReport.TestCase(name: "exec: " + inputs.command.joined(separator: " "), seconds: soak.wallSeconds,
                                            outcome: status == soak.verdict.outcome.exitStatus ? soak.verdict.outcome.rawValue
                                                : status == 1 ? SoakOutcome.growth.rawValue : SoakOutcome.inconclusive.rawValue,
                                            message: Self.message(soak.verdict) + (comparison.map { "; " + $0.description } ?? ""),
                                            details: lines.joined(separator: "\n"))
            do {
                try JUnitReport(cases: [test]).write(to: path)
            } catch {
                errors.append("Error: \(error)")
                status = SoakOutcome.failedRun.exitStatus
                report.append("results: the JUnit report was not written (\(error)); exit status 2")
            }
        }
        if let writeFailure {
            // Results that could not be written make the run a failed one.
            errors.append("Error: \(writeFailure)")
            status = SoakOutcome.failedRun.exitStatus
            report.append("results: not all were written (\(writeFailure)); exit status 2")
        }
        return Outcome(soak: soak, report: report, errors: errors, exitStatus: status, baseline: comparison)
    }

    /// The verdict word and its reasons in one line, for a JUnit failure's message. O(reasons).
    static func message(_ verdict: SoakVerdict) -> String {
        ([verdict.outcome.verdictWord] + verdict.reasons).joined(separator: "; ")
    }

    /// What the soak prints: the program, its iterations, the verdict, the measure and how it
    /// weakens the verdict, the slope against the limit, the figures, the reasons. O(reasons).
    static func reportLines(_ soak: ProcessSoak.Outcome, inputs: Inputs) -> [String] {
        let verdict = soak.verdict
        let run = soak.iterationsRun, warmup = verdict.warmupIterations
        let iterations = run > warmup ? "\(run) iterations (\(warmup) warm-up, \(run - warmup) measured)"
            : run == 0 ? "no iteration finished" : "\(run) of \(warmup) warm-up iterations finished, none measured"
        let delimiter = inputs.everySeconds.map { "one every \(SystemIO.NumberText.oneDecimal($0)) s of wall time" }
            ?? "ended by \(inputs.marker ?? ProcessSoak.defaultMarker) lines"
        var lines = [
            "soak --exec: \(inputs.command.joined(separator: " ")), \(iterations), \(delimiter)",
            "verdict: \(verdict.outcome.verdictWord)",
            "measure: \(verdict.measure.text), read from /proc/PID/smaps_rollup after each iteration; another process's allocator cannot be read, so memory it holds freed counts as the program's: an allocator caching freed memory can look like growth, and a PASS needs \(verdict.minimumIterationsToPass) measured iterations (a scenario soak's, which leaves the allocator out, needs \(GrowthRule.minimumIterationsToPass))",
        ]
        if verdict.measuredIterations >= 3 {
            lines.append("\(verdict.measure.shortName) slope: \(verdict.rate(verdict.slopeBytesPerIteration)); 95 % interval \(verdict.interval); allowed \(verdict.limitText)")
            lines.append("\(verdict.measure.shortName): first \(SystemIO.NumberText.size(Double(verdict.firstBytes))), last \(SystemIO.NumberText.size(Double(verdict.lastBytes))) (after the first and last measured iterations)")
        } else {
            lines.append("\(verdict.measure.shortName) slope: not fitted (\(verdict.measuredIterations) measured iteration\(verdict.measuredIterations == 1 ? "" : "s"); an interval needs 3); allowed \(verdict.limitText)")
        }
        lines.append("time: wall clock \(SystemIO.NumberText.oneDecimal(soak.wallSeconds)) s for the whole soak, used by no rate")
        if inputs.pidOnly {
            lines.append("processes: the program's own only (--pid-only)")
        } else if soak.processesMeasured > 0 {
            let largest = soak.largestProcess.map { "; the largest, pid \($0.processID), \(SystemIO.NumberText.size(Double($0.bytes)))" } ?? ""
            lines.append("processes: \(SystemIO.NumberText.plural(soak.processesMeasured, "process", "processes")) measured at the last sample, the program and the processes it started, summed\(largest)")
        }
        if soak.processSetChanged {
            lines.append("note: the set of measured processes changed between measured iterations (one started or ended), which moves the sum by a whole process; --pid-only measures the program alone")
        }
        if !soak.containment.isEmpty { lines.append("contained: \(soak.containment)") }
        if soak.processesEnded > 0 {
            lines.append("ended: \(SystemIO.NumberText.plural(soak.processesEnded, "process", "processes")) of the program's tree still running at the end, terminated (SIGTERM, then SIGKILL after 2 s)")
        }
        if soak.mergedMarkers > 0 {
            lines.append("note: \(SystemIO.NumberText.plural(soak.mergedMarkers, "marker", "markers")) came in the same read of the program's output as the one before: sampled once, at the last, and fitted at its iteration's number, so the slope stays per iteration; \(SystemIO.NumberText.plural(verdict.measuredIterations, "sample", "samples")) measured")
        }
        for reason in verdict.reasons { lines.append("reason: \(reason)") }
        for note in verdict.notes { lines.append("note: \(note)") }
        return lines
    }
}

extension ExecSoakJob: Job {
    /// `soak`.
    package static let command = "soak"
    /// 2, a failed run: results that cannot be written are never growth.
    package static var outputFailureStatus: Int32 { SoakOutcome.failedRun.exitStatus }

    /// The report lines, the errors, and the verdict's exit status. O(lines).
    package func report(_ outcome: Outcome) -> JobReport {
        JobReport(output: outcome.report.map { $0 + "\n" }.joined(), errors: outcome.errors, exitStatus: outcome.exitStatus)
    }

    /// A JUnit path that can never be written (empty, a missing folder, a link another user
    /// planted) is a usage error found before the program starts (exit 64); a program that
    /// cannot be found or started, or a report that fails to write at the end, is a failed run
    /// (`Error: …`, exit 2), never growth. O(1).
    package func report(failure error: any Error) -> JobReport {
        if case .usage(let message) = JobFailure(error) { return JobReport(errors: ["Error: \(message)"], exitStatus: 64) }
        return JobReport(errors: ["Error: \(error)"], exitStatus: SoakOutcome.failedRun.exitStatus)
    }
}
