import ArgumentParser
import DiskCache
import Lab
import RetentionTool

/// `retention sweep [SCENARIO] --values 8MB...256MB`: every strategy × value in fresh child
/// processes, the frontier, and the cheapest point that meets the constraints.
struct SweepCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sweep",
        abstract: "Find the cheapest setting that keeps a list smooth, or where each strategy breaks as the network gets worse.",
        discussion: """
            Runs the scenario for every strategy at every value of one key, each run a fresh child \
            process doing the work of `retention run … --set KEY=VALUE`, priced with one shared \
            cost table, exactly like `compare`. Prints one row per point (medians, with \
            (min–max) where repeats differ), marks the Pareto frontier over peak resident memory \
            and placeholder frames (hitches break ties), and names the cheapest point (lowest \
            peak) that meets --max-placeholders, --max-hitches and --max-resident in every \
            repeat, with its margins — or the nearest point and the constraint it fails. \
            Policy keys: bitmapBudget (the default: each strategy's own budget), decodedBudget, \
            thumbnailBudget, compressedBudget, admissionCap, diskBudget (strategies with a disk \
            tier). Scenario keys: prefetchRows, decodeWorkers, fetchLimit, loadOrder (async \
            scenarios), the latencies, decodeSlowdown, scrollSpeed. A key that cannot apply to a strategy is an error. \
            Knobs (what the app chooses: budgets, admissionCap, prefetchRows, decodeWorkers, \
            fetchLimit, loadOrder) are answered with their cheapest value that holds; \
            conditions (what the world imposes: sourceLatencyMs, sourceLatencyMs.p50, \
            sourceLatencyMs.p95, diskLatencyMs, decodeSlowdown (a slower device, 2x), \
            scrollSpeed (a faster user, 200%)) with breaking points: per strategy the harshest \
            value at which every constraint holds and the first at which one fails, and the \
            strategy that holds the widest. --vary KNOB,CONDITION with --values once per key \
            runs a grid, answered with the cheapest point that holds up to each condition \
            value and up to --hold-up-to. loadOrder is a category: its ties stay ties. \
            Exit status: 0 when a point meets the constraints (or none were given), 1 when none \
            does or a run or export failed, 64 a usage error, 130/143 stopped by a signal.
            """
    )

    @Argument(help: "Scenario file (default: the built-in default scenario).")
    var scenario: String?

    @Option(help: "Comma-separated strategy names.")
    var strategies: String = "decoded-lru"

    @Option(help: ArgumentHelp("The key to vary, or a knob and a condition together for a grid (bitmapBudget,sourceLatencyMs.p95): \(SweepJob.keyNames).", valueName: "key[,key]"))
    var vary: String = SweepJob.defaultKey

    @Option(name: [.customLong("values"), .customLong("budgets")], help: ArgumentHelp("The values: a list (8MB,16MB,32MB; counts for prefetchRows and decodeWorkers) or a doubling range (8MB...256MB); for a grid, once per key of --vary, in its order. Default: 8MB...256MB for a size key, 0,1,2,4,8 for prefetchRows, 1,2,4,8 for decodeWorkers.", valueName: "list|range"))
    var values: [String] = []

    @Option(name: .customLong("hold-up-to"), help: ArgumentHelp("For a grid: the condition value the answer must hold up to, one of its values (sourceLatencyMs.p95=800ms): the cheapest strategy and knob value meeting every constraint at every condition value up to it. Default: the harshest value tried.", valueName: "key=value"))
    var holdUpTo: String?

    @Option(help: ArgumentHelp("Constraint: most placeholder frames in every repeat.", valueName: "n"))
    var maxPlaceholders: Int?

    @Option(help: ArgumentHelp("Constraint: most hitches in every repeat.", valueName: "n"))
    var maxHitches: Int?

    @Option(help: ArgumentHelp("Constraint: most decodes per run in every repeat (the CPU spent getting images back).", valueName: "n"))
    var maxDecodes: Int?

    @Option(name: .customLong("max-wait-p95"), help: ArgumentHelp("Constraint: the longest time to image a row shown waits in 95 % of its appearances, in frames, in every repeat (async display; 0 in sync runs).", valueName: "frames"))
    var maxWaitP95: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Constraint: largest disk peak (the disk tier's files, allocated bytes) in every repeat, like 64MB; a strategy without a disk tier takes none.", valueName: "size"),
            transform: ArgumentValues.size(example: "64MB"))
    var maxDisk: ByteSize?

    @Option(parsing: .unconditional, help: ArgumentHelp("Constraint on the recommendation: largest peak resident memory in every repeat (like 64MB). Not a stop: each child run stops only at the default limit of `retention run --max-resident` (75 % of the machine's or the cgroup's memory, divided by --jobs).", valueName: "size"),
            transform: ArgumentValues.residentSize())
    var maxResident: ByteSize?

    @OptionGroup var costOptions: CostOptions

    @OptionGroup var runs: ComparisonRunOptions

    func validate() throws {
        if let maxPlaceholders, maxPlaceholders < 0 { throw ValidationError("--max-placeholders must be 0 or more, got \(maxPlaceholders)") }
        if let maxHitches, maxHitches < 0 { throw ValidationError("--max-hitches must be 0 or more, got \(maxHitches)") }
        if let maxDecodes, maxDecodes < 0 { throw ValidationError("--max-decodes must be 0 or more, got \(maxDecodes)") }
        if let maxWaitP95, maxWaitP95 < 0 { throw ValidationError("--max-wait-p95 must be 0 or more, got \(maxWaitP95)") }
        _ = try job()
    }

    /// The job for these flags (usage problems as exit 64), with `settings` for the runs.
    func job(settings: ComparisonSettings = ComparisonSettings()) throws -> SweepJob {
        let plan = try usage {
            try SweepJob.plan(vary: vary, values: values, strategies: try strategyNames(strategies), maxResidentBytes: maxResident?.bytes, holdUpTo: holdUpTo)
        }
        var constraints = SweepConstraints(maxPlaceholders: maxPlaceholders, maxHitches: maxHitches, maxResidentBytes: maxResident?.bytes,
                                           maxDecodes: maxDecodes, maxDiskBytes: maxDisk?.bytes, maxWaitP95Frames: maxWaitP95)
        constraints.holdUpTo = try usage { try SweepJob.holdUpToValue(holdUpTo) }
        return SweepJob(scenarioPath: scenario, plan: plan, constraints: constraints, settings: settings)
    }

    func run() throws {
        var job = try job(settings: try runs.settings(costOptions))
        job.json = runs.json
        try JobCommand.run(job)
    }
}
