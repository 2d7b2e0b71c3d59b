import StrictJSON
import Dispatch
import Synchronization
import SystemIO

/// Runs several subjects (strategies, or a sweep's points) on one scenario, each run a fresh
/// child process (a typed ``ChildRunRequest`` that the ``ChildLauncher`` starts: the
/// `retention` tool's hidden `child-run` subcommand, or any program that performs requests), repeats in alternating order, and
/// summarizes medians. Up to `jobs` children run side by side: memory is per process, frame work is thread CPU time and costs come from
/// one table, so parallel children measure what serial ones do. A child that crashes or times
/// out is reported with the line that says why (`ChildProcess.Outcome.failureLine`) and the others go on. Results reach `onResult` as they
/// arrive, on the calling thread, so a caller can write them out and an interrupted
/// comparison loses nothing already measured.
public struct Comparison: Sendable {
    /// One child run's outcome.
    public struct Result: Sendable {
        /// The subject's name: a strategy, or a sweep point's label (strategy KEY=VALUE).
        public var subject: String
        /// The subject's name, under its old name: a sweep point's label is not a strategy.
        @available(*, deprecated, renamed: "subject", message: "a result's subject is a strategy or a sweep point's label: use subject")
        public var strategy: String {
            get { subject }
            set { subject = newValue }
        }
        /// Repeat number, from 1.
        public var repeatIndex: Int
        /// The child's report, when it succeeded.
        public var report: RunReport?
        /// Why it failed (exit status, signal or time-out, and the child's failure line), when it did.
        public var failure: String?
    }

    /// How each child starts: the program, given each subject's ``ChildRunRequest``.
    public var launcher: ChildLauncher
    /// The executable children run (the ``launcher``'s).
    public var executable: String {
        get { launcher.executable }
        set { launcher.executable = newValue }
    }
    /// The arguments of the child that runs one strategy once and prints its `RunReport` as
    /// JSON on standard output: the old command-line protocol.
    @available(*, deprecated, message: "children take a typed ChildRunRequest: use init(launcher:strategies:repeats:timeoutSeconds:request:)")
    public var childArguments: @Sendable (_ strategy: String) -> [String] {
        get { commandLine ?? { _ in [] } }
        set { commandLine = newValue }
    }
    /// The command line of a comparison made with the deprecated argv initializer; nil for one
    /// whose children take requests.
    var commandLine: (@Sendable (_ strategy: String) -> [String])?
    /// Subject names (strategies, or sweep point labels) in the order of the first repeat.
    public var strategies: [String]
    /// How many times each strategy runs.
    public var repeats: Int
    /// Seconds before a child is killed.
    public var timeoutSeconds: Double
    /// When set (from a signal handler), the running child gets SIGTERM and no more start; the
    /// stopped run is not reported.
    public var stop: StopRequest?
    /// Children run at once (at least 1). Default 1.
    public var jobs = 1
    /// The slice of the schedule this process runs; nil for all of it.
    public var shard: Shard?
    /// Arguments added for repeat N (from 1) after ``childArguments``: never set by the
    /// package; a request carries each repeat's own cost table.
    @available(*, deprecated, message: "children take a typed ChildRunRequest, which carries each repeat's cost table")
    public var repeatArguments: (@Sendable (_ repeatIndex: Int) -> [String])? {
        get { commandLineTail }
        set { commandLineTail = newValue }
    }
    var commandLineTail: (@Sendable (_ repeatIndex: Int) -> [String])?
    /// The typed request of one subject's repeat N (from 1): the ``launcher`` runs it.
    public var childRequest: (@Sendable (_ strategy: String, _ repeatIndex: Int) -> ChildRunRequest)?

    /// A comparison whose children the `launcher` starts, each given the typed `request` for
    /// its subject and repeat (from 1); `repeats` defaults to 3. O(1).
    public init(launcher: ChildLauncher, strategies: [String], repeats: Int = 3, timeoutSeconds: Double = 300,
                request: @escaping @Sendable (_ strategy: String, _ repeatIndex: Int) -> ChildRunRequest) {
        self.launcher = launcher
        self.strategies = strategies
        self.repeats = repeats
        self.timeoutSeconds = timeoutSeconds
        childRequest = request
    }

    /// A comparison whose children run `executable` with the arguments `childArguments` gives:
    /// the old command-line protocol; `repeats` defaults to 3.
    @available(*, deprecated, message: "children take a typed ChildRunRequest: use init(launcher:strategies:repeats:timeoutSeconds:request:)")
    public init(executable: String, strategies: [String], repeats: Int = 3, timeoutSeconds: Double = 300,
                childArguments: @escaping @Sendable (_ strategy: String) -> [String]) {
        launcher = ChildLauncher(executable: executable)
        commandLine = childArguments
        self.strategies = strategies
        self.repeats = repeats
        self.timeoutSeconds = timeoutSeconds
    }

