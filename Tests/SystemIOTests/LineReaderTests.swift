import Foundation
import Glibc
import Testing
@testable import SystemIO

@Suite("LineReader: any length through one buffer")
struct LineReaderTests {
    static func lines(of text: String, maxLineBytes: Int = 1 << 16) throws -> [String] {
        let path = NSTemporaryDirectory() + "linereader-\(UUID().uuidString)"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { unlink(path) }
        var result: [String] = []
        try LineReader.forEachLine(path, maxLineBytes: maxLineBytes) { bytes, number in
            #expect(number == result.count + 1)
            result.append(String(decoding: bytes, as: UTF8.self))
        }
        return result
    }

    @Test("lines split on \\n, a \\r\\n's \\r dropped, a last line without \\n counted, empty lines kept")
    func splits() throws {
        #expect(try Self.lines(of: "a\nbb\r\n\nccc") == ["a", "bb", "", "ccc"])
        #expect(try Self.lines(of: "") == [])
        #expect(try Self.lines(of: "x\n") == ["x"])
    }

    @Test("lines that cross buffer refills arrive whole, in order")
    func refills() throws {
        let many = (0..<50_000).map { "line \($0) " + String(repeating: "z", count: $0 % 97) }
        #expect(try Self.lines(of: many.joined(separator: "\n") + "\n", maxLineBytes: 200) == many)
    }

    @Test("a line over the limit and a FIFO are errors, not waits")
    func limits() throws {
        #expect(throws: LineReader.Failure.lineTooLong(line: 2, limit: 10)) { try Self.lines(of: "short\n" + String(repeating: "y", count: 11) + "\n", maxLineBytes: 10) }
        let fifo = NSTemporaryDirectory() + "linereader-fifo-\(getpid())"
        mkfifo(fifo, 0o600)
        defer { unlink(fifo) }
        let error = #expect(throws: LineReader.Failure.self) { try LineReader.forEachLine(fifo) { _, _ in } }
        guard case .system(let system) = error else { Issue.record("\(String(describing: error))"); return }
        #expect(system.description == "cannot read \(fifo): it is a FIFO, not a regular file")
    }
}
