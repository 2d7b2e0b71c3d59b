import ArgumentParser
import Lab
import Retention

/// Flag values parsed once, when the command line is read. A bad one is a usage error (exit 64):
/// "The value 'lots' is invalid for '--max-growth <size>': expected a size like 16MB …"; the
/// command gets a typed value, never a string it checks first and force-unwraps later. Each
/// parser is O(length of the value).
enum ArgumentValues {
    /// A size (`16MB`, `512KB`, a byte count); `example` shows one in the error.
    static func size(example: String) -> @Sendable (String) throws -> ByteSize {
        { text in
            guard let size = ByteSize(parsing: text) else {
                throw ValidationError("expected a size like \(example) or a byte count")
            }
            return size
        }
    }

    /// A growth rate (`256KB`, `256KB/iteration`, `100MB/h`).
    static func growthRate() -> @Sendable (String) throws -> GrowthRate {
        { text in
            guard let rate = GrowthRate(parsing: text) else {
                throw ValidationError("expected a size per iteration or per hour like 256KB, 256KB/iteration or 100MB/h")
            }
            return rate
        }
    }

    /// A duration in seconds (`90s`, `30m`, `2h`, `1h30m`).
    static func duration() -> @Sendable (String) throws -> Double {
        { text in
            guard let seconds = parseSoakDuration(text) else {
                throw ValidationError("expected a number with s, m or h (like 90s, 30m, 2h)")
            }
            return seconds
        }
    }
}
