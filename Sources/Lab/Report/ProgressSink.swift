/// Where long work's output goes while it works: a progress line redrawn on a terminal,
/// one-line notes (a failed child, a repaired trace, a skipped file) for standard error, and
/// the lines of its result as they come (a trace's events, one file's report) for standard
/// output.
/// Work takes a sink rather than printing, so a test or a library caller can run it quietly or
/// capture what it says. The tool's jobs take one too.
public struct ProgressSink: Sendable {
    /// Redraws the progress line (`final` ends it); called only when ``isTerminal``.
    public var progress: @Sendable (_ line: String, _ final: Bool) -> Void
    /// Writes one line.
    public var note: @Sendable (_ line: String) -> Void
    /// Writes one line of the work's result (no newline in `line`); called from any thread.
    public var emit: @Sendable (_ line: String) -> Void
    /// True when progress is drawn in place (a terminal); otherwise work writes a plain
    /// progress note at most every 10 s.
    public var isTerminal: Bool

    /// A sink of the given parts; result lines are dropped unless `emit` is given. O(1).
    public init(progress: @escaping @Sendable (_ line: String, _ final: Bool) -> Void, note: @escaping @Sendable (_ line: String) -> Void,
                isTerminal: Bool, emit: @escaping @Sendable (_ line: String) -> Void = { _ in }) {
        self.progress = progress
        self.note = note
        self.isTerminal = isTerminal
        self.emit = emit
    }

    /// Nothing at all.
    public static let silent = ProgressSink(progress: { _, _ in }, note: { _ in }, isTerminal: false)
}

/// The one progress throttle of long work (compare and sweep, their cost tables, a scenario
/// soak, `soak --exec`): a line redrawn in place on a terminal; off one (a log, CI), a plain
/// note the first time, then at most one every `interval` seconds of wall time, and the last
/// (`final`), so long work is never silent and never floods a log. Not Sendable: one loop
/// reports through it, one line at a time, so it holds no lock. O(1) a line.
public struct ProgressLines {
    /// Where the lines go.
    public let sink: ProgressSink
    /// The least wall time between two plain notes, in seconds (default 10).
    public let interval: Double
    /// What a plain note starts with (default `progress: `; empty for the soaks' lines, which
    /// name their iteration).
    public let plainPrefix: String
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    private var lastPlain: Double

    /// A throttle for `sink`, its clock started now. O(1).
    public init(sink: ProgressSink, interval: Double = 10, plainPrefix: String = "progress: ") {
        self.sink = sink
        self.interval = interval
        self.plainPrefix = plainPrefix
        start = clock.now
        lastPlain = -interval
    }

    /// Wall seconds since the throttle was made. O(1).
    public var elapsed: Double { (clock.now - start).seconds }

    /// Shows `line` (`final`: the last of the work, always written). O(length of the line).
    public mutating func report(_ line: String, final: Bool = false) {
        if sink.isTerminal {
            sink.progress(line, final)
        } else if elapsed - lastPlain >= interval || final {
            sink.note(plainPrefix + line)
            lastPlain = elapsed
        }
    }
}
