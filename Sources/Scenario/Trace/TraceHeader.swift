import StrictJSON
import SystemIO
import Visibility

/// The first line of a recorded visibility trace:
/// `{"format":"retention-trace","version":1,"time":"frames"}`.
///
/// `time` says how event lines are stamped: `"frames"` (an integer `"frame"` on every line) or
/// `"seconds"` (a number `"seconds"` on every line, mapped to frames at the scenario's rate).
/// An optional `"note"` string is for people (app, device, date) and is ignored.
public struct TraceHeader: Sendable, Hashable {
    /// The format name every trace's header carries.
    public static let formatName = "retention-trace"
    /// The only version this build reads.
    public static let currentVersion = 1

    /// How event lines are stamped.
    public enum TimeUnit: String, Sendable, Hashable, CaseIterable {
        /// `"frame": N`, an integer frame number.
        case frames
        /// `"seconds": T`, seconds since any origin.
        case seconds
    }

    /// How event lines are stamped.
    public var time: TimeUnit
    /// The free-text note, if any.
    public var note: String?

    /// A header. O(1).
    public init(time: TimeUnit, note: String? = nil) {
        self.time = time
        self.note = note
    }

    /// Reads a header line; throws a one-line reason (without the line number). A UTF-8 byte
    /// order mark before it is skipped (the first line of a file may carry one, as scenario files
    /// may); columns still count its 3 bytes. A key given twice is refused. O(line).
    public init(line bytes: UnsafeRawBufferPointer) throws(TraceError.Problem) {
        var format: String?, version: Int?, time: TimeUnit?, note: String?
        let bom = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
        do {
            var seen = 0
            try FlatJSONLine.parse(UnsafeRawBufferPointer(rebasing: bytes[bom...])) { key, value throws(FlatJSONLine.Failure) in
                let bit: Int
                switch key.text {
                case let text where text.equals("format"): bit = 1
                case let text where text.equals("version"): bit = 2
                case let text where text.equals("time"): bit = 4
                case let text where text.equals("note"): bit = 8
                default:
                    throw .init(column: 0, reason: "unknown header key \(JSONText.quoted(key.text.string)) (expected format, version, time, note)")
                }
                guard seen & bit == 0 else { throw .duplicate(key) }
                seen |= bit
                switch (bit, value) {
                case (1, .string(let text)): format = text.string
                case (2, .integer(let number)): version = number
                case (4, .string(let text)):
                    guard let unit = TimeUnit(rawValue: text.string) else {
                        throw .init(column: 0, reason: "\"time\" must be \"frames\" or \"seconds\", found \(JSONText.quoted(text.string))")
                    }
                    time = unit
                case (8, .string(let text)): note = text.string
                default:
                    throw .init(column: 0, reason: "\"\(key.text.string)\" has the wrong type (found \(value.summary))")
                }
            }
        } catch {
            throw .header(error.column > 0 ? "column \(error.column + bom): \(error.reason)" : error.reason)
        }
        guard format == Self.formatName else {
            throw .header("the first line must be a header {\"format\":\"\(Self.formatName)\",\"version\":\(Self.currentVersion),\"time\":\"frames\"}")
        }
        guard let version else { throw .header("the header has no \"version\"") }
        guard version == Self.currentVersion else {
            throw .header("version \(version) is not supported (this build reads version \(Self.currentVersion))")
        }
        guard let time else { throw .header("the header has no \"time\" (\"frames\" or \"seconds\")") }
        self.init(time: time, note: note)
    }

    /// The header as its JSON line. O(1).
    public var jsonLine: String {
        "{\"format\":\"\(Self.formatName)\",\"version\":\(Self.currentVersion),\"time\":\"\(time.rawValue)\""
            + (note.map { ",\"note\":\(JSONText.quoted($0))" } ?? "") + "}"
    }
}
