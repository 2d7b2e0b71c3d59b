/// The one progress throttle of long work (compare and sweep, their cost tables, a scenario
/// soak, `soak --exec`, a thumbnail batch): a line redrawn in place on a terminal; off one (a
/// log, CI), a plain note the first time (or, with `quietStart`, only once work has run for an
/// interval), then at most one every `interval` seconds of wall time, and the last (`final`),
/// so long work is never silent and never floods a log. A progress line ends one way,
/// ``end()`` (which `final` calls), and a note written while it is drawn goes through
/// ``note(_:)``. Not Sendable: one loop (or one lock) reports through it, one line at a time,
/// so it holds no lock. O(1) a line.
public struct ProgressLines {
    /// Where the lines go.
    public let sink: ProgressSink
    /// The least wall time between two plain notes, in seconds (default 10).
    public let interval: Double
    /// What a plain note starts with (default `progress: `; empty for the soaks' lines, which
    /// name their iteration).
    public let plainPrefix: String
    /// True when work that ends within one `interval` writes no plain note at all (a batch
    /// that is usually quick); false (the default) for a plain note at once.
    public let quietStart: Bool
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    private var lastPlain: Double
    /// A plain note was written.
    private var wrotePlain = false
    /// The line drawn on the terminal and not yet ended; nil when none is.
    private var drawn: String?

    /// A throttle for `sink`, its clock started now. O(1).
    public init(sink: ProgressSink, interval: Double = 10, plainPrefix: String = "progress: ", quietStart: Bool = false) {
        self.sink = sink
        self.interval = interval
        self.plainPrefix = plainPrefix
        self.quietStart = quietStart
        start = clock.now
        lastPlain = quietStart ? 0 : -interval
    }

    /// Wall seconds since the throttle was made. O(1).
    public var elapsed: Double { (clock.now - start).seconds }

    /// Shows `line` (`final`: the last of the work, always written, unless `quietStart` work
    /// wrote no plain note before; on a terminal it ends the line, see ``end()``).
    /// O(length of the line).
    public mutating func report(_ line: String, final: Bool = false) {
        if sink.isTerminal {
            drawn = line
            if final { end() } else { sink.progress(line, false) }
        } else if elapsed - lastPlain >= interval || (final && (wrotePlain || !quietStart)) {
            sink.note(plainPrefix + line)
            lastPlain = elapsed
            wrotePlain = true
        }
    }

    /// Writes `line` as a note (a failed file, a failed run) while work goes on: on a terminal
    /// the drawn progress line is cleared first and drawn again under the note, so the two
    /// never share a line. O(length of the lines).
    public func note(_ line: String) {
        guard sink.isTerminal, let drawn else { return sink.note(line) }
        sink.progress("", false)
        sink.note(line)
        sink.progress(drawn, false)
    }

    /// Ends the progress line, the one way one ends: on a terminal the line drawn last stays,
    /// ended by a newline, so what follows starts on a line of its own; nothing when no line is
    /// drawn (off a terminal, every note is a whole line already). Calling it again does
    /// nothing. O(length of the line).
    public mutating func end() {
        guard sink.isTerminal, let line = drawn else { return }
        sink.progress(line, true)
        drawn = nil
    }
}
