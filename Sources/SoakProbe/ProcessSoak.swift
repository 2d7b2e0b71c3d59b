import Glibc
import MemoryProbe
import SystemIO

/// Soaks another program from outside (`retention soak --exec -- CMD ARGS…`): starts it through
/// SystemIO's `ChildProcess`, and after each iteration samples its memory from
/// `/proc/PID/smaps_rollup`. An iteration ends when the program prints a marker line on standard
/// output or standard error, or every fixed interval for a program that cannot be changed.
///
/// **Weaker than a soak in this process.** Another process's allocator cannot be read, so the
/// memory it holds freed counts as the program's: an allocator that keeps freed memory can
/// look like growth. The verdict names the measure (``SoakMeasure``) and a PASS needs
/// ``Options/minimumIterationsToPass`` (10 by default, twice the lab's 5) measured iterations.
///
/// **Never a pass by accident.** A program that exits before the soak ran its course leaves an
/// INCONCLUSIVE verdict (a FAIL stays a FAIL); one that crashes, exits with a non-zero status or
/// cannot be read makes a failed run; one that prints no marker within
/// ``Options/iterationTimeoutSeconds`` is stalled: killed, INCONCLUSIVE. Each is named first in
/// the reasons. Wall time is this soak's clock: the program's iterations are whatever it does.
public enum ProcessSoak {
    /// What ends an iteration.
    public enum Delimiter: Sendable, Hashable {
        /// A line containing this text, on standard output or standard error.
        case marker(String)
        /// This many wall seconds.
        case every(seconds: Double)
    }

    /// What to soak and how.
    public struct Options: Sendable {
        /// The program (a path, or a name looked for in `PATH`) and its arguments.
        public var command: [String]
        /// What ends an iteration; `RETENTION-ITERATION` lines by default.
        public var delimiter = Delimiter.marker(ProcessSoak.defaultMarker)
        /// Iterations run before measuring, left out of the fit.
        public var warmup = 2
        /// Measured iterations.
        public var iterations = SoakIterations.untilVerdict(max: 200)
        /// The fastest accepted growth.
        public var limit = SoakLimit.perIteration(ProcessSoak.defaultLimit)
        /// The figure read from smaps_rollup: `Anonymous` or `Private_Dirty`.
        public var measure = SoakMeasure.anonymous
        /// The longest wait for a marker before the program counts as stalled.
        public var iterationTimeoutSeconds = ProcessSoak.defaultIterationTimeoutSeconds
        /// Measured iterations a PASS needs: more than the lab's, since the allocator is counted.
        public var minimumIterationsToPass = 10
        /// Asked between polls: a signal (or a caller) ends the soak, never with a pass.
        public var stop = StopRequest()
        /// How long to sleep between two looks at the program's output, in microseconds. A
        /// marker is sampled within this time of being written.
        public var pollMicroseconds: UInt32 = 2_000
        /// Which processes are measured: the program and every process it started (the
        /// default: a wrapper such as `sh -c`, `make` or `npm test` is measured with the work it
        /// starts), or the program alone.
        public var scope = Scope.tree
        /// Take in the program's orphans (SystemIO's `ChildProcess.becomeChildSubreaper()`): a daemon it
        /// detached (`setsid`) stays in the measured tree and is ended with it. Process-wide:
        /// only for a process that owns no other children (the `retention soak --exec` command).
        public var adoptOrphans = false

        /// A soak of `command` with the defaults. O(1).
        public init(command: [String]) {
            self.command = command
        }
    }

    /// Which processes a soak measures.
    public enum Scope: Sendable, Hashable {
        /// The program and its descendants (with ``Options/adoptOrphans``, its detached ones too),
        /// found from `/proc` at each sample, their figures summed.
        case tree
        /// The program's own process only.
        case programOnly
    }

    /// One measured process at the last sample.
    public struct MeasuredProcess: Sendable, Hashable {
        /// Its pid.
        public var processID: Int32
        /// Its figure (the soak's measure), in bytes.
        public var bytes: Int
    }

    /// What a finished process soak left.
    public struct Outcome: Sendable {
        /// The verdict on what was measured, with what ended the soak early first in its reasons.
        public var verdict: SoakVerdict
        /// The program's path as run.
        public var executable: String
        /// Iterations finished (markers seen, or intervals), warm-up included.
        public var iterationsRun: Int
        /// Markers that arrived within one poll of another and were sampled once, at the last
        /// of them (the fit places each sample at its iteration): a program that iterates
        /// faster than the poll, or a busy machine.
        public var mergedMarkers: Int
        /// The last lines the program wrote to standard error (at most five), to name a crash's cause.
        public var errorTail: [String]
        /// Wall seconds the soak took.
        public var wallSeconds: Double
        /// What ended the soak before it ran its course, in words (also the verdict's first
        /// reason); nil when it ran its course or decided.
        public var endedEarly: String?
        /// Processes measured at the last sample (1 with ``Scope/programOnly``; 0 when none was
        /// taken).
        public var processesMeasured = 0
        /// The largest of them at the last sample, by the soak's measure.
        public var largestProcess: MeasuredProcess?
        /// True when the set of measured processes changed between two measured iterations
        /// (a process started or ended), which moves the sum by a whole process.
        public var processSetChanged = false
        /// Processes of the program's tree still running when the soak ended, which it
        /// terminated (SIGTERM, then SIGKILL after 2 s).
        public var processesEnded = 0
    }

