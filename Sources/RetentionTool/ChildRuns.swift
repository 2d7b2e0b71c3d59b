import Lab
import Retention
import SystemIO

/// The shared work of `compare` and `sweep`: measure (or load) one cost table in a child, then
/// run every subject's repeats in fresh child processes, `jobs` at a time, writing exports as
/// results arrive and showing progress on a terminal. The command builds the child's arguments
/// and prints the outcome.
public struct ChildRuns {
    /// The scenario file.
    public var scenarioPath: String
    /// Subjects in table order: strategy names, or sweep point labels.
    public var subjects: [String]
    /// Strategies whose thumbnail kinds the cost table must cover.
    public var costStrategies: [String]
    /// Runs per subject.
    public var repeats: Int
    /// Children at once.
    public var jobs: Int
    /// The slice of the schedule to run; nil for all.
    public var shard: Shard?
    /// Seconds before a child is killed.
    public var timeoutSeconds: Double
    /// A saved cost table to use instead of measuring one.
    public var givenCostsPath: String?
    /// The decode-speed model (1 = as measured).
    public var decodeSpeed: Double
    /// Export paths (either may be nil).
    public var exportJSON: String?, exportCSV: String?
    /// The sweep and its constraints, for a sweep.
    public var sweep: SweepPlan?, constraints: SweepConstraints?
    /// The resident-memory limit every child run stops at (`--max-resident BYTES` on its
    /// command line); nil passes none, so the child applies its own default.
    public var childResidentLimit: Int?
    /// The child's command line for one subject, given the cost table's path.
    public var childArguments: @Sendable (_ subject: String, _ costsPath: String) -> [String]
    /// The files the runs read (the scenario, its trace and images): no export may be one.
    public var inputs: [OutputCheck.Input] = []

    /// What the runs left.
    public struct Outcome {
        /// Every result, in the order they finished.
        public var results: [Comparison.Result]
        /// The export document (runs, summary, sweep outcome).
        public var document: ComparisonDocument
        /// The cost table every run used.
        public var costs: CostTable
        /// Runs planned for this process.
        public var planned: Int
        /// The signal that stopped the runs, if one did.
        public var stoppedBy: Int32?
        /// Runs that failed.
        public var failed: Int
        /// The first export write that failed, if any.
        public var exportFailure: (any Error)?
    }

    /// A driver; every field is as documented.
    public init(scenarioPath: String, subjects: [String], costStrategies: [String], repeats: Int, jobs: Int, shard: Shard?,
                timeoutSeconds: Double, givenCostsPath: String?, decodeSpeed: Double, exportJSON: String?, exportCSV: String?,
                sweep: SweepPlan? = nil, constraints: SweepConstraints? = nil, childResidentLimit: Int? = nil,
                childArguments: @escaping @Sendable (_ subject: String, _ costsPath: String) -> [String]) {
        self.scenarioPath = scenarioPath
        self.subjects = subjects
        self.costStrategies = costStrategies
        self.repeats = repeats
        self.jobs = jobs
        self.shard = shard
        self.timeoutSeconds = timeoutSeconds
        self.givenCostsPath = givenCostsPath
        self.decodeSpeed = decodeSpeed
        self.exportJSON = exportJSON
        self.exportCSV = exportCSV
        self.sweep = sweep
        self.constraints = constraints
        self.childResidentLimit = childResidentLimit
        self.childArguments = childArguments
    }

    /// Runs everything; `stop` (set by a signal handler) ends the running children and starts
    /// no more. Child failures are counted, not thrown; throws `LabError` for what stops the
    /// work before any run (outputs that cannot be opened, a cost table that cannot be made,
    /// `.stopped` when a signal came first). Costs the children's run time.
    public func run(executable: String, stop: StopRequest) throws -> Outcome {
        let progress = Output.stderrIsTerminal
        let paths = childArguments
        let speed = decodeSpeed
        let limit = childResidentLimit.map { ["--max-resident", ByteSize(bytes: $0).description] } ?? []
        var comparison = Comparison(executable: executable, strategies: subjects, repeats: repeats, timeoutSeconds: timeoutSeconds) { _ in [] }
        comparison.jobs = jobs
        comparison.shard = shard
        comparison.stop = stop
        // Outputs are checked before anything is measured, so a bad path fails at once, and
        // an export that is one of the inputs (the scenario, its trace, an image, the cost
        // table) or two exports on one file are refused.
        try OutputCheck.check(outputs: [exportJSON.map { .init("--export-json", $0) }, exportCSV.map { .init("--export-csv", $0) }],
                              inputs: inputs + (givenCostsPath.map { [OutputCheck.Input("the cost table", $0)] } ?? []))
        let export = try ComparisonExport(jsonPath: exportJSON, csvPath: exportCSV, scenario: scenarioPath, repeats: repeats,
                                          strategies: subjects, sweep: sweep, constraints: constraints, shard: shard,
                                          scheduledRuns: comparison.schedule.count)
        let costs: CostTable, costsPath: String
        // The measured table's file, removed when this goes away.
        var measuredFile: TemporaryFile?
        if let givenCostsPath {
            (costs, costsPath) = (try CostTable.load(contentsOf: givenCostsPath), givenCostsPath)
        } else {
            if progress { Output.progress("measuring the cost table (retention costs)…", final: false) }
            do {
                let measured = try Comparison.calibrate(executable: executable, timeoutSeconds: timeoutSeconds, stop: stop) {
                    ["costs", scenarioPath, "-o", $0, "--strategies", costStrategies.joined(separator: ",")]
                }
                (costs, costsPath, measuredFile) = (measured.table, measured.file.path, measured.file)
            } catch {
                if progress { Output.error("") }
                throw error
            }
        }
        defer { withExtendedLifetime(measuredFile) {} }
        comparison.childArguments = { subject in
            paths(subject, costsPath) + (speed != 1 ? ["--decode-speed", "\(speed)"] : []) + limit
        }
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
                if progress { Output.error("") }
                Output.error("\(result.strategy) (repeat \(result.repeatIndex)): \(failure)")
            }
            do { try export.record(result, allResults: all) } catch {
                if exportFailure == nil { Output.error("Error: \(error)") }
                exportFailure = exportFailure ?? error
            }
            let elapsed = (clock.now - start).seconds
            let line = "[\(done)/\(total)] \(result.strategy) repeat \(result.repeatIndex)  \(Int(elapsed)) s"
            if progress {
                Output.progress(line, final: done == total)
            } else if elapsed - lastPlain >= 10 || done == total {
                Output.error("progress: " + line)
                lastPlain = elapsed
            }
        }
        if stop.signal == nil {
            do { try export.finish() } catch {
                Output.error("Error: \(error)")
                exportFailure = error
            }
        }
        return Outcome(results: all, document: export.current, costs: costs, planned: planned, stoppedBy: stop.signal,
                       failed: failed, exportFailure: exportFailure)
    }

    /// This executable, for the children: `/proc/self/exe` (a binary rebuilt while it runs
    /// names the new one). Throws `LabError` when it cannot be read. One `readlink(2)`.
    public static func executablePath() throws(LabError) -> String {
        guard let path = FileIO.executablePath else { throw .failed("cannot find this executable through /proc/self/exe") }
        return path
    }
}
