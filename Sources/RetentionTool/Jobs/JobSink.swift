/// Where a job's side output goes while it works: a progress line redrawn on a terminal, and
/// one-line notes (a failed child, a repaired trace, a skipped file) for standard error. Jobs
/// take a sink rather than printing, so a test or a library caller can run one quietly or
/// capture what it says.
public struct JobSink: Sendable {
    /// Redraws the progress line (`final` ends it); called only when ``isTerminal``.
    public var progress: @Sendable (_ line: String, _ final: Bool) -> Void
    /// Writes one line.
    public var note: @Sendable (_ line: String) -> Void
    /// True when progress is drawn in place (a terminal); otherwise a job writes a plain
    /// progress note at most every 10 s.
    public var isTerminal: Bool

    /// A sink of the given parts. O(1).
    public init(progress: @escaping @Sendable (_ line: String, _ final: Bool) -> Void, note: @escaping @Sendable (_ line: String) -> Void,
                isTerminal: Bool) {
        self.progress = progress
        self.note = note
        self.isTerminal = isTerminal
    }

    /// Standard error, progress drawn in place when it is a terminal.
    public static var standardError: JobSink {
        JobSink(progress: { Output.progress($0, final: $1) }, note: { Output.error($0) }, isTerminal: Output.stderrIsTerminal)
    }

    /// Nothing at all.
    public static let silent = JobSink(progress: { _, _ in }, note: { _ in }, isTerminal: false)
}
