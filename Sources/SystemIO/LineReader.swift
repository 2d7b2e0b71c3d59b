internal import Glibc

/// Reads a regular file line by line through one fixed buffer, so a file of any length costs
/// the buffer's memory, not the file's.
public enum LineReader {
    /// Why a line could not be handed over.
    public enum Failure: Error, Sendable, Equatable {
        /// The file could not be opened or read.
        case system(SystemError)
        /// Line `line` (1-based) is longer than `limit` bytes.
        case lineTooLong(line: Int, limit: Int)
    }

    /// Calls `body` with each line's bytes (without the `\n`, or a `\r\n`'s `\r`) and its 1-based
    /// number, in order; a last line without `\n` counts. The bytes are valid only during the
    /// call. Refuses a path that is not a regular file without blocking. Errors from `body` end
    /// the reading and are rethrown as they are. Memory: one buffer of `maxLineBytes` plus 64 KiB;
    /// time: one `read` per 64 KiB plus `body`.
    public static func forEachLine(
        _ path: String, maxLineBytes: Int = 1 << 16,
        _ body: (UnsafeRawBufferPointer, Int) throws -> Void
    ) throws {
        let fd: Int32
        do { fd = try FileIO.openRegularFile(path).fd } catch { throw Failure.system(error) }
        defer { close(fd) }
        let chunk = 1 << 16
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: maxLineBytes + chunk, alignment: 1)
        defer { buffer.deallocate() }
        var filled = 0 // bytes in the buffer, from its start
        var lineNumber = 0
        var atEnd = false
        while !atEnd {
            let n = Glibc.read(fd, buffer.baseAddress! + filled, buffer.count - filled)
            if n < 0 {
                if Glibc.errno == EINTR { continue }
                throw Failure.system(.lastError("read", path))
            }
            if n == 0 { atEnd = true }
            filled += n
            var start = 0
            while let newline = memchr(buffer.baseAddress! + start, 0x0A, filled - start) {
                let end = buffer.baseAddress!.distance(to: newline)
                lineNumber += 1
                try deliver(buffer, start, end, lineNumber, maxLineBytes, body)
                start = end + 1
            }
            if atEnd, start < filled {
                lineNumber += 1
                try deliver(buffer, start, filled, lineNumber, maxLineBytes, body)
                start = filled
            }
            if filled - start > maxLineBytes { throw Failure.lineTooLong(line: lineNumber + 1, limit: maxLineBytes) }
            // Move the partial line to the front.
            if start > 0 {
                if filled > start { memmove(buffer.baseAddress!, buffer.baseAddress! + start, filled - start) }
                filled -= start
            }
        }
    }

    private static func deliver(
        _ buffer: UnsafeMutableRawBufferPointer, _ start: Int, _ end: Int, _ number: Int, _ limit: Int,
        _ body: (UnsafeRawBufferPointer, Int) throws -> Void
    ) throws {
        var stop = end
        if stop > start, buffer[stop - 1] == 0x0D { stop -= 1 }
        if stop - start > limit { throw Failure.lineTooLong(line: number, limit: limit) }
        try body(UnsafeRawBufferPointer(rebasing: buffer[start..<stop]), number)
    }
}
