/// Pure parsing of the files `MemoryPressureSource` reads, tested on fixed text.
extension MemoryPressureSource {
    /// The cgroup v2 path of the process from `/proc/self/cgroup` text: the path on the
    /// `0::` line (`"0::/user.slice/app.scope"` → `"/user.slice/app.scope"`); nil when there
    /// is no v2 line. O(length).
    public static func cgroupPath(procSelfCgroup text: String) -> String? {
        for line in text.split(separator: "\n") where line.hasPrefix("0::") {
            let path = line.dropFirst(3).trimmingWhitespace()
            return path.isEmpty ? nil : String(path)
        }
        return nil
    }

    /// The limit in `memory.max` text: bytes, or nil for `max` (no limit) or anything
    /// unreadable. O(length).
    public static func cgroupLimit(memoryMax text: String) -> Int? {
        let value = text.trimmingWhitespace()
        if value == "max" { return nil }
        return Int(value).flatMap { $0 > 0 ? $0 : nil }
    }

    /// The usage in `memory.current` text, in bytes; nil when unreadable. O(length).
    public static func cgroupUsage(memoryCurrent text: String) -> Int? {
        Int(text.trimmingWhitespace()).flatMap { $0 >= 0 ? $0 : nil }
    }

    /// `MemTotal` and `MemAvailable` from `/proc/meminfo` text, in bytes (the file says kB,
    /// meaning KiB); nil when either is missing. O(length).
    public static func meminfo(_ text: String) -> (total: Int, available: Int)? {
        var total: Int?
        var available: Int?
        for line in text.split(separator: "\n") {
            let parts = line.split(whereSeparator: { $0 == " " || $0 == ":" })
            guard parts.count >= 2, let value = Int(parts[1]) else { continue }
            let factor = parts.count >= 3 && parts[2] == "kB" ? 1024 : 1
            switch parts[0] {
            case "MemTotal": total = value * factor
            case "MemAvailable": available = value * factor
            default: continue
            }
        }
        guard let total, let available, total > 0 else { return nil }
        return (total, available)
    }

    /// The warning level for `reading`: critical when the available fraction is at most
    /// `thresholds.critical`, moderate when at most `thresholds.moderate`, else nil. O(1).
    public static func level(for reading: Reading, thresholds: Thresholds) -> MemoryWarningLevel? {
        if reading.availableFraction <= thresholds.critical { return .critical }
        if reading.availableFraction <= thresholds.moderate { return .moderate }
        return nil
    }
}

extension Substring {
    /// Without leading and trailing spaces, tabs and newlines.
    func trimmingWhitespace() -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}

extension String {
    /// Without leading and trailing spaces, tabs and newlines.
    func trimmingWhitespace() -> Substring { self[...].trimmingWhitespace() }
}
