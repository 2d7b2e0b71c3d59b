import Retention
import Scenario
import SystemIO

/// The engine of `compare` and `sweep`, and the one place that knows their runs are child
/// processes: it loads the scenario, checks the subjects and the outputs, measures (or loads)
/// the cost tables in children, runs every subject's repeats in fresh children `jobs` at a
/// time, writes the exports as results arrive and reports progress to a sink. The tool's jobs
/// only name what to measure.
extension Comparison {
    /// What a measurement runs.
    public enum Subjects: Sendable {
        /// Strategies by name, resolved among the scenario's; nil for the scenario's own list
        /// (every memory preset when it names none).
        case strategies([String]?)
        /// A sweep's points (each checked against the scenario before any child runs), judged
        /// against the constraints.
        case sweep(SweepPlan, SweepConstraints)
    }

    /// What a comparison or sweep measured, and what to say about it.
    public struct Outcome {
        /// The scenario's name and its file.
        public var scenarioName: String, scenarioPath: String
        /// The settings it ran with.
        public var settings: ComparisonSettings
        /// The sweep as checked (with what each point's LRU admits); nil for a comparison.
        public var plan: SweepPlan?
        /// The export document: every run, the medians, the ranking lines or the judged sweep.
        public var document: ComparisonDocument
        /// The cost table of the first repeat (every run's, when one was given).
        public var costs: CostTable
        /// The median decode of each cost table measured, in repeat order; one entry for a
        /// given table or a single calibration.
        public var tableMedians: [Double] = []
        /// How close the slowest synchronous load comes to the frame budget; nil for an
        /// asynchronous scenario.
        public var headroom: CostTable.Headroom?
        /// Hints the scenario calls for (a LazyVStack that never releases at the top); none
        /// for a sweep.
        public var hints: [String]
        /// Runs this process planned and finished.
        public var planned: Int, finished: Int
        /// The signal that stopped the runs, if one did.
        public var stoppedBy: Int32?
        /// True when a run failed, a load failed, or an export could not be written.
        public var failed: Bool

        /// 128 + the signal when one stopped the runs; 1 when something failed or (for a whole
        /// sweep) no point meets the constraints; 0 otherwise. A slice never judges: `merge`
        /// does. O(1).
        public var exitStatus: Int32 {
            if let stoppedBy { return 128 + stoppedBy }
            if failed { return 1 }
            return plan != nil && settings.shard == nil && document.outcome?.verdict == .nearest ? 1 : 0
        }
    }

