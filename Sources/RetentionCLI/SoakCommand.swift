import ArgumentParser
import RetentionTool
import SystemIO

/// `retention soak SCENARIO --strategy NAME (--duration D | --iterations N)`.
struct SoakCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak",
        abstract: "Repeat a scenario's script for a duration or a number of iterations and fail when memory grows.",
        discussion: """
            One process, one simulator and one cache for the whole soak: each iteration runs the \
            script again from where the last one left the list. The measure is RETAINED MEMORY: \
            anonymous resident memory (statm's resident minus shared) less the bytes glibc's \
            allocator holds freed (mallinfo2), so freed bitmaps kept in an allocator arena are \
            not taken for a leak; they are reported on a line of their own. TIME IS THE APP'S: \
            every rate is per hour of modelled use (an iteration's frames / the scenario's frame \
            rate) with per iteration beside it; wall time is printed apart and used by no rate. \
            After --warmup iterations, the least-squares slope of retained bytes per iteration is \
            judged by its 95 % confidence interval: FAIL when the interval lies above \
            --max-growth-rate (default 16MB/h, per hour of use), or when the slope is certainly \
            above zero and its interval's lower end over --horizon hours of use exceeds \
            --max-growth; PASS only with at least 5 measured iterations, the interval's upper end \
            at or below the rate and, for a slope certainly above zero, its upper end over the \
            horizon within --max-growth; INCONCLUSIVE otherwise, with an estimate of the \
            iterations that would decide. A FAIL names the counter that grows (rows in the list, \
            row state, bytes rows hold, LRU bytes, entries) and its share of the growth. Bytes \
            rows hold must be zero after every container destroy; evictable bytes must stay \
            within the budget. A STOPPED SOAK IS NEVER A PASS: SIGINT, SIGTERM, --max-resident or \
            a --duration that ends before 5 measured iterations give INCONCLUSIVE unless growth is \
            already certain, and the verdict names what stopped it; a second signal ends the \
            process at once. One CSV row and one JSON sample per iteration are written as it \
            finishes. Exit status: 0 pass, 1 growth, 2 a failed run (a scenario that cannot run or \
            needs more than --max-resident before an iteration is measured, results or standard \
            output that cannot be written), 3 inconclusive, 64 a usage error.
            """
    )

    @Argument(help: "Scenario file.")
    var scenario: String

    @Option(name: .shortAndLong, help: "A preset name or a strategy the scenario defines.")
    var strategy: String

    @Option(help: ArgumentHelp("How long to soak: a number with s, m or h (90s, 30m, 2h, 1h30m).", valueName: "duration"),
            transform: ArgumentValues.duration())
    var duration: Double?

    @Option(help: "How many measured iterations to run (after warm-up).")
    var iterations: Int?

    @Flag(help: "Stop as soon as the verdict is decided: a PASS with its evidence or a certain FAIL, the same in two measured iterations in a row, after at least 5. --duration or --iterations is then the most it runs. For CI gates that should fail fast when growth is certain.")
    var untilVerdict = false

    @Option(help: "Iterations run before measuring.")
    var warmup: Int = 2

    @Option(parsing: .unconditional, help: ArgumentHelp("Largest accepted growth of retained memory over --horizon hours of use, for a slope certainly above zero: a size with its unit like 16MB (the default); 0 allows no certain growth.", valueName: "size"),
            transform: ArgumentValues.size(example: "16MB"))
    var maxGrowth: ByteSize = .megabytes(16)

    @Option(help: ArgumentHelp("Fastest accepted growth of retained memory, per hour of modelled use (16MB/h) or per iteration (256KB/iteration). The default, 16MB/h: an 8-hour day of use adds 128 MB, within what a foreground app can spare on the smallest phones; a feed whose rows keep 4 KB each (about 80 MB per hour of use) fails.", valueName: "rate"),
            transform: ArgumentValues.growthRate())
    var maxGrowthRate: GrowthRate = .default

    @Option(help: ArgumentHelp("Hours of modelled use --max-growth is judged over: a duration with s, m or h (1h, the default; 8h; 30m).", valueName: "duration"),
            transform: ArgumentValues.horizon())
    var horizon: Double = 3600

    @OptionGroup var costOptions: CostOptions

    @Option(help: ArgumentHelp("Append one CSV row per iteration to this file (header first).", valueName: "file"))
    var exportCSV: String?

    @Option(help: ArgumentHelp("Write the samples and the verdict as JSON to this file: samples are streamed to a temporary file beside it as iterations finish (no memory per iteration), and the document replaces the file at the end.", valueName: "file"))
    var exportJSON: String?

    @Flag(help: ArgumentHelp(repairHelp(" once", then: "Each iteration replays the trace once; a container it leaves alive is destroyed before the next.")))
    var repair = false

    @Option(parsing: .unconditional, help: ResidentLimitHelp.text("the soak", status: "3 (INCONCLUSIVE; 1 when growth is already certain) when it is reached after the first measured iteration, 2 when the scenario needed more before an iteration was measured"), transform: ArgumentValues.residentSize())
    var maxResident: ByteSize?

    /// Checks the flags' combinations. Called from `run()`, not `validate()`: ArgumentParser
    /// validates before it reports unknown options, so a misspelt flag (`--max-duration`) would
    /// be answered with this check's message instead of its own "Unknown option".
    func checkFlags() throws {
        switch (duration, iterations) {
        case (nil, nil): throw ValidationError("give --duration (like 30m) or --iterations N")
        case (.some, .some): throw ValidationError("give --duration or --iterations, not both")
        case (.some, nil): break
        case (nil, .some(let count)):
            if count < 3 { throw ValidationError("--iterations must be at least 3 to fit a slope, got \(count)") }
        }
        if warmup < 0 { throw ValidationError("--warmup must be 0 or more, got \(warmup)") }
        if costOptions.decodeSpeed != 1 && costOptions.costs == nil {
            throw ValidationError("--decode-speed scales a cost table; give one with --costs")
        }
    }

    func run() throws {
        try checkFlags()
        // Anything that stops the soak before it measures is a failed run (exit 2), never
        // "growth" (exit 1), so scripts can tell the two apart.
        var inputs = SoakJob.Inputs(scenarioPath: scenario, strategy: strategy, limit: iterations.map { .iterations($0) } ?? .duration(duration ?? 0))
        inputs.untilVerdict = untilVerdict
        inputs.warmup = warmup
        inputs.maxGrowthBytes = maxGrowth.bytes
        inputs.maxGrowthRate = maxGrowthRate
        inputs.horizonHours = horizon / 3600
        inputs.costsPath = costOptions.costs
        inputs.decodeSpeed = costOptions.decodeSpeed
        inputs.maxResidentBytes = maxResident?.bytes
        inputs.exportCSV = exportCSV
        inputs.exportJSON = exportJSON
        inputs.repairTrace = repair
        inputs.stop = StopRequest(observingSignals: true)
        // Signals only ask the soak to stop; the verdict is given on what was measured.
        try StopSignals.install()
        try JobCommand.run(SoakJob(inputs))
    }
}
