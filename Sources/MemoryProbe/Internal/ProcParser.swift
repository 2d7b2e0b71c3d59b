/// Parsers for the `/proc` formats MemoryProbe reads, over raw bytes so the per-frame statm
/// sample parses straight from a stack buffer without making a `String`.
enum ProcParser {
    // MARK: - statm

    /// Parses the one line of `statm`: seven page counts separated by spaces.
    /// - Complexity: O(n) in the line's length; no allocation unless it fails.
    static func statm(_ bytes: UnsafeRawBufferPointer, pageSize: Int, source: String) -> Result<StatmSample, MemoryProbeError> {
        let end = bytes.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
        let line = UnsafeRawBufferPointer(rebasing: bytes[0..<end])
        var cursor = ByteCursor(line)
        guard
            let size = cursor.field(), let resident = cursor.field(), let shared = cursor.field(),
            let text = cursor.field(), cursor.field() != nil, let data = cursor.field(),
            cursor.field() != nil
        else {
            return malformed(source, 1, line, "expected 7 page counts")
        }
        cursor.skipBlanks()
        guard cursor.atEnd else {
            return malformed(source, 1, line, "unexpected text after 7 page counts")
        }
        guard
            let virtualBytes = bytesOf(size, unit: pageSize), let residentBytes = bytesOf(resident, unit: pageSize),
            let sharedBytes = bytesOf(shared, unit: pageSize), let textBytes = bytesOf(text, unit: pageSize),
            let dataBytes = bytesOf(data, unit: pageSize)
        else {
            return malformed(source, 1, line, "page count times page size \(pageSize) overflows")
        }
        return .success(StatmSample(
            virtualBytes: virtualBytes, residentBytes: residentBytes, sharedBytes: sharedBytes,
            textBytes: textBytes, dataBytes: dataBytes
        ))
    }

    // MARK: - status

    static let statusKeys = ["VmRSS", "VmHWM", "RssAnon", "RssFile", "RssShmem"]

    /// Parses the memory lines of `status`; every key in `statusKeys` is required.
    static func status(_ bytes: UnsafeRawBufferPointer, source: String) -> Result<ProcessStatus, MemoryProbeError> {
        kilobyteFields(bytes, keys: statusKeys, source: source).flatMap { values in
            if let missing = values.firstIndex(of: nil) {
                return .failure(.missingField(path: source, field: statusKeys[missing]))
            }
            return .success(ProcessStatus(
                residentBytes: values[0]!, peakResidentBytes: values[1]!, anonymousBytes: values[2]!,
                fileBytes: values[3]!, sharedMemoryBytes: values[4]!
            ))
        }
    }

    // MARK: - smaps_rollup

    /// The first `smapsRequiredCount` keys are printed by every kernel with smaps_rollup (4.14+).
    static let smapsKeys = [
        "Rss", "Pss", "Shared_Clean", "Shared_Dirty", "Private_Clean", "Private_Dirty",
        "Referenced", "Anonymous", "LazyFree", "AnonHugePages", "Swap", "Locked",
        "Pss_Anon", "Pss_File", "Pss_Shmem", "Pss_Dirty",
    ]
    static let smapsRequiredCount = 12

    /// Parses `smaps_rollup`: a header line naming the address range, then `Key: N kB` lines.
    static func smapsRollup(_ bytes: UnsafeRawBufferPointer, source: String) -> Result<SmapsRollup, MemoryProbeError> {
        kilobyteFields(bytes, keys: smapsKeys, source: source).flatMap { v in
            if let missing = v[0..<smapsRequiredCount].firstIndex(of: nil) {
                return .failure(.missingField(path: source, field: smapsKeys[missing]))
            }
            return .success(SmapsRollup(
                rssBytes: v[0]!, pssBytes: v[1]!, sharedCleanBytes: v[2]!, sharedDirtyBytes: v[3]!,
                privateCleanBytes: v[4]!, privateDirtyBytes: v[5]!, referencedBytes: v[6]!,
                anonymousBytes: v[7]!, lazyFreeBytes: v[8]!, anonHugePagesBytes: v[9]!,
                swapBytes: v[10]!, lockedBytes: v[11]!,
                pssAnonBytes: v[12], pssFileBytes: v[13], pssShmemBytes: v[14], pssDirtyBytes: v[15]
            ))
        }
    }

    // MARK: - Shared