    /// Measures `subjects` on the scenario at `scenarioPath` (nil: the built-in default
    /// scenario), telling `progress` about progress, failed children and a repaired trace.
    /// Every child run stops at `maxResidentBytes` (nil: the default, divided among the
    /// children that run at once). Child failures are counted, not thrown; throws `LabError`
    /// (`.usage` for a request that cannot be carried out, `.stopped` for a signal before any
    /// run), `ScenarioError` or `TraceError` for what stops it before any run. Each child is
    /// started by `launcher` (nil: this executable, the `retention` tool, whose `child-run`
    /// performs it). Costs the children's run time.
    public static func measure(scenarioPath: String?, subjects: Subjects, settings: ComparisonSettings, maxResidentBytes: Int? = nil,
                               launcher: ChildLauncher? = nil, progress: ProgressSink) throws -> Outcome {
        let path = try scenarioPath ?? DefaultScenario.path(announce: progress.note)
        let inputs: Experiment.Inputs
        let names: [String], costStrategies: [String]
        var plan: SweepPlan?, constraints: SweepConstraints?
        // Each subject's run before the cost table, the decode speed and the limit are known.
        let childRun: @Sendable (String) -> ChildRunRequest.StrategyRun
        switch subjects {
        case .strategies(let given):
            inputs = try Experiment.Inputs(scenarioPath: path, needing: "compare", repairTrace: settings.repairTrace)
            if let repairs = inputs.trace?.repairs.summary { progress.note("\(path): trace: \(repairs)") }
            names = given ?? inputs.scenario.strategies.map(\.name)
            for name in names { _ = try RetentionPolicy.resolve(name, among: inputs.scenario.strategies) }
            costStrategies = names
            let repair = settings.repairTrace
            childRun = { name in
                var run = ChildRunRequest.StrategyRun(scenarioPath: path, strategy: name)
                run.repairTrace = repair
                return run
            }
        case .sweep(var checked, let limits):
            try checked.check(scenarioPath: path, repairTrace: settings.repairTrace)
            inputs = try Experiment.Inputs(scenarioPath: path, needing: "sweep", repairTrace: true)
            (plan, constraints) = (checked, limits)
            names = checked.points.map(\.label)
            costStrategies = checked.strategies
            let points = Dictionary(uniqueKeysWithValues: checked.points.map { ($0.label, $0) })
            let repair = settings.repairTrace, frozen = checked
            childRun = { label in
                let point = points[label]!
                var run = ChildRunRequest.StrategyRun(scenarioPath: path, strategy: point.strategy)
                run.settings = frozen.settings(of: point)
                run.repairTrace = repair
                return run
            }
        }
        let jobs = settings.resolvedJobs
        try Preflight.fileDescriptors(Preflight.fileDescriptors(forChildren: jobs), command: plan == nil ? "compare" : "sweep")
        // The model every report states; a sweep of a scenario key has one per point.
        var pointModels: [String: ComparisonModel] = [:]
        if let plan, plan.changesScenario {
            for point in plan.points {
                let experiment = try Experiment.prepare(scenarioPath: path, strategyName: point.strategy, repairTrace: settings.repairTrace)
                    .applying(plan.settings(of: point))
                pointModels[point.label] = ComparisonModel(experiment: experiment, decodeSpeed: settings.decodeSpeed, costs: nil)
            }
        }
        let batch = Batch(scenarioPath: path, subjects: names, costStrategies: costStrategies, settings: settings, sweep: plan,
                          constraints: constraints, childResidentLimit: maxResidentBytes ?? ResidentLimit.defaultBytes(sharedBy: jobs),
                          inputs: OutputCheck.scenarioInputs(path: path, trace: inputs.trace, images: inputs.images),
                          model: ComparisonModel(scenario: inputs.scenario, decodeSpeed: settings.decodeSpeed, costs: nil), pointModels: pointModels,
                          childRun: childRun, launcher: try launcher ?? ChildLauncher.thisExecutable())
        let ran = try batch.run(progress: progress)
        let failedLoads = ran.results.contains { ($0.report?.failedLoads ?? 0) > 0 }
        return Outcome(
            scenarioName: inputs.scenario.name, scenarioPath: path, settings: settings, plan: plan, document: ran.document, costs: ran.costs,
            tableMedians: ran.tableMedians,
            headroom: try Experiment.headroom(scenario: inputs.scenario, strategies: costStrategies, table: ran.costs, decodeSpeed: settings.decodeSpeed),
            hints: plan == nil ? ComparisonHints.lines(for: inputs.scenario) : [], planned: ran.planned, finished: ran.results.count,
            stoppedBy: ran.stoppedBy, failed: ran.failed > 0 || ran.exportFailure != nil || failedLoads)
    }

    /// One measurement's runs: the cost tables, then every subject's repeats, exports written
    /// as results arrive.
    private struct Batch {
        var scenarioPath: String
        /// Subjects in table order: strategy names, or sweep point labels.
        var subjects: [String]
        /// Strategies whose thumbnail kinds the cost table must cover.
        var costStrategies: [String]
        var settings: ComparisonSettings
        var sweep: SweepPlan?, constraints: SweepConstraints?
        /// The resident-memory limit every child run stops at; nil passes none, so the child
        /// applies its own default.
        var childResidentLimit: Int?
        /// The files the runs read (the scenario, its trace and images): no export may be one.
        var inputs: [OutputCheck.Input]
        /// The scenario's model, and each sweep point's when the sweep varies it, before the
        /// cost table is known.
        var model: ComparisonModel
        var pointModels: [String: ComparisonModel]
        /// The child's run of one subject, before its cost table, decode speed and limit.
        var childRun: @Sendable (_ subject: String) -> ChildRunRequest.StrategyRun
        /// How each child starts.
        var launcher: ChildLauncher

        struct Ran {
            var results: [Result]
            var document: ComparisonDocument
            var costs: CostTable
            var tableMedians: [Double]
            var planned: Int
            var stoppedBy: Int32?
            var failed: Int
            var exportFailure: (any Error)?
        }