    /// A comparison whose children run `executable`'s `child-run` subcommand, each given the
    /// typed `request` for its subject and repeat (from 1); `repeats` defaults to 3. O(1).
    public init(executable: String, strategies: [String], repeats: Int = 3, timeoutSeconds: Double = 300,
                request: @escaping @Sendable (_ strategy: String, _ repeatIndex: Int) -> ChildRunRequest) {
        self.init(launcher: ChildLauncher(executable: executable), strategies: strategies, repeats: repeats, timeoutSeconds: timeoutSeconds, request: request)
    }

    /// The child's arguments for one subject's repeat: the ``launcher``'s for its request (or,
    /// for a comparison made with the deprecated argv initializer, its command line). O(arguments).
    public func arguments(for strategy: String, repeatIndex: Int) -> [String] {
        if let childRequest { return launcher.arguments(for: childRequest(strategy, repeatIndex)) }
        return (commandLine?(strategy) ?? []) + (commandLineTail?(repeatIndex) ?? [])
    }

    /// The run order: repeat 1 in the given order, repeat 2 reversed, and so on, so no strategy
    /// always runs first or after the same neighbour. O(strategies × repeats).
    public var schedule: [(strategy: String, repeatIndex: Int)] {
        Self.schedule(subjects: strategies, repeats: repeats)
    }

    /// The run order of `subjects` over `repeats` (see ``schedule``), without a comparison to
    /// hand. O(subjects × repeats).
    public static func schedule(subjects: [String], repeats: Int) -> [(strategy: String, repeatIndex: Int)] {
        (1...max(1, repeats)).flatMap { r in
            (r % 2 == 1 ? subjects : subjects.reversed()).map { ($0, r) }
        }
    }

    /// The runs this process makes: the ``schedule``, or its ``shard`` slice.
    public var plannedRuns: [(strategy: String, repeatIndex: Int)] {
        guard let shard else { return schedule }
        return schedule.enumerated().filter { shard.contains(position: $0.offset) }.map(\.element)
    }

    /// Runs every planned child, `jobs` at a time, calling `onResult` on this thread after each
    /// (in the order they finish). Returns all results. A stop request ends the running
    /// children and starts no more.
    public func run(onResult: (Result, _ done: Int, _ total: Int) -> Void = { _, _, _ in }) -> [Result] {
        let plan = plannedRuns
        var results: [Result] = []
        if jobs <= 1 || plan.count <= 1 {
            for item in plan {
                if stop?.signal != nil { break }
                guard let result = runOne(item.strategy, repeatIndex: item.repeatIndex) else { break }
                results.append(result)
                onResult(result, results.count, plan.count)
            }
            return results
        }
        // Each run is a job on a pool of `jobs` threads (each blocks in its child's poll loop);
        // results come back through a `Lock` (plain shared state, touched briefly by a few
        // threads; an actor would need async here), and the semaphore wakes this thread to
        // report them. A run ended by a stop request halts the runs not yet started.
        struct Shared {
            var finished: [Result] = []
            var ended = 0
            var halted = false
        }
        let shared = Lock(Shared())
        let ready = DispatchSemaphore(value: 0)
        let pool = WorkerPool(threads: min(jobs, plan.count), name: "retention.runs")
        defer { pool.shutdown() }
        for item in plan {
            pool.submit { [self] in
                let halted = shared.withLock { $0.halted } || stop?.signal != nil
                let result = halted ? nil : runOne(item.strategy, repeatIndex: item.repeatIndex)
                shared.withLock { state in
                    if let result { state.finished.append(result) } else { state.halted = true }
                    state.ended += 1
                }
                ready.signal()
            }
        }
        while true {
            ready.wait()
            let (batch, allDone) = shared.withLock { state -> ([Result], Bool) in
                defer { state.finished.removeAll() }
                return (state.finished, state.ended == plan.count)
            }
            for result in batch {
                results.append(result)
                onResult(result, results.count, plan.count)
            }
            if allDone { break }
        }
        return results
    }

    /// How many times the CPU budget a child may take on the wall clock before it is killed
    /// all the same: a host so loaded that a run's CPU time comes ten times slower than it is
    /// used, or a child that sleeps or waits without using CPU.
    public static let wallTimeoutFactor = 10.0

    /// A child run whose `timeoutSeconds` is a budget of its CPU time (all its threads), so a
    /// loaded host does not fail a run an idle one finishes, with a wall-clock backstop of
    /// ``wallTimeoutFactor`` times it. O(1).
    static func child(executable: String, arguments: [String], timeoutSeconds: Double, stop: StopRequest?) -> ChildProcess {
        var child = ChildProcess(executable: executable, arguments: arguments, timeoutSeconds: timeoutSeconds * wallTimeoutFactor, stop: stop)
        child.cpuTimeoutSeconds = timeoutSeconds
        return child
    }

