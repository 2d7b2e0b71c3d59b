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