        func run(progress sink: ProgressSink) throws -> Ran {
            // Children stopped by a signal or a timeout cannot remove their disk stores: once
            // they are gone, this process does.
            defer { LabDiskStore.removeLeftovers(forScenario: scenarioPath) }
            let schedule = Comparison.schedule(subjects: subjects, repeats: settings.repeats)
            // Outputs are checked before anything is measured, so a bad path fails at once, and
            // an export that is one of the inputs (the scenario, its trace, an image, the cost
            // table) or two exports on one file are refused.
            try OutputCheck.check(outputs: [settings.exportJSON.map { .init(LabTerm.exportJSON.spelled, $0) }, settings.exportCSV.map { .init(LabTerm.exportCSV.spelled, $0) }],
                                  inputs: inputs + (settings.costsPath.map { [OutputCheck.Input("the cost table", $0)] } ?? []))
            let export = try ComparisonExport(jsonPath: settings.exportJSON, csvPath: settings.exportCSV, scenario: scenarioPath,
                                              repeats: settings.repeats, strategies: subjects, sweep: sweep, constraints: constraints,
                                              shard: settings.shard, scheduledRuns: schedule.count)
            var lines = ProgressLines(sink: sink)
            let (tables, measuredFiles) = try costTables(lines: &lines)
            let paths = settings.costsPath.map { [$0] } ?? measuredFiles.map(\.path)
            let costs = tables[0]
            defer { withExtendedLifetime(measuredFiles) {} }
            let childRun = childRun
            let speed = settings.decodeSpeed
            let limit = childResidentLimit
            // Repeat N is priced by table N mod K, so the repeats' spread covers the tables' drift.
            var comparison = Comparison(launcher: launcher, strategies: subjects, repeats: settings.repeats,
                                        timeoutSeconds: settings.timeoutSeconds) { subject, repeatIndex in
                var run = childRun(subject)
                run.costsPath = paths[max(0, repeatIndex - 1) % paths.count]
                run.decodeSpeed = speed
                run.maxResidentBytes = limit
                return .run(run)
            }
            comparison.jobs = settings.resolvedJobs
            comparison.shard = settings.shard
            comparison.stop = settings.stop
            export.setCosts(costs, decodeSpeed: speed)
            func priced(_ model: ComparisonModel) -> ComparisonModel {
                var model = model
                model.costTableHash = String(StableHash.fnv1a64(costs.json), radix: 16)
                model.costTableMedianDecodeMs = costs.medianDecodeMs
                return model
            }
            export.setModel(priced(model), points: pointModels.isEmpty ? nil : pointModels.mapValues(priced))
            var all: [Result] = []
            var failed = 0
            var exportFailure: (any Error)?
            let planned = comparison.plannedRuns.count
            _ = comparison.run { result, done, total in
                all.append(result)
                if let failure = result.failure {
                    failed += 1
                    lines.note("\(result.subject) (repeat \(result.repeatIndex)): \(failure)")
                }
                do { try export.record(result, allResults: all) } catch {
                    if exportFailure == nil { sink.note("Error: \(error)") }
                    exportFailure = exportFailure ?? error
                }
                lines.report("[\(done)/\(total)] \(result.subject) repeat \(result.repeatIndex)  \(Int(lines.elapsed)) s", final: done == total)
            }
            if settings.stop.signal == nil {
                do { try export.finish() } catch {
                    sink.note("Error: \(error)")
                    exportFailure = error
                }
            }
            return Ran(results: all, document: export.current, costs: costs, tableMedians: tables.map(\.medianDecodeMs), planned: planned,
                       stoppedBy: settings.stop.signal, failed: failed, exportFailure: exportFailure)
        }

        /// The given cost table, or K tables measured one after another, one per repeat in
        /// turn: a table measured at another moment differs (the host's speed drifts), and the
        /// repeats' spread then says by how much, so a ranking calls a gap within it a tie.
        /// Returns the tables and the measured tables' files, removed when they go away.
        private func costTables(lines: inout ProgressLines) throws -> ([CostTable], [TemporaryFile]) {
            if let given = settings.costsPath { return ([try CostTable.load(contentsOf: given)], []) }
            var tables: [CostTable] = [], files: [TemporaryFile] = []
            let count = max(1, min(settings.calibrations, settings.repeats))
            for index in 0..<count {
                lines.report("[costs \(index + 1)/\(count)] measuring the cost table  \(Int(lines.elapsed)) s", final: false)
                do {
                    let measured = try Comparison.calibrate(launcher: launcher, timeoutSeconds: settings.timeoutSeconds, stop: settings.stop) {
                        ChildRunRequest.costs(.init(scenarioPath: scenarioPath, outputPath: $0, strategies: costStrategies))
                    }
                    tables.append(measured.table)
                    files.append(measured.file)
                } catch {
                    lines.end()
                    throw error
                }
            }
            return (tables, files)
        }
    }
}