    /// Finds the `Key: N kB` line of each key in `keys` and returns its value in bytes (nil for
    /// keys without a line). Lines of other keys are skipped unparsed; a wanted key whose value
    /// is not `N kB` is an error naming the line. The first line of a key wins.
    static func kilobyteFields(_ bytes: UnsafeRawBufferPointer, keys: [String], source: String) -> Result<[Int?], MemoryProbeError> {
        var values = [Int?](repeating: nil, count: keys.count)
        let failure = forEachLine(bytes) { line, lineNumber -> MemoryProbeError? in
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return nil }
            let key = String(decoding: UnsafeRawBufferPointer(rebasing: line[..<colon]), as: UTF8.self)
            guard let slot = keys.firstIndex(of: key), values[slot] == nil else { return nil }
            switch kilobytes(after: colon + 1, in: line, key: key, lineNumber: lineNumber, source: source) {
            case .success(let value): values[slot] = value
            case .failure(let error): return error
            }
            return nil
        }
        return failure.map { .failure($0) } ?? .success(values)
    }

    /// Calls `body` with each line of `bytes` (without its newline) and its number from 1,
    /// until `body` returns an error, which is returned. O(n).
    static func forEachLine(_ bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer, Int) -> MemoryProbeError?) -> MemoryProbeError? {
        var lineStart = 0
        var lineNumber = 0
        while lineStart < bytes.count {
            lineNumber += 1
            let lineEnd = bytes[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            let line = UnsafeRawBufferPointer(rebasing: bytes[lineStart..<lineEnd])
            lineStart = lineEnd + 1
            if let error = body(line, lineNumber) { return error }
        }
        return nil
    }

    /// The `N kB` that follows position `start` of `line` (the `key:`'s colon and one), in bytes;
    /// an error naming the line when it is anything else. O(length).
    static func kilobytes(after start: Int, in line: UnsafeRawBufferPointer, key: String, lineNumber: Int,
                          source: String) -> Result<Int, MemoryProbeError> {
        var cursor = ByteCursor(UnsafeRawBufferPointer(rebasing: line[start...]))
        guard let kilobytes = cursor.field(), cursor.unit("kB"), cursor.blankToEnd(), let value = bytesOf(kilobytes, unit: 1024) else {
            return malformed(source, lineNumber, line, "expected \"<number> kB\" after \(key):")
        }
        return .success(value)
    }

    /// `count × unit`, or nil on overflow.
    static func bytesOf(_ count: Int, unit: Int) -> Int? {
        let (product, overflow) = count.multipliedReportingOverflow(by: unit)
        return overflow ? nil : product
    }

    static func malformed<T>(_ source: String, _ line: Int, _ text: UnsafeRawBufferPointer, _ reason: String) -> Result<T, MemoryProbeError> {
        .failure(.malformed(path: source, line: line, text: String(decoding: text, as: UTF8.self), reason: reason))
    }
}

/// A read position in one line of bytes.
struct ByteCursor {
    let bytes: UnsafeRawBufferPointer
    var index = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    var atEnd: Bool { index == bytes.count }

    /// Skips spaces and tabs.
    mutating func skipBlanks() {
        while index < bytes.count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") {
            index += 1
        }
    }

    /// Skips blanks, then reads a decimal number followed by a blank or the end of the line.
    /// Returns nil when there are no digits, a digit is followed by anything else, or it overflows.
    mutating func field() -> Int? {
        skipBlanks()
        var value = 0
        let start = index
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(Int(bytes[index] &- UInt8(ascii: "0")))
            if o1 || o2 { return nil }
            value = sum
            index += 1
        }
        guard index > start else { return nil }
        guard atEnd || bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") else { return nil }
        return value
    }

    /// Skips blanks, then consumes `unit` if it comes next followed by a blank or the end.
    mutating func unit(_ unit: StaticString) -> Bool {
        skipBlanks()
        let count = unit.utf8CodeUnitCount
        guard bytes.count - index >= count else { return false }
        for offset in 0..<count where bytes[index + offset] != unit.utf8Start[offset] {
            return false
        }
        index += count
        return atEnd || bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t")
    }

    /// Skips blanks and reports whether that reached the end.
    mutating func blankToEnd() -> Bool {
        skipBlanks()
        return atEnd
    }
}

extension ProcParser {
    // MARK: - meminfo

    /// Parses `MemTotal` (required) and `MemAvailable` (Linux 3.14+) of `/proc/meminfo`.
    static func meminfo(_ bytes: UnsafeRawBufferPointer, source: String) -> Result<Meminfo, MemoryProbeError> {
        kilobyteFields(bytes, keys: ["MemTotal", "MemAvailable"], source: source).flatMap { values in
            guard let total = values[0] else { return .failure(.missingField(path: source, field: "MemTotal")) }
            return .success(Meminfo(totalBytes: total, availableBytes: values[1]))
        }
    }
}

extension ProcParser {
    // MARK: - smaps

    /// Sums the `Rss` of every mapping in `smaps` whose file is `folder` or lies under it (a
    /// mapping's header line: address range, permissions, offset, device, inode, then the path,
    /// which may hold spaces). Other mappings are skipped unparsed; a matching mapping whose
    /// `Rss` line is not `N kB` is an error naming the line. O(n) in the text's length.
    static func mappedResident(_ bytes: UnsafeRawBufferPointer, under folder: String, source: String) -> Result<Int, MemoryProbeError> {
        let prefix = Array(folder.utf8)
        var total = 0
        var matching = false
        let failure = forEachLine(bytes) { line, lineNumber -> MemoryProbeError? in
            let firstBlank = line.firstIndex { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") } ?? line.count
            guard firstBlank > 0 else { return nil }
            if line[firstBlank - 1] != UInt8(ascii: ":") {
                // A mapping's header: the path is what follows the fifth field.
                matching = Self.headerPath(line).map { range in
                    let path = UnsafeRawBufferPointer(rebasing: line[range])
                    return path.count >= prefix.count && path.starts(with: prefix)
                        && (path.count == prefix.count || path[prefix.count] == UInt8(ascii: "/"))
                } ?? false
                return nil
            }
            guard matching, firstBlank == 4, line.starts(with: "Rss:".utf8) else { return nil }
            switch kilobytes(after: 4, in: line, key: "Rss", lineNumber: lineNumber, source: source) {
            case .success(let value): total += value
            case .failure(let error): return error
            }
            return nil
        }
        return failure.map { .failure($0) } ?? .success(total)
    }

    /// Where the path of a mapping header line lies (the text after five blank-separated
    /// fields, without the blanks before it); nil for an anonymous mapping. O(length).
    static func headerPath(_ line: UnsafeRawBufferPointer) -> Range<Int>? {
        var index = 0
        func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        for _ in 0..<5 {
            while index < line.count, isBlank(line[index]) { index += 1 }
            while index < line.count, !isBlank(line[index]) { index += 1 }
        }
        while index < line.count, isBlank(line[index]) { index += 1 }
        guard index < line.count else { return nil }
        return index..<line.count
    }
}
