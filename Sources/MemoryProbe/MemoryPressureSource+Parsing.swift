/// Readings and levels from file text, without reading files, so tests run on fixed text. The
/// files themselves are parsed by ``MemoryLimits``' parsers, one per format.
extension MemoryPressureSource {
    /// The reading of the cgroup at `directory` from the text of its limit file (`memory.max`
    /// or `memory.limit_in_bytes`) and usage file (`memory.current` or
    /// `memory.usage_in_bytes`); nil when the limit file sets no limit (`max`, v1's
    /// "unlimited") or either does not parse. O(length of the texts).
    public static func cgroupReading(directory: String, limit: String, usage: String) -> Reading? {
        guard let limitBytes = MemoryLimits.parseCgroupLimit(limit), let used = MemoryLimits.parseCgroupUsage(usage) else { return nil }
        return Reading(origin: .cgroup(directory: directory), limitBytes: limitBytes, availableBytes: limitBytes - used)
    }

    /// The reading `/proc/meminfo` text gives (`MemAvailable` of `MemTotal`); nil when either
    /// is missing or does not parse. O(length of `text`).
    public static func meminfoReading(_ text: String) -> Reading? {
        guard let info = try? MemoryLimits.parseMeminfo(text), let available = info.availableBytes, info.totalBytes > 0 else { return nil }
        return Reading(origin: .meminfo, limitBytes: info.totalBytes, availableBytes: available)
    }

    /// The warning level for `reading`: critical when the available fraction is at most
    /// `thresholds.critical`, moderate when at most `thresholds.moderate`, else nil. O(1).
    public static func level(for reading: Reading, thresholds: Thresholds) -> MemoryWarningLevel? {
        if reading.availableFraction <= thresholds.critical { return .critical }
        if reading.availableFraction <= thresholds.moderate { return .moderate }
        return nil
    }
}
