import StrictJSON
import ArgumentParser
import Lab
import Retention
import RetentionTool
import SystemIO

/// `retention run [SCENARIO] --strategy NAME`: one strategy, in this process, measured.
struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run one retention strategy on a scenario in this process and report its memory and frames.",
        discussion: """
            Scrolls the scenario's list through the visibility simulator, feeds the events to the \
            image cache under the strategy, and measures resident memory at each checkpoint \
            (startup, the script's checkpoints, end, after-destroy, after-trim), peaks, decodes, \
            main-thread work per frame, hitches and placeholder frames. `retention compare` runs \
            this in fresh child processes; run it directly to look at one strategy. The --json \
            fields are documented in the README.
            """
    )

    @Argument(help: "Scenario file (default: the built-in default scenario, assets/scenarios/default.json).")
    var scenario: String?

    @Option(name: .shortAndLong, help: "A preset name (see `retention strategies`) or a strategy the scenario defines.")
    var strategy: String

    @Option(name: .customLong("set"), help: ArgumentHelp("Change one setting before the run, KEY=VALUE, repeatable: bitmapBudget, decodedBudget, thumbnailBudget, compressedBudget, admissionCap (sizes like 8MB; the policy) or prefetchRows, decodeWorkers (counts; the scenario). A setting that cannot apply to the strategy is an error. `retention sweep` passes these to its children.", valueName: "key=value"),
            transform: ArgumentValues.setting())
    var settings: [SweepSetting] = []

    @Option(help: ArgumentHelp("A timeline sample every N frames (default: about 200 samples over the run; at most 100,000 samples in all).", valueName: "frames"))
    var timelineEvery: Int?

    @Flag(help: "Print the report as one JSON object.")
    var json = false

    @Flag(help: ArgumentHelp(repairHelp(" (on stderr and in the report)")))
    var repair = false

    @Option(help: ResidentLimitHelp.text("the run"), transform: ArgumentValues.residentSize())
    var maxResident: ByteSize?

    @OptionGroup var costOptions: CostOptions

    func validate() throws {
        if costOptions.decodeSpeed != 1 && costOptions.costs == nil {
            throw ValidationError("--decode-speed scales a cost table; give one with --costs")
        }
        if let timelineEvery, timelineEvery < 1 { throw ValidationError("--timeline-every must be a positive number of frames, got \(timelineEvery)") }
    }

    func run() throws {
        ChildProcess.dieWithParent()
        try Preflight.fileDescriptors(Preflight.baseFileDescriptors, command: "run")
        let path = try scenario ?? DefaultScenario.path(announce: { Output.error($0) })
        var experiment = try usage { try Experiment.prepare(scenarioPath: path, strategyName: strategy, repairTrace: repair).applying(settings) }
        experiment.timelineInterval = timelineEvery ?? 0
        if let timelineEvery, experiment.estimatedFrames / timelineEvery > RunReport.maximumTimelineSamples {
            let least = (experiment.estimatedFrames + RunReport.maximumTimelineSamples - 1) / RunReport.maximumTimelineSamples
            throw ValidationError("--timeline-every \(timelineEvery) would keep \(experiment.estimatedFrames / timelineEvery) samples of this run's \(experiment.estimatedFrames) frames, over the limit of \(RunReport.maximumTimelineSamples); give --timeline-every \(least) or more")
        }
        experiment.costs = try costOptions.model()
        experiment.maxResidentBytes = residentLimit(maxResident)
        // Over the limit, the run still prints what it measured, then fails with the message.
        let report: RunReport, stopped: ResidentLimitReached?
        do {
            (report, stopped) = (try experiment.run(), nil)
        } catch let stop as ResidentLimitReached {
            (report, stopped) = (stop.report, stop)
        }
        if let repairs = report.traceRepairs, !json { Output.error("\(path): trace: \(repairs)") }
        if json {
            print(JSONDocument.encode(report))
        } else {
            print(RunReportText.render(report))
        }
        if let stopped { throw stopped }
        // A file that could not be read or decoded fails the run (exit 1), after its report.
        if let failure = report.failedLoadsLine { throw LabError.failed(failure) }
    }
}
