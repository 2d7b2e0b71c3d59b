import StrictJSON
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

    /// Reads a header line; throws a one-line reason (without the line number). O(line).
    public init(line bytes: UnsafeRawBufferPointer) throws(TraceError.Problem) {
        var format: String?, version: Int?, time: TimeUnit?, note: String?
        do {
            try FlatJSONLine.parse(bytes) { key, value throws(FlatJSONLine.Failure) in
                switch (key, value) {
                case ("format", .string(let text)): format = text
                case ("version", .integer(let number)): version = number
                case ("time", .string(let text)):
                    guard let unit = TimeUnit(rawValue: text) else {
                        throw .init(column: 0, reason: "\"time\" must be \"frames\" or \"seconds\", found \(JSONText.quoted(text))")
                    }
                    time = unit
                case ("note", .string(let text)): note = text
                case ("format", _), ("version", _), ("time", _), ("note", _):
                    throw .init(column: 0, reason: "\"\(key)\" has the wrong type (found \(value.summary))")
                default:
                    throw .init(column: 0, reason: "unknown header key \(JSONText.quoted(key)) (expected format, version, time, note)")
                }
            }
        } catch {
            throw .header(error.column > 0 ? "column \(error.column): \(error.reason)" : error.reason)
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

/// What one trace line says happened.
public enum TraceEventName: String, Sendable, Hashable, CaseIterable {
    /// The list's container was created.
    case containerCreated
    /// A row's view and state were built (`row`; optionally `image` and `stateBytes`).
    case initialized
    /// A row appeared (`row`).
    case appeared
    /// A row disappeared (`row`).
    case disappeared
    /// A row's view and state were freed (`row`).
    case released
    /// The container was destroyed; rows still built are released with it.
    case containerDestroyed
    /// The system's memory warning.
    case memoryWarning
    /// The user opened row `row`'s destination (a pushed detail view).
    case navigate
    /// The user went back from the last destination opened.
    case back
    /// A destination was built without navigation (an eager NavigationLink) (`row`).
    case destinationInitialized
    /// A destination was freed (`row`).
    case destinationReleased
    /// `count` rows were appended to the data source.
    case rowsAppended
    /// A measurement point named `name`, taken at the end of its frame.
    case checkpoint
    /// From this frame on, rows `from..<to` are on screen (placeholders are counted there);
    /// without any such line, every appeared row counts as on screen.
    case visibleRows
}

/// Which image a row shows, when the trace says.
public enum TraceImage: Sendable, Hashable {
    /// An index into the scenario's images (sorted by name).
    case index(Int)
    /// A file, relative to the trace's folder unless absolute.
    case path(String)
}

/// One event line of a trace, read but not yet checked against the lifecycle rules.
public struct TraceRecord: Sendable, Hashable {
    /// The stamp: a frame number, or seconds, as the header declares.
    public var time: Double
    /// What happened.
    public var event: TraceEventName
    /// The row: an integer id as given, or a string id turned into a stable integer
    /// (``TraceRecord/rowID(forString:)``).
    public var row: Int?
    /// `rowsAppended`'s count.
    public var count: Int?
    /// `checkpoint`'s name.
    public var name: String?
    /// `visibleRows`'s range.
    public var visible: Range<Int>?
    /// The row's image, if given.
    public var image: TraceImage?
    /// The row's state bytes, if given (else the scenario's `rows.stateBytes`).
    public var stateBytes: Int?

    /// A record. O(1).
    public init(time: Double, event: TraceEventName, row: Int? = nil, count: Int? = nil, name: String? = nil,
                visible: Range<Int>? = nil, image: TraceImage? = nil, stateBytes: Int? = nil) {
        self.time = time
        self.event = event
        self.row = row
        self.count = count
        self.name = name
        self.visible = visible
        self.image = image
        self.stateBytes = stateBytes
    }

    /// The most state bytes one trace row may declare: 64 MiB, as in scenario files.
    public static let maximumStateBytes = RowsConfiguration.maximumStateBytes

    /// Reads an event line stamped as `unit` says; throws a one-line reason. O(line).
    public init(line bytes: UnsafeRawBufferPointer, unit: TraceHeader.TimeUnit) throws(TraceError.Problem) {
        var time: Double?, event: TraceEventName?, row: Int?, count: Int?, name: String?
        var from: Int?, to: Int?, image: TraceImage?, stateBytes: Int?
        let timeKey = unit == .frames ? "frame" : "seconds"
        func bad(_ key: String, _ expected: String, _ value: FlatJSONLine.Value) -> FlatJSONLine.Failure {
            .init(column: 0, reason: "\"\(key)\": expected \(expected), found \(value.summary)")
        }
        do {
            try FlatJSONLine.parse(bytes) { key, value throws(FlatJSONLine.Failure) in
                switch key {
                case timeKey:
                    if unit == .frames {
                        guard case .integer(let frame) = value, (0...1_000_000_000_000).contains(frame) else {
                            throw bad(key, "a frame number (an integer from 0 to 1e12)", value)
                        }
                        time = Double(frame)
                    } else {
                        guard let seconds = value.numberValue, seconds >= 0, seconds < 1e11 else { throw bad(key, "seconds (a number from 0 to 1e11)", value) }
                        time = seconds
                    }
                case "event":
                    guard case .string(let text) = value else { throw bad(key, "an event name", value) }
                    guard let known = TraceEventName(rawValue: text) else {
                        throw .init(column: 0, reason: "unknown event \(JSONText.quoted(text)) (expected one of \(TraceEventName.allCases.map(\.rawValue).joined(separator: ", ")))")
                    }
                    event = known
                case "row":
                    switch value {
                    case .integer(let id) where id >= 0: row = id
                    case .string(let text) where !text.isEmpty: row = Self.rowID(forString: text)
                    default: throw bad(key, "a row id (an integer, 0 or more, or a non-empty string)", value)
                    }
                case "count":
                    guard case .integer(let number) = value, number >= 0 else { throw bad(key, "a count (an integer, 0 or more)", value) }
                    count = number
                case "name":
                    guard case .string(let text) = value, !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                        throw bad(key, "a name without control characters", value)
                    }
                    name = text
                case "from", "to":
                    guard case .integer(let number) = value, number >= 0 else { throw bad(key, "a row number (an integer, 0 or more)", value) }
                    if key == "from" { from = number } else { to = number }
                case "image":
                    switch value {
                    case .integer(let index) where index >= 0: image = .index(index)
                    case .string(let path) where !path.isEmpty: image = .path(path)
                    default: throw bad(key, "an image index (an integer, 0 or more) or a path", value)
                    }
                case "stateBytes":
                    guard case .integer(let bytes) = value, (0...Self.maximumStateBytes).contains(bytes) else {
                        throw bad(key, "a byte count from 0 to \(Self.maximumStateBytes)", value)
                    }
                    stateBytes = bytes
                case "frame", "seconds":
                    throw .init(column: 0, reason: "\"\(key)\" in a trace whose header says \"time\":\"\(unit.rawValue)\" (use \"\(timeKey)\")")
                default:
                    throw .init(column: 0, reason: "unknown key \(JSONText.quoted(key)) (expected \(timeKey), event, row, count, name, from, to, image, stateBytes)")
                }
            }
        } catch {
            throw .malformed(error.column > 0 ? "column \(error.column): \(error.reason)" : error.reason)
        }
        guard let event else { throw .malformed("the line has no \"event\"") }
        guard let time else { throw .malformed("the line has no \"\(timeKey)\"") }
        switch event {
        case .initialized, .appeared, .disappeared, .released, .navigate, .destinationInitialized, .destinationReleased:
            guard row != nil else { throw .malformed("\(event.rawValue) needs a \"row\"") }
        case .rowsAppended:
            guard count != nil else { throw .malformed("rowsAppended needs a \"count\"") }
        case .checkpoint:
            guard name != nil else { throw .malformed("checkpoint needs a \"name\"") }
        case .visibleRows:
            guard let from, let to, from <= to else { throw .malformed("visibleRows needs \"from\" and \"to\" with from <= to") }
        case .containerCreated, .containerDestroyed, .memoryWarning, .back:
            break
        }
        self.init(time: time, event: event, row: row, count: count, name: name,
                  visible: from.flatMap { from in to.map { from..<$0 } }, image: image, stateBytes: stateBytes)
    }

    /// The integer a string row id stands for: FNV-1a over its UTF-8 bytes, kept to 62 bits.
    /// Stable across runs and machines, so a row keeps its cache key; two different ids collide
    /// with probability about 2⁻⁶² per pair. O(length).
    public static func rowID(forString text: String) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return Int(hash >> 2)
    }
}

extension FrameReport {
    /// The trace line that declares this frame's on-screen rows:
    /// `{"frame":F,"event":"visibleRows","from":A,"to":B}`. O(1).
    public var visibleRowsTraceLine: String {
        "{\"frame\":\(frame),\"event\":\"visibleRows\",\"from\":\(visibleRows.lowerBound),\"to\":\(visibleRows.upperBound)}"
    }
}
