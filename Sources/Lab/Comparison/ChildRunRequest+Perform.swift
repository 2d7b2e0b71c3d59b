import StrictJSON
import SystemIO

extension ChildRunRequest.StrategyRun {
    /// The experiment this run asks for: the scenario's strategy with ``settings`` applied,
    /// priced by the cost table at ``decodeSpeed`` (or by measured CPU time without one), and
    /// stopping at ``maxResidentBytes`` (the child's default without one). Throws what stops it
    /// before it starts: `LabError.usage` for a setting that cannot apply, a scenario, trace or
    /// cost-table error. Costs a scenario load and the table's read.
    public func experiment() throws -> Experiment {
        var experiment = try Experiment.prepare(scenarioPath: scenarioPath, strategyName: strategy, repairTrace: repairTrace).applying(settings)
        experiment.costs = CostModel(table: try costsPath.map { try CostTable.load(contentsOf: $0) }, decodeSpeed: decodeSpeed)
        experiment.maxResidentBytes = maxResidentBytes ?? ResidentLimit.defaultBytes()
        return experiment
    }
}

extension Experiment {
    /// Runs the experiment to its end or to its resident limit: the report, and the stop when
    /// the limit ended it (its report then holds what was measured up to it). Throws what
    /// stops it before it starts. Costs the run.
    public func runToEnd() throws -> (report: RunReport, stopped: ResidentLimitReached?) {
        do {
            return (try run(), nil)
        } catch let stop as ResidentLimitReached {
            return (stop.report, stop)
        }
    }
}

extension ChildRunRequest {
    /// What a child prints and how it ends.
    public struct Output: Sendable, Hashable {
        /// Standard output: a run's report as one JSON object; empty for a calibration, which
        /// writes its table to its output file.
        public var standardOutput: String
        /// Lines for standard error: why it failed or stopped.
        public var errors: [String]
        /// 0; 1 when a run stopped at its limit or a load failed (after the whole report), or a
        /// calibration met images it could not decode (the table is still written); 2 when it
        /// could not run at all.
        public var exitStatus: Int32
    }

    /// Performs the request in this process, as a comparison's child: a run (its report as
    /// JSON, like `run --json`) or a calibration (the cost table measured and written to its
    /// output file). Never throws: what stops it is an error line and exit status 2. Costs
    /// the run or the calibration.
    public func perform() -> Output {
        do {
            switch self {
            case .run(let run):
                let (report, stopped) = try run.experiment().runToEnd()
                let line = stopped?.description ?? report.failedLoadsLine
                return Output(standardOutput: JSONDocument.encode(report) + "\n", errors: line.map { ["Error: \($0)"] } ?? [],
                              exitStatus: line == nil ? 0 : 1)
            case .costs(let calibration):
                let table = try calibration.perform()
                let failures = table.failureLines
                return Output(standardOutput: "", errors: failures.map { "costs: " + $0 }, exitStatus: failures.isEmpty ? 0 : 1)
            }
        } catch {
            return Output(standardOutput: "", errors: ["Error: \(error)"], exitStatus: 2)
        }
    }
}

extension ChildRunRequest.Calibration {
    /// Measures the cost table of ``strategies`` on the scenario and writes it to
    /// ``outputPath`` (replacing it atomically); returns it. The output is checked first,
    /// before any image is read: it must be writable (not empty, not a folder, not a link
    /// another user planted) and not one of the files the scenario brings (`LabError.usage`
    /// naming ``LabTerm/costsOutput``), so a request can never overwrite its own scenario,
    /// trace or images. Costs about (repeats + 1) × (read + decode + thumbnails) per image.
    public func perform(repeats: Int = CostTable.defaultRepeats) throws -> CostTable {
        let output = OutputCheck.Output(LabTerm.costsOutput.spelled, outputPath)
        try OutputCheck.check(outputs: [output], inputs: [])
        let inputs = try Experiment.Inputs(scenarioPath: scenarioPath, needing: "costs", repairTrace: true)
        try OutputCheck.check(outputs: [output],
                              inputs: OutputCheck.scenarioInputs(path: scenarioPath, trace: inputs.trace, images: inputs.images))
        let table = try Experiment.measureCosts(scenarioPath: scenarioPath, strategies: strategies, repeats: repeats)
        try FileIO.replace(outputPath, with: Array((table.json + "\n").utf8))
        return table
    }
}
