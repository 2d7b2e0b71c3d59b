import ArgumentParser
import DiskCache
import Lab
import RetentionTool
import SystemIO

/// `retention run [SCENARIO] --strategy NAME`: one strategy, in this process, measured.
struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run one retention strategy on a scenario in this process and report its memory and frames.",
        discussion: """
            Scrolls the scenario's list through the visibility simulator, feeds the events to the \
            image cache under the strategy, and measures resident memory at each checkpoint \
            (startup, the script's checkpoints, end, after-destroy, after-trim), peaks, decodes, \
            main-thread work per frame, hitches and placeholder frames. `retention compare` runs \
            this in fresh child processes; run it directly to look at one strategy. The --json \
            fields are documented in docs/cli.md.
            """
    )

    @Argument(help: "Scenario file (default: the built-in default scenario, assets/scenarios/default.json).")
    var scenario: String?

    @Option(name: .shortAndLong, help: "A preset name (see `retention strategies`) or a strategy the scenario defines.")
    var strategy: String

    @Option(name: .customLong("set"), help: ArgumentHelp("Change one setting before the run, KEY=VALUE, repeatable: bitmapBudget, decodedBudget, thumbnailBudget, compressedBudget, admissionCap, diskBudget (sizes like 8MB; the policy) or prefetchRows, decodeWorkers, fetchLimit (counts; the scenario), sourceLatencyMs, sourceLatencyMs.p50, sourceLatencyMs.p95, diskLatencyMs (milliseconds; the scenario), loadOrder (fifo or priority; the scenario), decodeSlowdown (a slower device: the cost table's costs times 1x to 100x; needs --costs), scrollSpeed (the script's scrolls at 1% to 1000% of their speed; the scenario). A setting that cannot apply to the strategy is an error. `retention sweep` passes these to its children.", valueName: "key=value"),
            transform: ArgumentValues.setting())
    var settings: [SweepSetting] = []

    @Option(help: ArgumentHelp("A timeline sample every N frames (default: about 200 samples over the run; at most 100,000 samples in all).", valueName: "frames"))
    var timelineEvery: Int?

    @Flag(help: "Print the report as one JSON object.")
    var json = false

    @Flag(help: ArgumentHelp(repairHelp(" (on stderr and in the report)")))
    var repair = false

    @Option(parsing: .unconditional, help: ResidentLimitHelp.text("the run"), transform: ArgumentValues.residentSize())
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
        var job = RunJob(scenarioPath: scenario, strategy: strategy)
        job.settings = settings
        job.timelineEvery = timelineEvery
        job.costsPath = costOptions.costs
        job.decodeSpeed = costOptions.decodeSpeed
        job.maxResidentBytes = maxResident?.bytes
        job.repairTrace = repair
        job.json = json
        try JobCommand.run(job)
    }
}
