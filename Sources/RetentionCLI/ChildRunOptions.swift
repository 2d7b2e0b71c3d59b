import ArgumentParser
import Glibc
import Lab
import RetentionTool
import SystemIO

/// The options `compare` and `sweep` share: repeats, exports, timeout, parallel children and
/// slices.
struct ChildRunOptions: ParsableArguments {
    @Option(name: .customLong("repeat"), help: "Runs per strategy (per point of a sweep); repeats alternate the order.")
    var repeats: Int = 3

    @Option(help: ArgumentHelp("Write every run and the medians (for a sweep also the frontier and the recommendation) as JSON to this file, updated after each run.", valueName: "file"))
    var exportJSON: String?

    @Option(help: ArgumentHelp("Write one CSV line per run to this file as runs finish (for a sweep the strategy column names the point: strategy KEY=VALUE).", valueName: "file"))
    var exportCSV: String?

    @Option(help: "Seconds before a child run is killed.")
    var timeout: Double = 300

    @Flag(help: "Print the JSON document to stdout instead of the table.")
    var json = false

    @Option(help: ArgumentHelp("Child runs at once (default: the cores this process may use: online cores narrowed by CPU affinity and the cgroup's CPU quota). Memory is per process and frame work is thread CPU time priced from one cost table, so parallel runs measure what serial ones do.", valueName: "n"))
    var jobs: Int?

    @Option(help: ArgumentHelp("Run only slice K of N of the run list (K from 1), for array jobs; each slice writes its own --export-json, and `retention merge` joins them. Pass every slice the same --costs file.", valueName: "K/N"))
    var shard: String?

    @Option(help: ArgumentHelp("The number of slices when the slice number comes from the environment: JOB_COMPLETION_INDEX (Kubernetes Indexed Jobs, from 0) or SLURM_ARRAY_TASK_ID (Slurm job arrays; SLURM_ARRAY_TASK_COUNT is used when this is not given).", valueName: "n"))
    var shards: Int?

    @Flag(help: ArgumentHelp(repairHelp()))
    var repair = false

    /// Flags every child run gets from these options.
    var childFlags: [String] { repair ? ["--repair"] : [] }

    func validate() throws {
        if repeats < 1 { throw ValidationError("--repeat must be at least 1, got \(repeats)") }
        if !(timeout > 0 && timeout <= 86_400) { throw ValidationError("--timeout must be a number of seconds from 0 to 86400, got \(timeout)") }
        if let jobs, !(1...256).contains(jobs) { throw ValidationError("--jobs must be from 1 to 256, got \(jobs)") }
        if shard != nil && shards != nil { throw ValidationError("give --shard K/N or --shards N, not both") }
        if let shard { _ = try usage { try Shard(parsing: shard) } }
    }

    /// The slice to run: `--shard`, or the array-job engine's environment, or nil.
    func resolvedShard() throws -> Shard? {
        if let shard { return try usage { try Shard(parsing: shard) } }
        var environment: [String: String] = [:]
        for key in ["JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_COUNT"] {
            if let value = getenv(key) { environment[key] = String(cString: value) }
        }
        return try usage { try Shard.fromEnvironment(environment, shards: shards) }
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

/// `LabError.usage` as ArgumentParser's usage error (exit 64); everything else as thrown.
func usage<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let error as LabError {
        if case .usage(let message) = error { throw ValidationError(message) }
        throw error
    }
}

/// Signals, the executable and the exit status around a `ChildRuns`, for `compare` and `sweep`.
enum ChildRunCommand {
    /// Runs `driver` with SIGINT/SIGTERM forwarded to the running children. A signal before any
    /// run exits 128 + the signal.
    static func run(_ driver: ChildRuns, command: String) throws -> ChildRuns.Outcome {
        let executable = try ChildRuns.executablePath()
        let stop = StopRequest(observingSignals: true)
        try StopSignals.install()
        do {
            return try driver.run(executable: executable, stop: stop)
        } catch let error as LabError {
            if case .usage(let message) = error { throw ValidationError(message) }
            guard case .stopped(let signal) = error else { throw error }
            Output.error("retention \(command): stopped by signal \(signal) before any run")
            throw ExitCode(128 + signal)
        }
    }

    /// The exit status after the report is printed: 128 + the signal when one stopped the
    /// runs, 1 when a run or an export failed, 0 otherwise.
    static func finish(_ outcome: ChildRuns.Outcome, command: String) throws {
        if let signal = outcome.stoppedBy {
            Output.error("retention \(command): stopped by signal \(signal) after \(outcome.results.count) of \(outcome.planned) runs; the table shows what was measured")
            throw ExitCode(128 + signal)
        }
        // A file that could not be read or decoded fails the command too (the table's
        // "failed loads" line says which).
        let failedLoads = outcome.results.contains { ($0.report?.failedLoads ?? 0) > 0 }
        if outcome.failed > 0 || outcome.exportFailure != nil || failedLoads { throw ExitCode(1) }
    }
}