    /// One sample as a progress callback sees it.
    public struct Progress: Sendable {
        /// The iteration, from 1, warm-up included.
        public var iteration: Int
        /// True during warm-up.
        public var warmup: Bool
        /// The sample.
        public var sample: RetainedSample
        /// The verdict on the measured iterations so far.
        public var verdict: SoakVerdict
        /// Wall seconds since the program started.
        public var elapsedSeconds: Double
    }

    /// `RETENTION-ITERATION`: the marker line a program prints after each iteration.
    public static let defaultMarker = "RETENTION-ITERATION"
    /// 64 KB per iteration: sixteen pages, above the page-sized steps an allocator takes. Pin
    /// a limit that fits what one of your iterations is.
    public static let defaultLimit = ByteCount.kilobytes(64)
    /// 60 s: an iteration taking longer than a minute is stalled, unless told otherwise.
    public static let defaultIterationTimeoutSeconds = 60.0

    /// Runs the soak; `onSample` sees each iteration's sample. Throws
    /// ``ProcessSoakError`` when the program cannot be found or started or its output cannot
    /// be read; anything after the start is in the verdict. Costs the program's run plus one
    /// smaps_rollup read per iteration (the kernel walks its page tables) and a look at two
    /// files every ``Options/pollMicroseconds``.
    public static func run(_ options: Options, onSample: (Progress) -> Void = { _ in }) throws(ProcessSoakError) -> Outcome {
        guard let name = options.command.first else { throw .missingCommand }
        guard let executable = ChildProcess.executablePath(of: name) else { throw .notFound(name) }
        if options.adoptOrphans { ChildProcess.becomeChildSubreaper() }
        let folder = TemporaryFile.systemFolder + "/retention-exec-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        do { try FileIO.createDirectories(folder, mode: 0o700) } catch { throw .io(error) }
        defer { try? FileIO.removeTree(folder) }
        var child = ChildProcess(executable: executable, arguments: Array(options.command.dropFirst()), timeoutSeconds: 1e9)
        child.standardOutput = .file(folder + "/stdout")
        child.standardError = .file(folder + "/stderr")
        let running: ChildProcess.Running
        do { running = try child.start() } catch { throw .cannotStart(name, error) }
        var session = Session(options: options, running: running)
        do {
            let out = try OutputTail(path: folder + "/stdout"), err = try OutputTail(path: folder + "/stderr")
            // Both files stay open, in the program and here: their names can go now, so a soak
            // killed outright (SIGKILL, a CI's hard timeout) leaves no folder behind.
            try? FileIO.removeTree(folder)
            session.run(out: out, err: err, onSample: onSample)
            _ = err.count(marker: nil)
            session.finish(errorTail: err.lastLines)
        } catch {
            session.end()
            throw .io(error)
        }
        return Outcome(verdict: session.verdict(), executable: executable, iterationsRun: session.iteration, mergedMarkers: session.merged,
                       errorTail: session.errorTail, wallSeconds: session.wallSeconds, endedEarly: session.endedEarly,
                       processesMeasured: session.measured.count, largestProcess: session.largest, processSetChanged: session.setChanged,
                       processesEnded: session.ended)
    }
}

/// Why a process soak could not start.
public enum ProcessSoakError: Error, Sendable, CustomStringConvertible {
    /// `--exec` with no command after it.
    case missingCommand
    /// The command is not a runnable file, nor a program in `PATH`.
    case notFound(String)
    /// The command was found but could not start.
    case cannotStart(String, SystemError)
    /// The program's output could not be read.
    case io(SystemError)

    /// One line naming the command. O(1).
    public var description: String {
        switch self {
        case .missingCommand: return "--exec needs a command after --: retention soak --exec -- CMD ARGS…"
        case .notFound(let name):
            return name.contains("/") ? "--exec: \(name): no such program (not a file we may execute)" : "--exec: \(name): command not found in PATH"
        case .cannotStart(let name, let error): return "--exec: cannot start \(name): \(error.reasonText)"
        case .io(let error): return "--exec: \(error)"
        }
    }
}

