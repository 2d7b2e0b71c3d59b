import ArgumentParser
import DiskCache
import Lab
import RetentionTool
import SystemIO

/// `retention soak SCENARIO --strategy NAME (--duration D | --iterations N)`, or
/// `retention soak --exec [--marker TEXT | --every D] -- CMD ARGS…` for any program.
struct SoakCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak",
        abstract: "Repeat a scenario's script, or soak any program (--exec), and fail when memory grows.",
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
            output that cannot be written), 3 inconclusive, 64 a usage error. \
            SOAK ANY PROGRAM: retention soak --exec -- CMD ARGS... starts CMD and, after each \
            iteration, reads its memory from /proc/PID/smaps_rollup: an iteration ends at each \
            line containing the marker (RETENTION-ITERATION by default, --marker TEXT) on its \
            standard output or error (flush it), or every --every DURATION for a program that \
            cannot be changed. The same rule judges the slope against --max-growth-rate, given \
            per iteration (default 64KB/iteration); --max-growth and --horizon do not apply. \
            Another process's allocator cannot be read, so the measure (Anonymous, or \
            Private_Dirty with --measure private-dirty) counts memory it holds freed, and a PASS \
            needs 10 measured iterations. A program that exits before the soak ends gives \
            INCONCLUSIVE (3), one that crashes or exits non-zero a failed run (2), one that prints \
            no marker within --iteration-timeout is killed and the soak is INCONCLUSIVE (3); never \
            a pass. --junit FILE writes a JUnit XML report of either kind of soak.
            """
    )

    @Argument(help: "Scenario file (not with --exec).")
    var scenario: String?

    @Option(name: .shortAndLong, help: "A preset name or a strategy the scenario defines (a scenario soak needs one).")
    var strategy: String?

    @Flag(help: "Soak the program given after -- instead of a scenario: retention soak --exec -- CMD ARGS... CMD is a path or a name in PATH.")
    var exec = false

    @Argument(parsing: .postTerminator, help: ArgumentHelp("With --exec: the program and its arguments, after --.", valueName: "command"))
    var command: [String] = []

    @Option(help: ArgumentHelp("With --exec: the text of the line that ends an iteration, on the program's standard output or error (RETENTION-ITERATION by default); a line containing it counts.", valueName: "text"))
    var marker: String?

    @Option(help: ArgumentHelp("With --exec: end an iteration every DURATION of wall time (2s, 1m) instead of at a marker, for a program that cannot print one.", valueName: "duration"),
            transform: ArgumentValues.duration())
    var every: Double?

    @Option(help: ArgumentHelp("With --exec and a marker: the longest wait for the next marker (60s by default); past it the program is stalled, killed, and the soak INCONCLUSIVE.", valueName: "duration"),
            transform: ArgumentValues.duration())
    var iterationTimeout: Double?

    @Option(help: ArgumentHelp("With --exec: what is read from /proc/PID/smaps_rollup, anonymous (resident anonymous memory, the default) or private-dirty (pages only the program maps and has written).", valueName: "measure"))
    var measure: String?

    @Flag(help: "With --exec: measure the program's own process only. By default the whole tree is measured, summed at each sample: the program, every process it starts, and the daemons it detaches (setsid), so a wrapper such as sh -c, make or npm test is measured with the work it starts; every process of the tree still running at the end is terminated.")
    var pidOnly = false

    @Option(help: ArgumentHelp("Write a JUnit XML report to this file: one test case for the soak, failed with the verdict and its reasons unless it passed (an INCONCLUSIVE soak fails too). Replaced atomically.", valueName: OutputValueName.file))
    var junit: String?

    @Option(help: ArgumentHelp("A scenario soak's --export-json from the main branch: fail (exit 1) when this soak's slope grew significantly against it, that is when this soak's 95 % interval per hour of use lies wholly above the baseline's by more than a quarter of the allowed rate; a PASS whose comparison is undecided is INCONCLUSIVE (exit 3), and --until-verdict goes on until it decides. With --exec: a soak --exec's --export-json, compared per iteration.", valueName: "file"))
    var baseline: String?

    @Option(help: ArgumentHelp("How long to soak: a number with s, m or h (90s, 30m, 2h, 1h30m).", valueName: "duration"),
            transform: ArgumentValues.duration())
    var duration: Double?

    @Option(help: "How many measured iterations to run (after warm-up); with --exec, 200 unless given (the most, with --until-verdict).")
    var iterations: Int?

    @Flag(help: "Stop as soon as the verdict is decided: a PASS with its evidence or a certain FAIL, the same in two measured iterations in a row, after at least 5. --duration or --iterations is then the most it runs. For CI gates that should fail fast when growth is certain. With --exec, a PASS needs 10 measured iterations.")
    var untilVerdict = false

    @Option(help: "Iterations run before measuring, left out of the fit (the first iterations fill caches and allocator arenas).")
    var warmup: Int = 2

    @Option(parsing: .unconditional, help: ArgumentHelp("Largest accepted growth of retained memory over --horizon hours of use, for a slope certainly above zero: a size with its unit like 16MB (the default); 0 allows no certain growth. Not with --exec.", valueName: "size"),
            transform: ArgumentValues.size(example: "16MB"))
    var maxGrowth: ByteSize?

    @Option(help: ArgumentHelp("Fastest accepted growth of retained memory, per hour of modelled use (16MB/h) or per iteration (256KB/iteration). The default, 16MB/h: an 8-hour day of use adds 128 MB, within what a foreground app can spare on the smallest phones; a feed whose rows keep 4 KB each fails (its 30 rows per 5.5 s iteration add 80 MB of row state per hour of use; a 6-iteration soak reads 62-68 MB, docs/results.md). With --exec, per iteration only (64KB/iteration by default): a program has no modelled use.", valueName: "rate"),
            transform: ArgumentValues.growthRate())
    var maxGrowthRate: GrowthRate?

    @Option(help: ArgumentHelp("Hours of modelled use --max-growth is judged over: a duration with s, m or h (1h, the default; 8h; 30m). Not with --exec.", valueName: "duration"),
            transform: ArgumentValues.horizon())
    var horizon: Double?

    @OptionGroup var costOptions: CostOptions

    @Option(help: ArgumentHelp("Append one CSV row per iteration to this file (header first).", valueName: OutputValueName.file))
    var exportCSV: String?

    @Option(help: ArgumentHelp("Write the samples and the verdict as JSON to this file: samples are streamed to a temporary file beside it as iterations finish (no memory per iteration), and the document replaces the file at the end.", valueName: OutputValueName.file))
    var exportJSON: String?

    @Flag(help: ArgumentHelp(repairHelp(" once", then: "Each iteration replays the trace once; a container it leaves alive is destroyed before the next.")))
    var repair = false

    @Option(parsing: .unconditional, help: ResidentLimitHelp.text("the soak", status: "3 (INCONCLUSIVE; 1 when growth is already certain) when it is reached after the first measured iteration, 2 when the scenario needed more before an iteration was measured"), transform: ArgumentValues.residentSize())
    var maxResident: ByteSize?

    /// Checks the flags' combinations. Called from `run()`, not `validate()`: ArgumentParser
    /// validates before it reports unknown options, so a misspelt flag (`--max-duration`) would
    /// be answered with this check's message instead of its own "Unknown option".
    func checkFlags() throws {
        if exec {
            try checkExecFlags()
            return
        }
        if !command.isEmpty { throw ValidationError("a command after -- needs --exec: retention soak --exec -- CMD ARGS...") }
        if marker != nil || every != nil || iterationTimeout != nil || measure != nil || pidOnly {
            throw ValidationError("--marker, --every, --iteration-timeout, --measure and --pid-only apply to --exec")
        }
        if scenario == nil { throw ValidationError("give a scenario file, or --exec -- CMD ARGS... to soak a program") }
        if strategy == nil { throw ValidationError("a scenario soak needs --strategy NAME") }
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

    /// The flags `--exec` takes: a command, a marker or an interval, a rate per iteration.
    func checkExecFlags() throws {
        if scenario != nil { throw ValidationError("--exec soaks the program after --, not a scenario: retention soak --exec -- CMD ARGS...") }
        if command.isEmpty { throw ValidationError("--exec needs a command after --: retention soak --exec -- CMD ARGS...") }
        if strategy != nil || duration != nil || costOptions.costs != nil || repair || maxResident != nil {
            throw ValidationError("--strategy, --duration, --costs, --repair and --max-resident apply to a scenario soak, not --exec")
        }
        if marker != nil && every != nil { throw ValidationError("give --marker or --every, not both") }
        if marker?.isEmpty == true { throw ValidationError("--marker needs a text that marks an iteration's end") }
        if marker?.contains(where: \.isNewline) == true { throw ValidationError("--marker cannot hold a line break: a marker is matched within one line of output") }
        if maxGrowth != nil || horizon != nil {
            throw ValidationError("--max-growth and --horizon judge a scenario soak's hours of use; --exec has none: give --max-growth-rate per iteration, like 64KB/iteration")
        }
        if every != nil && iterationTimeout != nil { throw ValidationError("--iteration-timeout applies to markers, not --every") }
        if let every, every <= 0 { throw ValidationError("--every must be above zero") }
        if let iterationTimeout, iterationTimeout <= 0 { throw ValidationError("--iteration-timeout must be above zero") }
        if let measure, measure != "anonymous" && measure != "private-dirty" {
            throw ValidationError("--measure is anonymous or private-dirty, got '\(measure)'")
        }
        if case .perHour = maxGrowthRate { throw ValidationError("--exec has no modelled use: give --max-growth-rate per iteration, like 64KB/iteration") }
        if let iterations, iterations < 3 { throw ValidationError("--iterations must be at least 3 to fit a slope, got \(iterations)") }
        if warmup < 0 { throw ValidationError("--warmup must be 0 or more, got \(warmup)") }
    }

    func run() throws {
        try checkFlags()
        if exec {
            var inputs = ExecSoakJob.Inputs(command: command)
            inputs.marker = marker ?? inputs.marker
            inputs.everySeconds = every
            inputs.warmup = warmup
            inputs.iterations = iterations ?? inputs.iterations
            inputs.untilVerdict = untilVerdict
            if case .perIteration(let bytes) = maxGrowthRate { inputs.maxGrowthBytesPerIteration = bytes }
            inputs.privateDirty = measure == "private-dirty"
            inputs.pidOnly = pidOnly
            inputs.iterationTimeoutSeconds = iterationTimeout ?? inputs.iterationTimeoutSeconds
            inputs.junitPath = junit
            inputs.exportCSV = exportCSV
            inputs.exportJSON = exportJSON
            inputs.baselinePath = baseline
            inputs.stop = StopRequest(observingSignals: true)
            try StopSignals.install()
            try JobCommand.run(ExecSoakJob(inputs))
            return
        }
        // Anything that stops the soak before it measures is a failed run (exit 2), never
        // "growth" (exit 1), so scripts can tell the two apart.
        var request = ScenarioSoak.Request(scenarioPath: scenario ?? "", strategy: strategy ?? "", limit: iterations.map { .iterations($0) } ?? .duration(duration ?? 0))
        request.untilVerdict = untilVerdict
        request.warmup = warmup
        request.maxGrowthBytes = (maxGrowth ?? .megabytes(16)).bytes
        request.maxGrowthRate = maxGrowthRate ?? .default
        request.baselinePath = baseline
        request.horizonHours = (horizon ?? 3600) / 3600
        request.costsPath = costOptions.costs
        request.decodeSpeed = costOptions.decodeSpeed
        request.maxResidentBytes = maxResident?.bytes
        request.exportCSV = exportCSV
        request.exportJSON = exportJSON
        request.repairTrace = repair
        request.stop = StopRequest(observingSignals: true)
        // Signals only ask the soak to stop; the verdict is given on what was measured.
        try StopSignals.install()
        try JobCommand.run(SoakJob(request, junitPath: junit))
    }
}
