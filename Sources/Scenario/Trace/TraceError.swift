/// Why a trace cannot be replayed: the file, the 1-based line, and the problem, printed as one
/// line `recording.jsonl:12: row 7 appeared but was never initialized`.
public struct TraceError: Error, CustomStringConvertible, Sendable, Hashable {
    /// What is wrong with one line.
    public enum Problem: Error, Sendable, Hashable {
        /// The header line is missing or wrong.
        case header(String)
        /// The line is not a valid event line (syntax, an unknown event or key, a wrong type).
        case malformed(String)
        /// A valid line describes something that cannot happen at that point (time going
        /// backwards, a row appearing before it was built, events after the container was
        /// destroyed). `--repair` drops these instead.
        case impossible(String)
        /// The trace is over a limit (line length, frames).
        case limit(String)
        /// The file cannot be read (the system's reason).
        case unreadable(String)

        /// The reason alone. O(1).
        public var reason: String {
            switch self {
            case .header(let text): "bad header: " + text
            case .malformed(let text), .impossible(let text), .limit(let text): text
            case .unreadable(let text): "cannot read the trace: " + text
            }
        }
    }

    /// The trace file (or a label).
    public var source: String
    /// The 1-based line number; 0 when the problem is the file as a whole.
    public var line: Int
    /// What is wrong.
    public var problem: Problem

    /// An error. O(1).
    public init(source: String, line: Int, problem: Problem) {
        self.source = source
        self.line = line
        self.problem = problem
    }

    /// `SOURCE:LINE: reason`. O(length).
    public var description: String {
        line > 0 ? "\(source):\(line): \(problem.reason)" : "\(source): \(problem.reason)"
    }
}