extension ProcessSoak {
    /// One soak's state: the child, the fits, the iteration count, what ended it.
    struct Session {
        let options: Options
        let running: ChildProcess.Running
        let clock = ContinuousClock()
        let start: ContinuousClock.Instant
        var evidence = SoakEvidence()
        var loop: SoakLoop
        var iteration = 0
        var merged = 0
        var endedEarly: String?
        var failed = false
        var errorTail: [String] = []
        var wallSeconds = 0.0
        /// The processes measured at the last sample, the largest of them, whether the set
        /// changed between measured iterations, and how many the end terminated.
        var measured: [Int32] = []
        var largest: MeasuredProcess?
        var setChanged = false
        var ended = 0

        init(options: Options, running: ChildProcess.Running) {
            self.options = options
            self.running = running
            start = clock.now
            loop = SoakLoop(iterations: options.iterations, minimumIterationsToPass: options.minimumIterationsToPass)
        }

        func verdict() -> SoakVerdict {
            let verdict = SoakVerdict.decide(evidence, warmup: options.warmup, limit: options.limit, measure: options.measure,
                                             minimumIterationsToPass: options.minimumIterationsToPass)
            return endedEarly.map { verdict.stopped(by: $0, failedRun: failed) } ?? verdict
        }

        var markerText: String {
            if case .marker(let text) = options.delimiter { return text }
            return ""
        }

        /// Polls the program until the soak has what it asked for, the program ends or stalls,
        /// or a stop request.
        mutating func run(out: OutputTail, err: OutputTail, onSample: (Progress) -> Void) {
            var lastIteration = clock.now
            while loop.wantsMore {
                if let signal = options.stop.signal {
                    endedEarly = "stopped by \(StopSignals.name(signal)) after \(iteration) iteration\(iteration == 1 ? "" : "s")"
                    return
                }
                let now = clock.now
                var ended = 0
                switch options.delimiter {
                case .marker(let text):
                    ended = out.count(marker: text) + err.count(marker: text)
                case .every(let seconds):
                    _ = out.count(marker: nil)
                    _ = err.count(marker: nil)
                    ended = (now - lastIteration).seconds >= seconds ? 1 : 0
                }
                if ended > 0 {
                    // Markers that came together are sampled once, at the last of them; the fit
                    // places the sample at its iteration's number, so the slope stays per iteration.
                    let taken = sampleMemory()
                    iteration += ended
                    merged += ended - 1
                    lastIteration = now
                    guard let (sample, members, biggest) = taken else {
                        // A dying program loses its memory map before it can be reaped: give it a
                        // moment to finish dying, so a crash is named as a crash.
                        if exitsSoon() { return }
                        endedEarly = "the program's memory could not be read after iteration \(iteration)"
                        failed = true
                        return
                    }
                    let warming = iteration <= options.warmup
                    if !warming {
                        if !measured.isEmpty, iteration - ended > options.warmup, members != measured { setChanged = true }
                        evidence.add(sample, iteration: Double(iteration))
                    }
                    measured = members
                    largest = biggest
                    let current = verdict()
                    if !warming { loop.record(current.outcome) }
                    onSample(Progress(iteration: iteration, warmup: warming, sample: sample, verdict: current,
                                      elapsedSeconds: (now - start).seconds))
                    continue
                }
                if running.hasExited { return }
                if case .marker(let text) = options.delimiter, (now - lastIteration).seconds > options.iterationTimeoutSeconds {
                    endedEarly = "stalled: no \(text) marker within --iteration-timeout \(NumberText.oneDecimal(options.iterationTimeoutSeconds)) s after iteration \(iteration) (the program was killed)"
                    return
                }
                Pause.microseconds(Int(options.pollMicroseconds))
            }
        }

        /// Whether the program has ended or ends within a second. Polls every 5 ms.
        func exitsSoon() -> Bool {
            let asked = clock.now
            while !running.hasExited {
                if (clock.now - asked).seconds >= 1 { return false }
                Pause.microseconds(5_000)
            }
            return true
        }

        /// The processes measured now: the program's tree (see ``Scope``), or the program alone.
        /// A read of every process's stat file for a tree.
        func members() -> [Int32] {
            guard options.scope == .tree else { return [running.processID] }
            return ProcessTree.members(of: running.processID, adoptedBy: options.adoptOrphans ? getpid() : nil)
        }

