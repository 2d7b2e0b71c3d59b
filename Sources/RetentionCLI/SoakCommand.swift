import ArgumentParser
import Dispatch
import Imaging
import Lab
import RetentionTool
import SystemIO
import Retention
#if canImport(FoundationEssentials)
import FoundationEssentials
#endif
import Glibc

/// `retention soak SCENARIO --strategy NAME (--duration D | --iterations N)`.
struct SoakCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak",
        abstract: "Repeat a scenario's script for a duration or a number of iterations and fail when memory grows.",
        discussion: """
            One process, one simulator and one cache for the whole soak: each iteration runs the \
            script again from where the last one left the list. After --warmup iterations, the \
            least-squares slope of resident bytes per iteration is judged by its 95 % confidence \
            interval against --max-growth-rate: FAIL when the interval lies above the rate, PASS \
            only when it lies at or below it, INCONCLUSIVE when it straddles it (or fewer than 3 \
            iterations were measured). The slope projected over the measured iterations must \
            also stay under --max-growth; bytes rows hold must be zero after every container \
            destroy; evictable bytes must stay within the budget. One CSV row per iteration is \
            appended and flushed as it finishes. SIGINT or SIGTERM stops after the current \
            iteration and gives the verdict on what was measured. Exit status: 0 pass, 1 growth, \
            2 a failed run (including a scenario that cannot run or results that cannot be \
            written), 3 inconclusive, 64 a usage error.
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

    @Option(help: "Iterations run before measuring (default 2).")
    var warmup: Int = 2

    @Option(help: ArgumentHelp("Largest accepted projected growth of resident memory over the measured iterations: bytes or a size like 16MB (default: 16MB).", valueName: "size"),
            transform: ArgumentValues.size(example: "16MB"))
    var maxGrowth: ByteSize = .megabytes(16)

    @Option(help: ArgumentHelp("Fastest accepted resident growth: a size per iteration (256KB, 256KB/iteration) or per hour (100MB/h). The default, 256KB per iteration, is far above a healthy soak's allocator noise and far below one leaked 600x400 bitmap (960 KB).", valueName: "rate"),
            transform: ArgumentValues.growthRate())
    var maxGrowthRate: GrowthRate = .default

    @Option(help: ArgumentHelp("Append one CSV row per iteration to this file (header first).", valueName: "file"))
    var exportCSV: String?

    @Option(help: ArgumentHelp("Write the samples and the verdict as JSON to this file at the end (keeps every sample in memory, about 150 bytes per iteration).", valueName: "file"))
    var exportJSON: String?

    @Flag(help: ArgumentHelp(repairHelp(" once", then: "Each iteration replays the trace once; a container it leaves alive is destroyed before the next.")))
    var repair = false

    @Option(help: ResidentLimitHelp.text("the soak", status: 2), transform: ArgumentValues.residentSize())
    var maxResident: ByteSize?

    func validate() throws {
        switch (duration, iterations) {
        case (nil, nil): throw ValidationError("give --duration (like 30m) or --iterations N")
        case (.some, .some): throw ValidationError("give --duration or --iterations, not both")
        case (.some, nil): break
        case (nil, .some(let count)):
            if count < 3 { throw ValidationError("--iterations must be at least 3 to fit a slope, got \(count)") }
        }
        if warmup < 0 { throw ValidationError("--warmup must be 0 or more, got \(warmup)") }
    }

    /// The soak's JSON export.
    struct Document: Encodable {
        var scenario: String
        var strategy: String
        var samples: [SoakSample]
        var verdict: GrowthVerdict
        var failedDecodes: Int
        var failedReads: Int
    }

    func run() throws {
        // Anything that stops the soak before it measures is a failed run (exit 2), never
        // "growth" (exit 1), so scripts can tell the two apart.
        let experiment: Experiment, soak: Soak, csv: LineFile?
        do {
            var prepared = try Experiment.prepare(scenarioPath: scenario, strategyName: strategy, repairTrace: repair)
            if let repairs = prepared.trace?.repairs.summary { Output.error("\(scenario): trace: \(repairs)") }
            prepared.maxResidentBytes = residentLimit(maxResident)
            experiment = prepared
            let limit: Soak.Limit = iterations.map { .iterations($0) } ?? .duration(duration ?? 0)
            soak = try Soak(experiment: experiment, limit: limit, warmup: warmup, maxGrowthBytes: maxGrowth.bytes,
                        maxGrowthRate: maxGrowthRate, keepsSamples: exportJSON != nil)
            // Every output path is checked before a long soak starts, not after it.
            if let exportJSON { try FileIO.checkWritable(exportJSON) }
            csv = try exportCSV.map { path throws -> LineFile in
                let file = try LineFile(creating: path)
                try file.append(SoakSample.csvHeader)
                return file
            }
        } catch {
            Output.error("Error: \(error)")
            throw ExitCode(2)
        }
        // Signals only set the soak's stop flag; the verdict is given on what was measured.
        let sources = Signals.onStop { number in
            soak.stopRequested.store(true, ordering: .relaxed)
            Output.error("\nretention soak: stopping after the current iteration (signal \(number))")
        }
        defer { sources.forEach { $0.cancel() } }

        let terminal = Output.stderrIsTerminal
        var lastPlain = 0.0
        var writeFailure: (any Error)?
        let verdict = soak.run { sample in
            do { try csv?.append(sample.csvLine) } catch { writeFailure = writeFailure ?? error }
            let partial = soak.verdict()
            let line = "iteration \(sample.iteration)\(sample.warmup ? " (warm-up)" : "")  elapsed \(Int(sample.elapsedSeconds)) s  resident \(NumberText.megabytes(sample.residentBytes)) (anonymous \(NumberText.megabytes(sample.anonymousBytes)))  slope \(NumberText.mb(partial.slopeBytesPerIteration)) MB/iteration"
            if terminal {
                Output.progress(line, final: false)
            } else if sample.elapsedSeconds - lastPlain >= 10 || sample.iteration == 1 {
                Output.error(line)
                lastPlain = sample.elapsedSeconds
            }
        }
        if terminal { Output.error("") }
        if let reached = soak.residentLimitReached { Output.error("Error: \(reached)") }
        print("soak: \(experiment.scenario.name) under \(experiment.strategy.name), \(soak.iterationsRun) iterations (\(warmup) warm-up), failed decodes \(soak.failedDecodes), failed reads \(soak.failedReads)")
        print(verdict.text)
        if let exportJSON {
            let document = Document(scenario: scenario, strategy: experiment.strategy.name, samples: soak.recorded, verdict: verdict, failedDecodes: soak.failedDecodes, failedReads: soak.failedReads)
            do {
                try FileIO.replace(exportJSON, with: Data(ReportCoding.encode(document, pretty: true).utf8))
            } catch {
                writeFailure = writeFailure ?? error
            }
        }
        if let writeFailure {
            // Results that could not be written make the run a failed one.
            Output.error("Error: \(writeFailure)")
            throw ExitCode(GrowthVerdict.Outcome.failedRun.exitStatus)
        }
        throw ExitCode(verdict.outcome.exitStatus)
    }
}

