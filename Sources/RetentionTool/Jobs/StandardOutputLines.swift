import Lab
import SystemIO

/// Standard output for a job's lines: gathered into chunks of 64 KB, one `write(2)` each (a
/// trace can have millions of lines), or a line at a time on a terminal, where someone waits
/// for each. Safe from any thread (a `Lock` around the chunk: the workers of a batch emit from
/// their own threads); the first failed write is kept and nothing more is written.
package final class StandardOutputLines: Sendable {
    private let stream: Lock<LineStream>

    /// A stream to standard output. O(1), one `isatty`.
    package init() {
        stream = Lock(LineStream(chunkBytes: StandardStreams.outputIsTerminal ? 1 : 1 << 16))
    }

    /// Adds `line` and a newline. Amortized O(line).
    package func emit(_ line: String) {
        stream.withLock { $0.write(line) }
    }

    /// Writes `text` as is (it ends with its own newline, if any), after every line emitted
    /// before it. O(text).
    package func write(_ text: String) {
        stream.withLock { $0.writeRaw(text) }
    }

    /// Writes what is left; throws the first failed write (`Output.WriteError`).
    package func finish() throws {
        try stream.withLock { try $0.finish() }
    }

    /// A sink that emits here, with progress and notes on standard error (progress drawn in
    /// place when standard error is a terminal).
    package var sink: ProgressSink {
        ProgressSink(progress: { Output.progress($0, final: $1) }, note: { Output.error($0) }, isTerminal: Output.stderrIsTerminal,
                emit: { [self] in emit($0) })
    }
}
