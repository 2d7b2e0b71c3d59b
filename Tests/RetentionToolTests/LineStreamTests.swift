import SystemIO
import Testing
@testable import RetentionTool

@Suite("LineStream: long output in chunks, the first failure kept")
struct LineStreamTests {
    struct Full: Error, Equatable {}

    /// A sink that records chunks, failing from the `failAt`-th chunk on. Its record sits in
    /// a `Lock`, since a stream's sink must be `Sendable`.
    final class Sink: Sendable {
        private let state = Lock<(chunks: [String], calls: Int)>(([], 0))
        let failAt: Int
        init(failAt: Int = .max) { self.failAt = failAt }
        var chunks: [String] { state.withLock { $0.chunks } }
        var calls: Int { state.withLock { $0.calls } }
        @Sendable func write(_ text: String) throws {
            let fails = state.withLock { state -> Bool in
                state.calls += 1
                if state.calls >= failAt { return true }
                state.chunks.append(text)
                return false
            }
            if fails { throw Full() }
        }
    }

    @Test("lines are joined into chunks of about the chunk size, and finish writes the rest")
    func chunks() throws {
        let sink = Sink()
        var stream = LineStream(chunkBytes: 10, sink: sink.write)
        for line in ["abc", "defg", "hi", "j"] { stream.write(line) }
        #expect(sink.chunks == ["abc\ndefg\nhi\n"])
        try stream.finish()
        #expect(sink.chunks == ["abc\ndefg\nhi\n", "j\n"])
        #expect(stream.failure == nil)
    }

    @Test("after a failed write nothing more is written, and finish throws that first failure")
    func failure() {
        let sink = Sink(failAt: 2)
        var stream = LineStream(chunkBytes: 4, sink: sink.write)
        for line in ["one", "two", "three", "four"] { stream.write(line) }
        #expect(sink.chunks == ["one\n"])
        #expect(sink.calls == 2)
        #expect(throws: Full()) { try stream.finish() }
        #expect(sink.calls == 2)
    }

    @Test("an empty stream writes nothing")
    func empty() throws {
        let sink = Sink()
        var stream = LineStream(sink: sink.write)
        try stream.finish()
        #expect(sink.calls == 0)
    }
}
