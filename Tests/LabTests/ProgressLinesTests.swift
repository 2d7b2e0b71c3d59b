import Synchronization
import SystemIO
import Testing
@testable import Lab

/// `ProgressLines`, the one progress throttle of compare, sweep and the soaks.
@Suite("Progress lines")
struct ProgressLinesTests {
    /// What a sink was given, in order: "progress LINE final?" or "note LINE". Behind a Mutex,
    /// since the sink's closures are Sendable.
    final class Recorder: Sendable {
        let lines = Mutex<[String]>([])
        func sink(terminal: Bool) -> ProgressSink {
            ProgressSink(progress: { line, final in self.lines.withLock { $0.append("progress \(line) \(final)") } },
                         note: { line in self.lines.withLock { $0.append("note \(line)") } }, isTerminal: terminal)
        }
    }

    @Test("on a terminal every line is redrawn; off one the first is a note with the prefix, the next within the interval is dropped, the final one is written")
    func throttle() {
        let terminal = Recorder()
        var drawn = ProgressLines(sink: terminal.sink(terminal: true))
        drawn.report("a")
        drawn.report("b", final: true)
        #expect(terminal.lines.withLock { $0 } == ["progress a false", "progress b true"])

        let plain = Recorder()
        var notes = ProgressLines(sink: plain.sink(terminal: false), interval: 3600)
        notes.report("first")
        notes.report("second")
        notes.report("last", final: true)
        #expect(plain.lines.withLock { $0 } == ["note progress: first", "note progress: last"])

        let soak = Recorder()
        var every = ProgressLines(sink: soak.sink(terminal: false), interval: 0, plainPrefix: "")
        every.report("iteration 1")
        every.report("iteration 2")
        #expect(soak.lines.withLock { $0 } == ["note iteration 1", "note iteration 2"])
    }

    @Test("elapsed is the wall time since the throttle was made, within a clock read around it; a note comes again once the interval has passed")
    func elapsed() {
        // The throttle's clock starts inside init and is read inside `elapsed`, so its figure
        // lies between what the same clock measures inside and around those calls, whatever
        // the load: at least the pause (20 ms, never cut short), at most the whole span.
        let clock = ContinuousClock()
        let recorder = Recorder()
        let beforeInit = clock.now
        var lines = ProgressLines(sink: recorder.sink(terminal: false), interval: 0.01, plainPrefix: "")
        let afterInit = clock.now
        lines.report("first")
        Pause.microseconds(20_000)
        lines.report("after the interval")
        let beforeRead = clock.now
        let elapsed = lines.elapsed
        let afterRead = clock.now
        #expect(elapsed >= (beforeRead - afterInit).seconds, "at least the time between the calls")
        #expect(elapsed >= 0.02, "at least the pause")
        #expect(elapsed <= (afterRead - beforeInit).seconds, "at most the time around the calls")
        #expect(recorder.lines.withLock { $0 } == ["note first", "note after the interval"])
    }
}
