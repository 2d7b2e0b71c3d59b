import ArgumentParser
import DiskCache
import Lab
import RetentionTool

/// Flag values parsed once, when the command line is read. A bad one is a usage error (exit 64):
/// "The value 'lots' is invalid for '--max-growth <size>': expected a size like 16MB …"; the
/// command gets a typed value, never a string it checks first and force-unwraps later. Each
/// parser is O(length of the value).
enum ArgumentValues {
    /// A size with its unit (`16MB`, `512KB`, `2GiB`, `1000B`, or `0`); `example` shows one in
    /// the error. A bare number is refused: `10` is a slip, not ten bytes.
    /// The error says what is wrong (negative, no unit, a unit in the wrong case) and lists
    /// every unit accepted; such options take a value that starts with `-` (`.unconditional`),
    /// so `-1` is a range error, not "Missing value".
    static func size(example: String) -> @Sendable (String) throws -> ByteSize {
        { text in
            guard let size = ByteSize(text) else { throw ValidationError(ByteSize.problem(in: text) ?? "expected a size like \(example)") }
            return size
        }
    }

    /// A resident-memory size for `--max-resident` (`64MB`, `2GiB`), more than zero, with its
    /// unit; errors as ``size(example:)``'s.
    static func residentSize() -> @Sendable (String) throws -> ByteSize {
        { text in
            let size = try size(example: "64MB")(text)
            guard size.bytes > 0 else { throw ValidationError("\(text): expected a size above zero with its unit, like 64MB or 2GiB") }
            return size
        }
    }

    /// A growth rate (`256KB`, `256KB/iteration`, `100MB/h`), with its unit.
    static func growthRate() -> @Sendable (String) throws -> GrowthRate {
        parsed("expected a size per hour of use like 16MB/h, or per iteration like 256KB/iteration") { GrowthRate(parsing: $0, requiringUnit: true) }
    }

    /// A soak's horizon of modelled use in seconds (`1h`, `8h`, `30m`).
    static func horizon() -> @Sendable (String) throws -> Double {
        parsed("expected hours of use with s, m or h (like 1h, 8h, 30m)") { SoakJob.duration(parsing: $0) }
    }

    /// A duration in seconds (`90s`, `30m`, `2h`, `1h30m`).
    static func duration() -> @Sendable (String) throws -> Double {
        parsed("expected a number with s, m or h (like 90s, 30m, 2h)") { SoakJob.duration(parsing: $0) }
    }

    /// A thumbnail box for `-s` (`256` or `256x192`).
    static func thumbnailBox() -> @Sendable (String) throws -> ThumbnailSize {
        parsed("expected a size like 256 or 256x192, each side a whole number from 1 to \(ThumbnailSize.maximum)") { ThumbnailSize(parsing: $0) }
    }

    /// A `--set KEY=VALUE` setting (a size like 8MB for a budget, a whole number for a count);
    /// the error says which part is wrong.
    static func setting() -> @Sendable (String) throws -> SweepSetting {
        { text in try usage { try SweepSetting(parsing: text) } }
    }

    /// The value `parse` makes of the flag's text; a usage error saying `expectation` when it
    /// makes none.
    private static func parsed<Value>(_ expectation: String, _ parse: @escaping @Sendable (String) -> Value?) -> @Sendable (String) throws -> Value {
        { text in
            guard let value = parse(text) else { throw ValidationError(expectation) }
            return value
        }
    }
}
