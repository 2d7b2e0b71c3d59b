/// Lines of a long output (a trace can have millions) gathered into large chunks for one
/// write each. Writes happen inside callbacks that cannot throw, so the first failure is kept,
/// nothing more is written, and `finish()` throws it. Holds at most one chunk.
package struct LineStream: Sendable {
    private var text = ""
    private let chunkBytes: Int
    private let sink: @Sendable (String) throws -> Void
    /// The first write that failed, if any.
    package private(set) var failure: (any Error)?

    /// A stream that passes chunks of about `chunkBytes` to `sink` (by default standard
    /// output, through `Output.writeStandardOutput`).
    package init(chunkBytes: Int = 1 << 16, sink: @escaping @Sendable (String) throws -> Void = Output.writeStandardOutput) {
        self.chunkBytes = chunkBytes
        self.sink = sink
    }

    /// Adds `line` and a newline; writes the chunk once it is full. Amortized O(line).
    package mutating func write(_ line: String) {
        guard failure == nil else { return }
        text += line
        text += "\n"
        if text.utf8.count >= chunkBytes { flushChunk() }
    }

    /// Adds `text` as is, with no newline of its own. Amortized O(text).
    package mutating func writeRaw(_ text: String) {
        guard failure == nil else { return }
        self.text += text
        if self.text.utf8.count >= chunkBytes { flushChunk() }
    }

    /// Writes what is left; throws the first failure of the whole stream.
    package mutating func finish() throws {
        flushChunk()
        if let failure { throw failure }
    }

    private mutating func flushChunk() {
        guard failure == nil, !text.isEmpty else { return }
        do { try sink(text) } catch { failure = error }
        text.removeAll(keepingCapacity: true)
    }
}
