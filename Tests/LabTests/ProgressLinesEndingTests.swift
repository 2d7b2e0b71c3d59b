import Testing
@testable import Lab

/// How a progress line ends (`ProgressLines.end()`, the one way), how a note is written while
/// one is drawn, and `quietStart`, with `ProgressLinesTests`' recording sink.
@Suite("Progress lines: ending, notes, a quiet start")
struct ProgressLinesEndingTests {
    typealias Recorder = ProgressLinesTests.Recorder

    @Test("on a terminal end() ends the drawn line once, keeping its text; with no line drawn, or off a terminal, it writes nothing")
    func end() {
        let terminal = Recorder()
        var drawn = ProgressLines(sink: terminal.sink(terminal: true))
        drawn.end()
        drawn.report("[1/2]")
        drawn.end()
        drawn.end()
        #expect(terminal.lines.withLock { $0 } == ["progress [1/2] false", "progress [1/2] true"])

        let ended = Recorder()
        var last = ProgressLines(sink: ended.sink(terminal: true))
        last.report("[2/2]", final: true)
        last.end()
        #expect(ended.lines.withLock { $0 } == ["progress [2/2] true"], "a final report is the end")

        let plain = Recorder()
        var notes = ProgressLines(sink: plain.sink(terminal: false), interval: 3600)
        notes.report("[1/2]")
        notes.end()
        #expect(plain.lines.withLock { $0 } == ["note progress: [1/2]"])
    }

    @Test("a note on a terminal clears the drawn line, and draws it again under the note; off a terminal it is a plain note")
    func noteWhileDrawn() {
        let terminal = Recorder()
        var drawn = ProgressLines(sink: terminal.sink(terminal: true))
        drawn.note("before any line")
        drawn.report("[1/3]")
        drawn.note("b.png: not a PNG")
        #expect(terminal.lines.withLock { $0 } == ["note before any line", "progress [1/3] false", "progress  false",
                                                   "note b.png: not a PNG", "progress [1/3] false"])

        let plain = Recorder()
        var notes = ProgressLines(sink: plain.sink(terminal: false))
        notes.report("[1/3]")
        notes.note("b.png: not a PNG")
        #expect(plain.lines.withLock { $0 } == ["note progress: [1/3]", "note b.png: not a PNG"])
    }

    @Test("with quietStart, work that ends within the interval writes no plain note, not even its final line; on a terminal it draws as ever")
    func quietStart() {
        let plain = Recorder()
        var quiet = ProgressLines(sink: plain.sink(terminal: false), interval: 3600, quietStart: true)
        quiet.report("[1/2]")
        quiet.report("[2/2]", final: true)
        #expect(plain.lines.withLock { $0 }.isEmpty)

        let every = Recorder()
        var noted = ProgressLines(sink: every.sink(terminal: false), interval: 0, quietStart: true)
        noted.report("[1/2]")
        noted.report("[2/2]", final: true)
        #expect(every.lines.withLock { $0 } == ["note progress: [1/2]", "note progress: [2/2]"], "past the interval it notes, and then its final line")

        let terminal = Recorder()
        var drawn = ProgressLines(sink: terminal.sink(terminal: true), interval: 3600, quietStart: true)
        drawn.report("[1/2]")
        #expect(terminal.lines.withLock { $0 } == ["progress [1/2] false"])
    }
}