        /// The memory of the measured processes now, summed, with the pids read and the
        /// largest of them; nil when the program's own cannot be read (it is gone). A process
        /// of the tree that ends between the listing and its read is left out. One
        /// smaps_rollup read per process.
        func sampleMemory() -> (RetainedSample, [Int32], MeasuredProcess?)? {
            guard let own = try? ProcessMemory.readSmapsRollup(processID: running.processID), own.rssBytes > 0 else { return nil }
            var figure = 0, resident = 0, anonymous = 0
            var read: [Int32] = []
            var largest: MeasuredProcess?
            for pid in members() {
                guard let rollup = pid == running.processID ? own : try? ProcessMemory.readSmapsRollup(processID: pid) else { continue }
                let bytes = options.measure == .privateDirty ? rollup.privateDirtyBytes : rollup.anonymousBytes
                figure += bytes
                resident += rollup.rssBytes
                anonymous += rollup.anonymousBytes
                read.append(pid)
                if bytes > largest?.bytes ?? -1 { largest = MeasuredProcess(processID: pid, bytes: bytes) }
            }
            return (RetainedSample(retainedBytes: figure, residentBytes: resident, anonymousBytes: anonymous, freeHeldBytes: nil), read, largest)
        }

        /// Ends the program if it still runs, and says how it ended when that ended the soak.
        mutating func finish(errorTail: [String]) {
            let exitedOnItsOwn = running.hasExited
            let outcome = end()
            self.errorTail = errorTail
            wallSeconds = (clock.now - start).seconds
            guard exitedOnItsOwn, endedEarly == nil, loop.wantsMore else { return }
            let after = "after \(iteration) iteration\(iteration == 1 ? "" : "s") (\(min(iteration, options.warmup)) warm-up)"
            if let signal = outcome.signal {
                endedEarly = "the program crashed: killed by \(StopSignals.name(signal)) \(after)"
                failed = true
            } else if let status = outcome.exitStatus, status != 0 {
                endedEarly = "the program exited with status \(status) \(after)"
                failed = true
            } else {
                endedEarly = "the program exited (status 0) \(after), before the soak ran its course"
            }
        }

        /// Ends the program and every process of its tree still running (its descendants, and
        /// with ``Options/adoptOrphans`` the daemons it detached): SIGTERM, SIGKILL 2 s later to
        /// what is still there; then reaps the program and the orphans taken in. Nothing the soak
        /// started outlives it. A read of `/proc` per 5 ms while it waits, at most 2 s.
        @discardableResult
        mutating func end() -> ChildProcess.Outcome {
            let adopter = options.adoptOrphans ? getpid() : nil
            func others() -> [Int32] { ProcessTree.members(of: running.processID, adoptedBy: adopter).filter { $0 != running.processID } }
            var rest = others()
            ended = rest.count + (running.hasExited ? 0 : 1)
            if !running.hasExited { _ = running.signal(SIGTERM) }
            for pid in rest { ChildProcess.signalProcess(pid, SIGTERM) }
            let asked = clock.now
            while (clock.now - asked).seconds < 2 {
                for pid in rest { ChildProcess.reapIfExited(pid) }
                rest = others().filter { ProcessTree.isRunning($0) }
                if running.hasExited && rest.isEmpty { break }
                Pause.microseconds(5_000)
            }
            if !running.hasExited { _ = running.signal(SIGKILL) }
            for pid in others() { ChildProcess.signalProcess(pid, SIGKILL) }
            let outcome = running.wait()
            // The orphans taken in are our children now: reap them, so none stays a zombie.
            for _ in 0..<200 {
                let left = others()
                for pid in left { ChildProcess.reapIfExited(pid) }
                if left.allSatisfy({ !ProcessTree.isRunning($0) }) { break }
                Pause.microseconds(5_000)
            }
            return outcome
        }
    }

    /// The end of a file a program writes: reads what was added since the last look and
    /// counts the complete lines holding a marker; keeps the last lines for a crash's report.
    /// Holds at most 64 KB of a line without its newline. Read by the soak's one thread only, so
    /// its state needs no lock (it is not `Sendable`).
    final class OutputTail {
        private let file: FileDescriptor
        private var partial: [UInt8] = []
        private(set) var lastLines: [String] = []

        init(path: String) throws(SystemError) {
            file = try FileDescriptor.open(path, .readOnly)
        }

        /// Complete new lines holding `marker` (nil: none counted, lines only kept). O(new bytes).
        func count(marker: String?) -> Int {
            var found = 0
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let read = buffer.withUnsafeMutableBytes { (try? file.read(into: $0)) ?? 0 }
                guard read > 0 else { break }
                for byte in buffer[0..<read] {
                    if byte == UInt8(ascii: "\n") {
                        let line = String(decoding: partial, as: UTF8.self)
                        if let marker, line.contains(marker) { found += 1 }
                        if !line.isEmpty {
                            lastLines.append(line)
                            if lastLines.count > 5 { lastLines.removeFirst() }
                        }
                        partial.removeAll(keepingCapacity: true)
                    } else if partial.count < 1 << 16 {
                        partial.append(byte)
                    }
                }
                if read < buffer.count { break }
            }
            return found
        }
    }
}
