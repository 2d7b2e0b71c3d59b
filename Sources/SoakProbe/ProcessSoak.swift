import Glibc
import MemoryProbe
import Synchronization
import SystemIO

/// Soaks another program from outside (`retention soak --exec -- CMD ARGS…`): starts it through
/// SystemIO's `ChildProcess`, and after each iteration samples its memory from
/// `/proc/PID/smaps_rollup`. An iteration ends when the program prints a marker line on standard
/// output or standard error, or every fixed interval for a program that cannot be changed.
///
/// **The program's output goes through pipes, never to disk.** Both streams are read as they
/// come and matched for the marker byte by byte (``MarkerMatcher``: at any offset of a line of
/// any length, in memory bounded by the marker's length); standard error's last five lines (the
/// first 240 bytes of each) are kept to name a crash's cause, and everything else is dropped.
/// A chatty program costs the soak no disk and a fixed amount of memory.
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
        /// A line containing this text, on standard output or standard error, counted once per
        /// line. An empty marker, or one holding a newline, never matches (the tool refuses both).
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
        public var limit = SoakLimit.perIteration(ProcessSoak.defaultGrowthLimit)
        /// The figure read from smaps_rollup: `Anonymous` or `Private_Dirty`.
        public var measure = SoakMeasure.anonymous
        /// The longest wait for a marker before the program counts as stalled.
        public var iterationTimeoutSeconds = ProcessSoak.defaultIterationTimeoutSeconds
        /// Measured iterations a PASS needs: more than the lab's, since the allocator is counted.
        public var minimumIterationsToPass = 10
        /// Asked between polls: a signal (or a caller) ends the soak, never with a pass.
        public var stop = StopRequest()
        /// The longest wait for the program's output between two looks at the clock, the stop
        /// request and the program's state, in microseconds. Output is read as soon as it comes
        /// (a `poll`), so a marker is sampled as soon as it is read, whatever this is.
        public var pollMicroseconds: UInt32 = 2_000
        /// Which processes are measured: the program and every process it started (the
        /// default: a wrapper such as `sh -c`, `make` or `npm test` is measured with the work it
        /// starts), or the program alone.
        public var scope = Scope.tree
        /// Asked of each measured iteration's verdict under ``SoakIterations/untilVerdict(max:)``:
        /// a PASS stops the soak only once this holds too (a baseline comparison decided); a
        /// certain FAIL stops it regardless. Always true by default.
        public var alsoDecided: @Sendable (SoakVerdict) -> Bool = { _ in true }
        /// Take in the program's orphans (SystemIO's `ChildProcess.becomeChildSubreaper()`): a daemon it
        /// detached (`setsid`) stays in the measured tree and is ended with it. Process-wide:
        /// only for a process that owns no other children (the `retention soak --exec` command).
        public var adoptOrphans = false
        /// Put the program in a cgroup v2 of its own where one can be made (SystemIO's
        /// `SoakCgroup`): everything it starts stays in it, daemons included, and the end kills
        /// the cgroup whole, then removes it. Where none can be made, the subreaper and the
        /// process tree alone hold what it started, and ``Outcome/containment`` says so.
        public var ownCgroup = false

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
        /// Markers that came in the same read of the program's output as another and were
        /// sampled once, at the last of them (the fit places each sample at its iteration): a
        /// program that prints them faster than the soak reads (a few bytes apart), or a busy
        /// machine.
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
        /// What held the program's processes, in words: its own cgroup (and its path), or the
        /// process tree (with the subreaper, and why there was no cgroup). Empty when
        /// ``Options/ownCgroup`` was not asked for.
        public var containment = ""
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
    public static let defaultGrowthLimit = ByteSize.kilobytes(64)
    /// ``defaultGrowthLimit`` as the deprecated `ByteCount`.
    @available(*, deprecated, renamed: "defaultGrowthLimit", message: "the limit is a ByteSize now: use defaultGrowthLimit")
    public static var defaultLimit: ByteCount { ByteCount(bytes: defaultGrowthLimit.bytes) }
    /// 60 s: an iteration taking longer than a minute is stalled, unless told otherwise.
    public static let defaultIterationTimeoutSeconds = 60.0

    /// Numbers the cgroups this process makes, so two soaks never share a name. An `Atomic`:
    /// soaks may run on several threads.
    static let cgroupSerial = Atomic<Int>(0)

    /// Runs the soak; `onSample` sees each iteration's sample. Throws
    /// ``ProcessSoakError`` when the program cannot be found or started; anything after the
    /// start is in the verdict. Costs the program's run plus one smaps_rollup read per
    /// iteration (the kernel walks its page tables), the program's output read through two
    /// pipes (O(bytes), no disk) and a look at the clock at least every
    /// ``Options/pollMicroseconds``.
    public static func run(_ options: Options, onSample: (Progress) -> Void = { _ in }) throws(ProcessSoakError) -> Outcome {
        guard let name = options.command.first else { throw .missingCommand }
        guard let executable = ChildProcess.executablePath(of: name) else { throw .notFound(name) }
        if options.adoptOrphans { ChildProcess.becomeChildSubreaper() }
        var child = ChildProcess(executable: executable, arguments: Array(options.command.dropFirst()), timeoutSeconds: 1e9)
        child.standardOutput = .stream
        child.standardError = .stream
        // The program dies with the soak, even one killed outright (SIGKILL, the OOM killer).
        child.parentDeathSignal = SIGKILL
        var containment = ""
        if options.ownCgroup {
            switch SoakCgroup.make(name: "\(SoakCgroup.namePrefix)\(getpid())-\(Self.cgroupSerial.wrappingAdd(1, ordering: .relaxed).newValue)") {
            case .success(let cgroup):
                child.cgroup = cgroup
                containment = "a cgroup of its own, \(cgroup.path), killed whole at the end and removed"
            case .failure(let why):
                containment = "the process tree\(options.adoptOrphans ? ", this soak the subreaper of its orphans" : ""); no cgroup of its own (\(why))"
            }
        }
        let running: ChildProcess.Running
        do { running = try child.start() } catch { throw .cannotStart(name, error) }
        var session = Session(options: options, running: running, cgroup: child.cgroup)
        var watch = OutputWatch(delimiter: options.delimiter)
        session.run(watch: &watch, onSample: onSample)
        session.finish(watch: &watch)
        return Outcome(verdict: session.verdict(), executable: executable, iterationsRun: session.iteration, mergedMarkers: session.merged,
                       errorTail: session.errorTail, wallSeconds: session.wallSeconds, endedEarly: session.endedEarly,
                       processesMeasured: session.measured.count, largestProcess: session.largest, processSetChanged: session.setChanged,
                       processesEnded: session.ended, containment: containment)
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

        /// The program's own cgroup, when it has one: killed and removed at the end.
        let cgroup: SoakCgroup?

        init(options: Options, running: ChildProcess.Running, cgroup: SoakCgroup?) {
            self.options = options
            self.running = running
            self.cgroup = cgroup
            start = clock.now
            loop = SoakLoop(iterations: options.iterations, minimumIterationsToPass: options.minimumIterationsToPass, warmup: options.warmup)
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

        /// Reads the program's output until the soak has what it asked for, the program ends or
        /// stalls, or a stop request. A chunk that completes markers is sampled at once.
        mutating func run(watch: inout OutputWatch, onSample: (Progress) -> Void) {
            var lastIteration = clock.now
            let pollSeconds = Double(options.pollMicroseconds) / 1e6
            while loop.wantsMore {
                if let signal = options.stop.signal {
                    endedEarly = "stopped by \(StopSignals.name(signal)) after \(iteration) iteration\(iteration == 1 ? "" : "s")"
                    return
                }
                var wait = pollSeconds
                if case .every(let seconds) = options.delimiter { wait = max(0, min(wait, seconds - (clock.now - lastIteration).seconds)) }
                var markers = 0
                let got = running.readOutput(waitingUpTo: wait) { stream, bytes in markers += watch.take(stream, bytes) }
                let now = clock.now
                var ended = markers
                if case .every(let seconds) = options.delimiter { ended = (now - lastIteration).seconds >= seconds ? 1 : 0 }
                if ended > 0 {
                    // Markers read together are sampled once, at the last of them; the fit
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
                    if !warming { loop.record(current.outcome, alsoDecided: options.alsoDecided(current), atIteration: iteration) }
                    onSample(Progress(iteration: iteration, warmup: warming, sample: sample, verdict: current,
                                      elapsedSeconds: (now - start).seconds))
                    continue
                }
                if !got, running.hasExited { return }
                if case .marker(let text) = options.delimiter, (now - lastIteration).seconds > options.iterationTimeoutSeconds {
                    endedEarly = "stalled: no \(text) marker within --iteration-timeout \(NumberText.oneDecimal(options.iterationTimeoutSeconds)) s after iteration \(iteration) (the program was killed)"
                    return
                }
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
        /// A program that exited on its own has the rest of its output read first (at most a
        /// second: a descendant may hold the pipes), so its last words reach the report.
        mutating func finish(watch: inout OutputWatch) {
            let exitedOnItsOwn = running.hasExited
            if exitedOnItsOwn {
                let asked = clock.now
                while (clock.now - asked).seconds < 1, running.readOutput(waitingUpTo: 0.05, { _ = watch.take($0, $1) }) {}
            }
            let outcome = end()
            self.errorTail = watch.errorTail.lines
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
            // What the tree did not reach (a daemon that left it before the subreaper saw it):
            // the cgroup holds it still.
            cgroup?.kill()
            let outcome = running.wait()
            // The orphans taken in are our children now: reap them, so none stays a zombie.
            for _ in 0..<200 {
                let left = others()
                for pid in left { ChildProcess.reapIfExited(pid) }
                if left.allSatisfy({ !ProcessTree.isRunning($0) }) { break }
                Pause.microseconds(5_000)
            }
            cgroup?.remove()
            return outcome
        }
    }

    /// What the soak does with the program's output as it streams past: counts the lines
    /// holding the marker, on each stream apart (a ``MarkerMatcher`` each, none with
    /// ``Delimiter/every(seconds:)``), and keeps standard error's last lines; drops the rest.
    /// Memory: the marker twice and the tail's 5 × 240 bytes. Used by the soak's one thread.
    struct OutputWatch {
        var output: MarkerMatcher?
        var error: MarkerMatcher?
        var errorTail = LineTail()

        init(delimiter: Delimiter) {
            if case .marker(let text) = delimiter {
                output = MarkerMatcher(marker: text)
                error = output
            }
        }

        /// Takes a chunk of `stream`; returns the marker lines it completed. O(bytes).
        mutating func take(_ stream: ChildProcess.OutputStream, _ bytes: UnsafeRawBufferPointer) -> Int {
            switch stream {
            case .output: return output?.feed(bytes) ?? 0
            case .error:
                errorTail.feed(bytes)
                return error?.feed(bytes) ?? 0
            }
        }
    }

    /// The last lines of a stream, for a crash's report: at most ``keep`` non-empty lines, each
    /// cut to its first ``width`` bytes. Memory O(keep × width) whatever the stream's size and
    /// its lines' lengths; time O(bytes), a `memchr` per line.
    struct LineTail {
        /// Lines kept.
        let keep = 5
        /// Bytes kept of a line.
        let width = 240
        private var kept: [[UInt8]] = []
        private var partial: [UInt8] = []

        /// The lines kept, oldest first, as text (bytes that are not UTF-8 replaced).
        var lines: [String] { kept.map { String(decoding: $0, as: UTF8.self) } }

        /// Takes the next bytes of the stream. O(bytes).
        mutating func feed(_ bytes: UnsafeRawBufferPointer) {
            guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            // The offsets of this chunk's last keep + 1 newlines, and how many it holds.
            var ends: [Int] = [], count = 0, at = 0
            while at < bytes.count, let found = memchr(base + at, 0x0A, bytes.count - at) {
                let end = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                ends.append(end)
                if ends.count > keep + 1 { ends.removeFirst() }
                count += 1
                at = end + 1
            }
            guard let last = ends.last else {
                append(bytes[...], to: &partial)
                return
            }
            for line in max(0, count - keep)..<count {
                let index = ends.count - (count - line)
                var text = line == 0 ? partial : []
                append(bytes[(line == 0 ? 0 : ends[index - 1] + 1)..<ends[index]], to: &text)
                if !text.isEmpty {
                    kept.append(text)
                    if kept.count > keep { kept.removeFirst() }
                }
            }
            partial = []
            append(bytes[(last + 1)...], to: &partial)
        }

        /// Appends `bytes` to `text` up to ``width``. O(width).
        private func append(_ bytes: Slice<UnsafeRawBufferPointer>, to text: inout [UInt8]) {
            text += bytes.prefix(max(0, width - text.count))
        }
    }
}
