/// Numbers as the tool's text shows them, without Foundation's formatters: the one formatter
/// for megabytes, fixed decimals and counted words that every table, verdict and line uses.
public enum NumberText {
    /// `1 hitch`, `2 hitches`: `count` and the word that goes with it. O(1).
    public static func plural(_ count: Int, _ one: String, _ many: String) -> String {
        "\(count) \(count == 1 ? one : many)"
    }

    /// `value` with one decimal, rounded half away from zero; the sign stays on any value
    /// that rounds to a non-zero figure (`-0.4`), and a value that rounds to zero is `0.0`. O(1).
    public static func oneDecimal(_ value: Double) -> String { fixed(value, scale: 10) }

    /// `value` with two decimals, rounded like ``oneDecimal(_:)``. O(1).
    public static func twoDecimals(_ value: Double) -> String { fixed(value, scale: 100) }

    /// `12.3` for 12,345,678 bytes and `-0.4` for -400,000: decimal megabytes
    /// (1 MB = 1,000,000 bytes) with one decimal and no unit. O(1).
    public static func mb(_ bytes: Double) -> String { oneDecimal(bytes / 1_000_000) }

    /// ``mb(_:)-(Double)`` for a byte count. O(1).
    public static func mb(_ bytes: Int) -> String { mb(Double(bytes)) }

    /// `12.3 MB`: ``mb(_:)-(Int)`` with its unit. O(1).
    public static func megabytes(_ bytes: Int) -> String { mb(bytes) + " MB" }

    /// The largest decimal unit the figure fills, with one decimal (either sign): `27.9 KB`
    /// under a megabyte, `1.2 MB` under a gigabyte, `42.0 GB` under a terabyte, `1.5 TB` from
    /// there; so small rates and slopes do not round to `0.0 MB` and large ones are not
    /// `41971.8 MB`. O(1).
    public static func size(_ bytes: Double) -> String {
        let magnitude = abs(bytes)
        if magnitude < 999_950 { return oneDecimal(bytes / 1_000) + " KB" }
        if magnitude < 999_950_000 { return mb(bytes) + " MB" }
        if magnitude < 999_950_000_000 { return oneDecimal(bytes / 1_000_000_000) + " GB" }
        return oneDecimal(bytes / 1_000_000_000_000) + " TB"
    }

    /// `122,880` for 122,880 and `-4,096` for -4,096: a whole number with a comma between
    /// groups of three digits, rounded half away from zero. O(digits).
    public static func grouped(_ value: Double) -> String {
        let rounded = value.rounded()
        guard rounded.isFinite, abs(rounded) < 1e15 else { return String(value) }
        let digits = String(Int(abs(rounded)))
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return (rounded < 0 ? "-" : "") + text
    }

    /// `3`, or `3 (1–7)` when a `[min, max]` spread differs. O(1).
    public static func count(_ median: Int, _ spread: [Int]) -> String {
        spread.count == 2 && spread[0] != spread[1] ? "\(median) (\(spread[0])–\(spread[1]))" : "\(median)"
    }

    /// `value` rounded to `1/scale` and written with as many decimals as `scale` has zeros; a
    /// value too large for that (beyond about 10^15) or not finite in Swift's own form.
    private static func fixed(_ value: Double, scale: Int) -> String {
        let scaled = (value * Double(scale)).rounded()
        guard scaled.isFinite, abs(scaled) < 1e15 else { return String(value) }
        let magnitude = Int(abs(scaled))
        let places = String(scale).count - 1
        let fraction = String(magnitude % scale)
        return (scaled < 0 ? "-" : "") + "\(magnitude / scale)." + String(repeating: "0", count: places - fraction.count) + fraction
    }
}
