import Lab
import Retention
import SystemIO

/// The engine of `compare` and `sweep`: measure (or load) one cost table in a child, then run
/// every subject's repeats in fresh child processes, `jobs` at a time, writing exports as
/// results arrive and reporting progress to a sink. ``CompareJob`` and ``SweepJob`` build one.
struct ChildRunBatch {
    /// The scenario file.
    var scenarioPath: String
    /// Subjects in table order: strategy names, or sweep point labels.
    var subjects: [String]
    /// Strategies whose thumbnail kinds the cost table must cover.
    var costStrategies: [String]
    /// Repeats, timeout, jobs, slice, exports, costs, speed, repair, stop.
    var settings: ChildRunSettings
    /// The sweep and its constraints, for a sweep.
    var sweep: SweepPlan?, constraints: SweepConstraints?
    /// The resident-memory limit every child run stops at; nil passes none, so the child
    /// applies its own default.
    var childResidentLimit: Int?
    /// The files the runs read (the scenario, its trace and images): no export may be one.
    var inputs: [OutputCheck.Input]
    /// The child's command line for one subject, before the cost table's flags.
    var childArguments: @Sendable (_ subject: String) -> [String]

    /// What the runs left.
    struct Outcome {
        /// Every result, in the order they finished.
        var results: [Comparison.Result]
        /// The export document (runs, summary, sweep outcome or ranking lines).
        var document: ComparisonDocument
        /// The cost table of the first repeat (every run's, when one was given or measured).
        var costs: CostTable
        /// The median decode of each table measured, in repeat order (one entry for a given
        /// table or a single calibration).
        var tableMedians: [Double]
        /// Runs planned for this process.
        var planned: Int
        /// The signal that stopped the runs, if one did.
        var stoppedBy: Int32?
        /// Runs that failed.
        var failed: Int
        /// The first export write that failed, if any.
        var exportFailure: (any Error)?
    }

    /// Runs everything, writing exports as results come and telling `sink` about progress and
    /// failed children. Child failures are counted, not thrown; throws `LabError` for what stops
    /// the work before any run (an output that is an input or cannot be written, a cost table
    /// that cannot be made, `.stopped` when a signal came first). Costs the children's run time.
    func run(sink: JobSink) throws -> Outcome {
        // Children stopped by a signal or a timeout cannot remove their disk stores: once
        // they are gone, this process does.
        defer { LabDiskStore.removeLeftovers(forScenario: scenarioPath) }
        let executable = try Self.executablePath()
        let schedule = Comparison.schedule(subjects: subjects, repeats: settings.repeats)
        // Outputs are checked before anything is measured, so a bad path fails at once, and
        // an export that is one of the inputs (the scenario, its trace, an image, the cost
        // table) or two exports on one file are refused.
        try OutputCheck.check(outputs: [settings.exportJSON.map { .init("--export-json", $0) }, settings.exportCSV.map { .init("--export-csv", $0) }],
                              inputs: inputs + (settings.costsPath.map { [OutputCheck.Input("the cost table", $0)] } ?? []))
        let export = try ComparisonExport(jsonPath: settings.exportJSON, csvPath: settings.exportCSV, scenario: scenarioPath,
                                          repeats: settings.repeats, strategies: subjects, sweep: sweep, constraints: constraints,
                                          shard: settings.shard, scheduledRuns: schedule.count)
        var tables: [CostTable] = [], costsPaths: [String] = []
        // The measured tables' files, removed when this goes away.
        var measuredFiles: [TemporaryFile] = []
        if let given = settings.costsPath {
            (tables, costsPaths) = ([try CostTable.load(contentsOf: given)], [given])
        } else {
            // K tables measured one after another, one per repeat in turn: a table measured at
            // another moment differs (the host's speed drifts), and the repeats' spread then
            // says by how much, so a ranking calls a gap within it a tie.
            let count = max(1, min(settings.calibrations, settings.repeats))
            for index in 0..<count {
                if sink.isTerminal { sink.progress("measuring the cost table (retention costs)\(count > 1 ? " \(index + 1) of \(count)" : "")…", false) }
                do {
                    let measured = try Comparison.calibrate(executable: executable, timeoutSeconds: settings.timeoutSeconds, stop: settings.stop) {
                        ["costs", scenarioPath, "-o", $0, "--strategies", costStrategies.joined(separator: ",")]
                    }
                    tables.append(measured.table)
                    costsPaths.append(measured.file.path)
                    measuredFiles.append(measured.file)
                } catch {
                    if sink.isTerminal { sink.progress("", true) }
                    throw error
                }
            }
        }
        let costs = tables[0]
        defer { withExtendedLifetime(measuredFiles) {} }
        let arguments = childArguments
        let speed = settings.decodeSpeed
        let limit = childResidentLimit.map { ["--max-resident", ByteSize(bytes: $0).description] } ?? []
        var comparison = Comparison(executable: executable, strategies: subjects, repeats: settings.repeats,
                                    timeoutSeconds: settings.timeoutSeconds) { subject in
            arguments(subject) + (speed != 1 ? ["--decode-speed", "\(speed)"] : []) + limit
        }
        let paths = costsPaths
        comparison.repeatArguments = { repeatIndex in ["--costs", paths[max(0, repeatIndex - 1) % paths.count]] }
        comparison.jobs = settings.resolvedJobs
        comparison.shard = settings.shard
        comparison.stop = settings.stop
        export.setCosts(costs, decodeSpeed: speed)
        var all: [Comparison.Result] = []
        var failed = 0
        var exportFailure: (any Error)?
        let clock = ContinuousClock()
        let start = clock.now
        let planned = comparison.plannedRuns.count
        // Off a terminal (a log, CI), a plain line after the first run and then at most every
        // 10 s, so a long sweep is never silent.
        var lastPlain = -10.0
        _ = comparison.run { result, done, total in
            all.append(result)
            if let failure = result.failure {
                failed += 1
                if sink.isTerminal { sink.progress("", true) }
                sink.note("\(result.strategy) (repeat \(result.repeatIndex)): \(failure)")
            }
            do { try export.record(result, allResults: all) } catch {
                if exportFailure == nil { sink.note("Error: \(error)") }
                exportFailure = exportFailure ?? error
            }
            let elapsed = (clock.now - start).seconds
            let line = "[\(done)/\(total)] \(result.strategy) repeat \(result.repeatIndex)  \(Int(elapsed)) s"
            if sink.isTerminal {
                sink.progress(line, done == total)
            } else if elapsed - lastPlain >= 10 || done == total {
                sink.note("progress: " + line)
                lastPlain = elapsed
            }
        }
        if settings.stop.signal == nil {
            do { try export.finish() } catch {
                sink.note("Error: \(error)")
                exportFailure = error
            }
        }
        return Outcome(results: all, document: export.current, costs: costs, tableMedians: tables.map(\.medianDecodeMs), planned: planned, stoppedBy: settings.stop.signal,
                       failed: failed, exportFailure: exportFailure)
    }

    /// This executable, for the children: `/proc/self/exe` (a binary rebuilt while it runs
    /// names the new one). Throws `LabError` when it cannot be read. One `readlink(2)`.
    static func executablePath() throws(LabError) -> String {
        guard let path = FileIO.executablePath else { throw .failed("cannot find this executable through /proc/self/exe") }
        return path
    }
}
