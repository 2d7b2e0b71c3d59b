import Testing
@testable import SoakProbe

/// The streaming marker matcher a process soak reads a program's output with, and the tail it
/// keeps of standard error: chunks of any size, lines of any length, bounded memory.
@Suite("Marker matcher")
struct MarkerMatcherTests {
    /// Feeds `text` in chunks of `size` bytes; returns the marker lines counted.
    func count(_ marker: String, in text: [UInt8], chunk size: Int) -> Int {
        var matcher = MarkerMatcher(marker: marker)!
        var found = 0, start = 0
        while start < text.count {
            found += matcher.feed(Array(text[start..<min(text.count, start + size)]))
            start += size
        }
        return found
    }

    @Test("a line holding the marker counts once, wherever it sits and however the bytes are cut", arguments: [1, 2, 3, 7, 64, 65536])
    func countsLines(chunk: Int) {
        let text = Array("RETENTION-ITERATION 1\nnoise\nxx RETENTION-ITERATION RETENTION-ITERATION\nRETENTION-ITERATIO\nN\nend RETENTION-ITERATION".utf8)
        #expect(count("RETENTION-ITERATION", in: text, chunk: chunk) == 3)
    }

    @Test("overlapping prefixes are matched (KMP's failure links), a newline breaks a match")
    func overlaps() {
        #expect(count("aab", in: Array("aaab\naaaab\naa\nb\n".utf8), chunk: 1) == 2)
        #expect(count("abab", in: Array("abababab\nababab\naba\nbab\n".utf8), chunk: 3) == 2)
        #expect(count("x", in: Array("x\nx\n\nyx".utf8), chunk: 2) == 3)
    }

    @Test("a marker after a 1 MiB line's worth of bytes counts, and the matcher keeps only the marker's bytes")
    func markerAfterALongLine() {
        var text = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
        text += Array("RETENTION-ITERATION\n".utf8)
        text += [UInt8](repeating: UInt8(ascii: "R"), count: 3 << 20) + Array("RETENTION-ITERATION".utf8)
        #expect(count("RETENTION-ITERATION", in: text, chunk: 65536) == 2)
        #expect(count("RETENTION-ITERATION", in: text, chunk: 4093) == 2)
        #expect(MemoryLayout<MarkerMatcher>.size <= 64, "two arrays and two counters, whatever was fed")
    }

    @Test("an empty marker or one holding a newline is refused")
    func refused() {
        #expect(MarkerMatcher(marker: "") == nil)
        #expect(MarkerMatcher(marker: "a\nb") == nil)
        #expect(MarkerMatcher(marker: "é")?.marker == [0xC3, 0xA9])
    }

    @Test("standard error's tail keeps the last five lines, each cut to 240 bytes, across chunks of any size", arguments: [7, 100, 65536])
    func tail(chunk: Int) {
        var text: [UInt8] = []
        for line in 1...12 { text += Array("line \(line)\n".utf8) }
        text += [UInt8](repeating: UInt8(ascii: "y"), count: 1 << 20) + Array("\n\nlast words".utf8)
        var tail = ProcessSoak.LineTail()
        var start = 0
        while start < text.count {
            Array(text[start..<min(text.count, start + chunk)]).withUnsafeBytes { tail.feed($0) }
            start += chunk
        }
        Array("\n".utf8).withUnsafeBytes { tail.feed($0) }
        #expect(tail.lines == ["line 10", "line 11", "line 12", String(repeating: "y", count: 240), "last words"])
    }
}
