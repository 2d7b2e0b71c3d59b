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
        var lineStart = 0
        var lineNumber = 0
        while lineStart < bytes.count {
            lineNumber += 1
            let lineEnd = bytes[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            let line = UnsafeRawBufferPointer(rebasing: bytes[lineStart..<lineEnd])
            lineStart = lineEnd + 1
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let key = String(decoding: UnsafeRawBufferPointer(rebasing: line[..<colon]), as: UTF8.self)
            guard let slot = keys.firstIndex(of: key), values[slot] == nil else { continue }
            var cursor = ByteCursor(UnsafeRawBufferPointer(rebasing: line[(colon + 1)...]))
            guard let kilobytes = cursor.field(), cursor.unit("kB"), cursor.blankToEnd(),
                  let value = bytesOf(kilobytes, unit: 1024)
            else {
                return malformed(source, lineNumber, line, "expected \"<number> kB\" after \(key):")
            }
            values[slot] = value
        }
        return .success(values)
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
