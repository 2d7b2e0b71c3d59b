import Visibility

/// The impossible events a `--repair` replay dropped: how many of each kind, and the first one's
/// line and text. O(kinds) memory.
public struct TraceRepairs: Sendable, Hashable {
    /// One kind of dropped event.
    public struct Kind: Sendable, Hashable {
        /// What the events were ("rows appearing before initialized").
        public var name: String
        /// How many were dropped.
        public var count: Int
        /// The first one's line.
        public var firstLine: Int
        /// The first one's full message.
        public var firstMessage: String
    }

    /// Kinds in the order first seen.
    public private(set) var kinds: [Kind] = []

    /// No repairs. O(1).
    public init() {}

    /// Events dropped in all. O(kinds).
    public var total: Int { kinds.reduce(0) { $0 + $1.count } }

    /// Counts one dropped event. O(kinds).
    public mutating func record(kind: String, line: Int, message: String) {
        if let index = kinds.firstIndex(where: { $0.name == kind }) {
            kinds[index].count += 1
        } else {
            kinds.append(Kind(name: kind, count: 1, firstLine: line, firstMessage: message))
        }
    }

    /// One line: "dropped 3 impossible events: 2 rows appearing before initialized (first at
    /// line 5: row 7 appeared but was never initialized), 1 …"; nil when nothing was dropped.
    /// O(kinds).
    public var summary: String? {
        guard total > 0 else { return nil }
        let parts = kinds.map { "\($0.count) \($0.name) (first at line \($0.firstLine): \($0.firstMessage))" }
        return "dropped \(total) impossible event\(total == 1 ? "" : "s"): " + parts.joined(separator: "; ")
    }
}
