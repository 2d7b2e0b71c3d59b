import ArgumentParser
import Lab
import RetentionTool
import Glibc

/// `retention compare [SCENARIO]`: every strategy in fresh child processes, medians in a table.
struct Compare: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare retention strategies on a scenario, each run in a fresh process.",
        discussion: """
            With no scenario, runs the default scenario (assets/scenarios/default.json: about 150 \
            rows of 600x400 photos scrolled down, part way back up, then destroyed) over every \
            preset. First a child `retention costs` measures what reading and decoding each image \
            costs in CPU time (or --costs gives a saved table); every run is then priced with \
            that one table, so strategies pay identical costs and frame work measures the \
            strategy, not the host's load. Each run is a child `retention run … --json`; repeats \
            alternate the order; the table shows medians. A child that fails is reported with \
            its stderr tail, the others go on, and the exit status is 1. Exports are written as \
            results arrive.
            """
    )

    @Argument(help: "Scenario file (default: the built-in default scenario, assets/scenarios/default.json).")
    var scenario: String?

    @Option(help: "Comma-separated strategy names (default: the scenario's strategies, or every preset).")
    var strategies: String?

    @Option(name: .customLong("repeat"), help: "Runs per strategy.")
    var repeats: Int = 3

    @Option(help: ArgumentHelp("Write every run and the medians as JSON to this file, updated after each run.", valueName: "file"))
    var exportJSON: String?

    @Option(help: ArgumentHelp("Write one CSV line per run to this file as runs finish.", valueName: "file"))
    var exportCSV: String?

    @Option(help: "Seconds before a child run is killed.")
    var timeout: Double = 300

    @Flag(help: "Print the JSON document to stdout instead of the table.")
    var json = false

    @OptionGroup var costOptions: CostOptions

    func validate() throws {
        if repeats < 1 { throw ValidationError("--repeat must be at least 1, got \(repeats)") }
        if !(timeout > 0 && timeout <= 86_400) { throw ValidationError("--timeout must be a number of seconds from 0 to 86400, got \(timeout)") }
        if let strategies {
            let names = strategies.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingWhitespace() }
            if names.contains("") { throw ValidationError("--strategies: expected comma-separated strategy names, got '\(strategies)'") }
            if Set(names).count != names.count { throw ValidationError("--strategies names a strategy twice: '\(strategies)'") }
        }
    }

    func run() throws {
        let path = try scenario ?? DefaultScenario.path(announce: { Output.error($0) })
        let loaded = try Scenario.load(contentsOf: path)
        let settings = try ScenarioSettings(loaded, source: path)
        guard let images = settings.images else {
            throw LabError.images("\(path): the scenario has no \"images\" key, which compare needs")
        }
        _ = try ImageSet(images, scenarioPath: path)
        let available = try Strategy.defined(by: loaded, source: path)
        let names: [String]
        if let strategies {
            names = strategies.split(separator: ",").map { String($0).trimmingWhitespace() }
            for name in names { _ = try Strategy.resolve(name, among: available) }
        } else {
            names = available.map(\.name)
        }
        let executable = try Self.executablePath()
        let progress = Output.stderrIsTerminal
        // SIGINT/SIGTERM: the running child gets SIGTERM, no more start, what was measured is
        // printed, and the exit status is 128 + the signal.
        let stop = ChildProcess.StopRequest()
        let signalSources = Signals.onStop { stop.request(signal: $0) }
        defer { signalSources.forEach { $0.cancel() } }
        // Outputs are opened before anything is measured, so a bad path fails at once.
        let export = try ComparisonExport(jsonPath: exportJSON, csvPath: exportCSV, scenario: path, repeats: repeats, strategies: names)
        let costs: CostTable, costsPath: String
        if let given = costOptions.costs {
            (costs, costsPath) = (try CostTable.load(contentsOf: given), given)
        } else {
            if progress { Output.progress("measuring the cost table (retention costs)…", final: false) }
            do {
                (costs, costsPath) = try Comparison.calibrate(executable: executable, timeoutSeconds: timeout, stop: stop) { ["costs", path, "-o", $0, "--strategies", names.joined(separator: ",")] }
            } catch {
                // (Matching `.stopped(let signal)` in the catch clause crashes Swift 6.3's SILGen.)
                guard case .stopped(let signal) = error else { throw error }
                if progress { Output.error("") }
                Output.error("retention compare: stopped by signal \(signal) before any run")
                throw ExitCode(128 + signal)
            }
        }
        defer { if costOptions.costs == nil { unlink(costsPath) } }
        let speed = costOptions.decodeSpeed
        var comparison = Comparison(executable: executable, strategies: names, repeats: repeats, timeoutSeconds: timeout) { strategy in
            ["run", path, "--strategy", strategy, "--json", "--costs", costsPath] + (speed != 1 ? ["--decode-speed", "\(speed)"] : [])
        }
        comparison.stop = stop
        export.setCosts(costs, decodeSpeed: speed)
        var all: [Comparison.Result] = []
        var failed = 0
        var exportFailure: (any Error)?
        let clock = ContinuousClock()
        let start = clock.now
        _ = comparison.run { result, done, total in
            all.append(result)
            if let failure = result.failure {
                failed += 1
                if progress { Output.error("") }
                Output.error("\(result.strategy) (repeat \(result.repeatIndex)): \(failure)")
            }
            do { try export.record(result, allResults: all) } catch {
                if exportFailure == nil { Output.error("Error: \(error)") }
                exportFailure = exportFailure ?? error
            }
            if progress {
                let elapsed = Int((clock.now - start).components.seconds)
                Output.progress("[\(done)/\(total)] \(result.strategy) repeat \(result.repeatIndex)  \(elapsed) s", final: done == total)
            }
        }
        if json {
            print(export.json)
        } else {
            print("scenario: \(loaded.name) (\(path)), \(repeats) repeat\(repeats == 1 ? "" : "s") per strategy, each in a fresh process")
            print("costs: \(costOptions.costs.map { "table from \($0)" } ?? "table measured now"), \(costs.summary)")
            if speed != 1 { print(CostText.model(speed)) }
            print(ComparisonSummary(results: all, strategies: names).table(), terminator: "")
        }
        if let signal = stop.signal {
            Output.error("retention compare: stopped by signal \(signal) after \(all.count) of \(comparison.schedule.count) runs; the table shows what was measured")
            throw ExitCode(128 + signal)
        }
        do { try export.finish() } catch {
            Output.error("Error: \(error)")
            exportFailure = error
        }
        if failed > 0 || exportFailure != nil { throw ExitCode(1) }
    }

    /// This executable, for the children.
    static func executablePath() throws -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { throw LabError.failed("cannot find this executable through /proc/self/exe") }
        var path = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // A binary rebuilt while it runs shows as "PATH (deleted)"; children run the new one.
        if path.hasSuffix(" (deleted)") { path.removeLast(" (deleted)".count) }
        return path
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var s = Substring(self)
        while s.first?.isWhitespace == true { s.removeFirst() }
        while s.last?.isWhitespace == true { s.removeLast() }
        return String(s)
    }
}
