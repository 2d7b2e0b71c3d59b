import MemoryProbe

/// Pure parsing of the files `MemoryPressureSource` reads, tested on fixed text.
extension MemoryPressureSource {
    /// The cgroup v2 path of the process from `/proc/self/cgroup` text: the path on the
    /// `0::` line (`"0::/user.slice/app.scope"` → `"/user.slice/app.scope"`); nil when there
    /// is no v2 line. O(length). (MemoryProbe's ``MemoryLimits/parseCgroupPaths(_:)``.)
    public static func cgroupPath(procSelfCgroup text: String) -> String? {
        MemoryLimits.parseCgroupPaths(text).v2
    }

    /// The limit in `memory.max` text: bytes, or nil for `max` (no limit) or anything
    /// unreadable. O(length). (MemoryProbe's ``MemoryLimits/parseCgroupLimit(_:)``.)
    public static func cgroupLimit(memoryMax text: String) -> Int? {
        MemoryLimits.parseCgroupLimit(text)
    }

    /// The usage in `memory.current` text, in bytes; nil when unreadable. O(length).
    public static func cgroupUsage(memoryCurrent text: String) -> Int? {
        let words = text.split(whereSeparator: \.isWhitespace)
        guard words.count == 1, let value = Int(words[0]), value >= 0 else { return nil }
        return value
    }

    /// `MemTotal` and `MemAvailable` from `/proc/meminfo` text, in bytes (the file says kB,
    /// meaning KiB); nil when either is missing or unreadable. O(length). (MemoryProbe's
    /// ``MemoryLimits/parseMeminfo(_:source:)``.)
    public static func meminfo(_ text: String) -> (total: Int, available: Int)? {
        guard let info = try? MemoryLimits.parseMeminfo(text), let available = info.availableBytes, info.totalBytes > 0 else { return nil }
        return (info.totalBytes, available)
    }

    /// The warning level for `reading`: critical when the available fraction is at most
    /// `thresholds.critical`, moderate when at most `thresholds.moderate`, else nil. O(1).
    public static func level(for reading: Reading, thresholds: Thresholds) -> MemoryWarningLevel? {
        if reading.availableFraction <= thresholds.critical { return .critical }
        if reading.availableFraction <= thresholds.moderate { return .moderate }
        return nil
    }
}
