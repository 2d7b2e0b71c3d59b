import Glibc

/// Counts the lines of a byte stream that hold a marker, as the bytes stream past: a program's
/// output read through a pipe in chunks of any size, a marker split across two chunks, a line
/// of any length (a marker one mebibyte into a line counts). A line holding the marker counts
/// once. Knuth–Morris–Pratt over bytes, with `memchr` to skip to the marker's first byte:
/// memory is the marker and its failure table, O(marker length), whatever the lines' lengths;
/// time is O(bytes fed). A value type with no shared state.
public struct MarkerMatcher: Sendable, Hashable {
    /// The marker's bytes (UTF-8), never empty and never holding a newline.
    public let marker: [UInt8]
    /// `failure[i]`: the length of the longest proper prefix of `marker[0...i]` that is also
    /// its suffix (KMP's table).
    private let failure: [Int]
    /// Bytes of the marker matched at the end of what was fed.
    private var matched = 0
    /// True once the current line counted: the rest of it is skipped up to its newline.
    private var lineCounted = false

    /// A matcher of `marker`; nil when it is empty or holds a newline (a line cannot hold a
    /// newline, so it could never match). O(marker length).
    public init?(marker: String) {
        let bytes = Array(marker.utf8)
        guard !bytes.isEmpty, !bytes.contains(UInt8(ascii: "\n")) else { return nil }
        self.marker = bytes
        var table = [Int](repeating: 0, count: bytes.count)
        var k = 0
        for i in 1..<max(1, bytes.count) {
            while k > 0 && bytes[i] != bytes[k] { k = table[k - 1] }
            if bytes[i] == bytes[k] { k += 1 }
            table[i] = k
        }
        failure = table
    }

    /// Feeds the next bytes of the stream; returns how many lines holding the marker were
    /// completed by them (a marker counts when its last byte arrives, before its line ends).
    /// O(bytes).
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
        let newline = UInt8(ascii: "\n")
        var found = 0, i = 0
        let count = bytes.count
        while i < count {
            if lineCounted {
                // Skip to the end of a line that already counted.
                guard let end = memchr(base + i, Int32(newline), count - i) else { return found }
                i = base.distance(to: end.assumingMemoryBound(to: UInt8.self)) + 1
                lineCounted = false
                matched = 0
                continue
            }
            if matched == 0 {
                guard let start = memchr(base + i, Int32(marker[0]), count - i) else { return found }
                i = base.distance(to: start.assumingMemoryBound(to: UInt8.self))
            }
            let byte = base[i]
            while matched > 0 && byte != marker[matched] { matched = failure[matched - 1] }
            if byte == marker[matched] { matched += 1 }
            i += 1
            if matched == marker.count {
                found += 1
                lineCounted = true
            }
        }
        return found
    }

    /// ``feed(_:)-(UnsafeRawBufferPointer)`` for bytes in an array (tests, small inputs). O(bytes).
    public mutating func feed(_ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBytes { feed($0) }
    }
}