    /// One child's result, or nil when a stop request ended it.
    private func runOne(_ strategy: String, repeatIndex: Int) -> Result? {
        let commandLine = self.arguments(for: strategy, repeatIndex: repeatIndex)
        let child = Self.child(executable: executable, arguments: commandLine, timeoutSeconds: timeoutSeconds, stop: stop)
        let outcome: ChildProcess.Outcome
        do { outcome = try child.run() } catch {
            return Result(subject: strategy, repeatIndex: repeatIndex, report: nil, failure: error.description)
        }
        if outcome.stoppedBy != nil { return nil }
        // A run that exits 1 after a whole report still measured: one whose images failed to
        // load is a result (the table's "failed loads" line); one stopped by --max-resident is
        // a failure that keeps what it measured (the table's "stopped" line).
        if outcome.exitStatus == 1, let report = try? JSONDocument.decode(RunReport.self, from: outcome.stdout, source: "the report") {
            if let stop = report.stopReason {
                return Result(subject: strategy, repeatIndex: repeatIndex, report: report, failure: "exit status 1: \(stop)")
            }
            if report.failedLoads > 0 { return Result(subject: strategy, repeatIndex: repeatIndex, report: report, failure: nil) }
        }
        if let failure = outcome.failure(timeoutSeconds: timeoutSeconds * Self.wallTimeoutFactor, cpuTimeoutSeconds: timeoutSeconds) {
            return Result(subject: strategy, repeatIndex: repeatIndex, report: nil, failure: failure)
        }
        do {
            let report = try JSONDocument.decode(RunReport.self, from: outcome.stdout, source: "the report")
            return Result(subject: strategy, repeatIndex: repeatIndex, report: report, failure: nil)
        } catch {
            return Result(subject: strategy, repeatIndex: repeatIndex, report: nil, failure: "unreadable report: \(error.message)")
        }
    }
}

extension Comparison {
    /// Measures a cost table in a quiet child process before the runs (so no run's allocator
    /// sees the calibration's decodes): the `launcher` starts `request(path)`, a calibration
    /// that writes the table to `path`, a new temporary file (in `$TMPDIR` or `/tmp`). Returns
    /// the table and that file, which the caller passes to every run and which is removed when
    /// the returned value goes away. Throws `LabError` with the child's error when it fails.
    public static func calibrate(launcher: ChildLauncher, timeoutSeconds: Double, stop: StopRequest? = nil,
                                 request: (_ outputPath: String) -> ChildRunRequest) throws(LabError) -> (table: CostTable, file: TemporaryFile) {
        try calibrate(executable: launcher.executable, timeoutSeconds: timeoutSeconds, stop: stop, commandLine: { launcher.arguments(for: request($0)) })
    }

    /// Measures a cost table in a child whose command line `childArguments(path)` gives: the
    /// old command-line protocol.
    @available(*, deprecated, message: "children take a typed ChildRunRequest: use calibrate(launcher:timeoutSeconds:stop:request:)")
    public static func calibrate(executable: String, timeoutSeconds: Double, stop: StopRequest? = nil,
                                 childArguments: (_ outputPath: String) -> [String]) throws(LabError) -> (table: CostTable, file: TemporaryFile) {
        try calibrate(executable: executable, timeoutSeconds: timeoutSeconds, stop: stop, commandLine: { childArguments($0) })
    }

    /// The calibration's child, started with `commandLine(path)`.
    private static func calibrate(executable: String, timeoutSeconds: Double, stop: StopRequest?,
                                  commandLine childArguments: (_ outputPath: String) -> [String]) throws(LabError) -> (table: CostTable, file: TemporaryFile) {
        let file: TemporaryFile
        do { file = try TemporaryFile(in: TemporaryFile.systemFolder, prefix: "retention-costs-", suffix: ".json") } catch { throw .io(error) }
        let outcome: ChildProcess.Outcome
        do {
            outcome = try child(executable: executable, arguments: childArguments(file.path), timeoutSeconds: timeoutSeconds, stop: stop).run()
        } catch {
            throw .io(error)
        }
        if let signal = outcome.stoppedBy { throw .stopped(signal: signal) }
        // Exit 1 with a table whose entries name their errors: images that cannot be decoded,
        // measured failing as a run pays for them; the runs count their failed loads.
        if outcome.exitStatus == 1, let table = try? CostTable.load(contentsOf: file.path), !table.failureLines.isEmpty {
            return (table, file)
        }
        if let failure = outcome.failure(timeoutSeconds: timeoutSeconds * Self.wallTimeoutFactor, cpuTimeoutSeconds: timeoutSeconds) {
            throw .failed("measuring the cost table " + (outcome.timedOut ? failure : "failed: \(failure)"))
        }
        return (try CostTable.load(contentsOf: file.path), file)
    }
}
