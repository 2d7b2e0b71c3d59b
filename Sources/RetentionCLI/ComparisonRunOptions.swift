import ArgumentParser
import FoundationEssentials
import Lab
import RetentionTool
import SystemIO

/// The options `compare` and `sweep` share: repeats, exports, timeout, parallel children and
/// slices.
struct ComparisonRunOptions: ParsableArguments {
    @Option(name: .customLong("repeat"), help: "Runs per strategy (per point of a sweep); repeats alternate the order.")
    var repeats: Int = 3

    @Option(help: ArgumentHelp("Write every run and the medians (for a sweep also the frontier and the recommendation) as JSON to this file, updated after each run.", valueName: OutputValueName.file))
    var exportJSON: String?

    @Option(help: ArgumentHelp("Write one CSV line per run to this file as runs finish (for a sweep the strategy column names the point: strategy KEY=VALUE).", valueName: OutputValueName.file))
    var exportCSV: String?

    @Option(help: ArgumentHelp("Without --costs: cost tables to measure, one after another, each pricing every K-th repeat, so the spread across repeats covers how much a table measured at another moment differs (a ranking calls a gap within it a tie). At most --repeat are measured; 1 to 10. Give --costs FILE for figures that must compare across commands.", valueName: "k"))
    var calibrations: Int = 3

    @Option(help: "Seconds of CPU time (all its threads) a child run may use before it is killed: a budget of the work it does, so a loaded host does not fail a run an idle one finishes. A child also ends after 10 times as long on the wall clock.")
    var timeout: Double = 300

    @Flag(help: "Print the JSON document to stdout instead of the table.")
    var json = false

    @Option(help: ArgumentHelp("Child runs at once (default: the cores this process may use: online cores narrowed by CPU affinity, the cgroup's CPU quota and a Slurm task's SLURM_CPUS_PER_TASK). Memory is per process and frame work is thread CPU time priced from one cost table, so parallel runs measure what serial ones do.", valueName: "n"))
    var jobs: Int?

    @Option(help: ArgumentHelp("Run only slice K of N of the run list (K from 1), for array jobs; each slice writes its own --export-json, and `retention merge` joins them. Pass every slice the same --costs file.", valueName: "K/N"))
    var shard: String?

    @Option(help: ArgumentHelp("The number of slices when the slice number comes from the environment: JOB_COMPLETION_INDEX (Kubernetes Indexed Jobs, from 0) or SLURM_ARRAY_TASK_ID (Slurm job arrays; SLURM_ARRAY_TASK_COUNT is used when this is not given).", valueName: "n"))
    var shards: Int?

    @Flag(help: ArgumentHelp(repairHelp()))
    var repair = false

    func validate() throws {
        guard (1...10).contains(calibrations) else { throw ValidationError("--calibrations must be 1 to 10, got \(calibrations)") }
        if repeats < 1 { throw ValidationError("--repeat must be at least 1, got \(repeats)") }
        if !(timeout > 0 && timeout <= 86_400) { throw ValidationError("--timeout must be a number of seconds from 0 to 86400, got \(timeout)") }
        if let jobs, !(1...256).contains(jobs) { throw ValidationError("--jobs must be from 1 to 256, got \(jobs)") }
        if shard != nil && shards != nil { throw ValidationError("give --shard K/N or --shards N, not both") }
        if let shard { _ = try usage { try Shard.resolve(shard, shards: nil, environment: [:]) } }
    }

    /// The job's settings from these options and the cost options, with a stop request that
    /// SIGINT and SIGTERM make (installed here). Throws a usage error for a bad slice.
    func settings(_ costs: CostOptions) throws -> ComparisonSettings {
        var settings = ComparisonSettings()
        settings.repeats = repeats
        settings.calibrations = calibrations
        settings.timeoutSeconds = timeout
        settings.jobs = jobs
        settings.shard = try usage { try Shard.resolve(shard, shards: shards, environment: ProcessInfo.processInfo.environment) }
        settings.exportJSON = exportJSON
        settings.exportCSV = exportCSV
        settings.costsPath = costs.costs
        settings.decodeSpeed = costs.decodeSpeed
        settings.repairTrace = repair
        try StopSignals.install()
        settings.stop = StopRequest(observingSignals: true)
        return settings
    }
}

/// The help of every command's `--repair`: what it drops, where it reports (`reported`), and
/// anything the command adds (`then`). O(1).
func repairHelp(_ reported: String = "", then note: String? = nil) -> String {
    "For a scenario that replays a trace: drop impossible events (a row appearing before it was built, time going backwards, events after the container was destroyed), count them and report them\(reported), instead of stopping at the first with its line number." + (note.map { " " + $0 } ?? "")
}

/// The names in `--strategies a,b`, checked: none empty, none twice.
func strategyNames(_ text: String) throws -> [String] {
    let names = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingWhitespace() }
    if names.contains("") { throw ValidationError("--strategies: expected comma-separated strategy names, got '\(text)'") }
    if Set(names).count != names.count { throw ValidationError("--strategies names a strategy twice: '\(text)'") }
    return names
}

/// A job's usage problem as ArgumentParser's usage error (exit 64); everything else as thrown.
func usage<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch {
        if case .usage(let message) = JobFailure(error) { throw ValidationError(message) }
        throw error
    }
}
