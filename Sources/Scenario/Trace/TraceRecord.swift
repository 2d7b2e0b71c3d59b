import StrictJSON
#if canImport(Glibc)
import Glibc
#endif
import SystemIO
import Visibility

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

    /// Reads an event line stamped as `unit` says; throws a one-line reason. A key given twice
    /// is refused (`column N: duplicate key "row"`), as in scenario files. O(line); a line
    /// whose strings have no escapes allocates nothing but the `name` and `image` strings.
    public init(line bytes: UnsafeRawBufferPointer, unit: TraceHeader.TimeUnit) throws(TraceError.Problem) {
        var time: Double?, event: TraceEventName?, row: Int?, count: Int?, name: String?
        var from: Int?, to: Int?, image: TraceImage?, stateBytes: Int?
        let timeKey = unit == .frames ? "frame" : "seconds"
        func bad(_ key: FlatJSONLine.Key, _ expected: String, _ value: FlatJSONLine.Value) -> FlatJSONLine.Failure {
            .init(column: 0, reason: "\"\(key.text.string)\": expected \(expected), found \(value.summary)")
        }
        do {
            var seen: Key = []
            try FlatJSONLine.parse(bytes) { key, value throws(FlatJSONLine.Failure) in
                let which = Key(key.text)
                if !which.isEmpty {
                    guard seen.isDisjoint(with: which) else { throw .duplicate(key) }
                    seen.formUnion(which)
                }
                switch which {
                case .frame where unit == .frames:
                    guard case .integer(let frame) = value, (0...1_000_000_000_000).contains(frame) else {
                        throw bad(key, "a frame number (an integer from 0 to 1e12)", value)
                    }
                    time = Double(frame)
                case .seconds where unit == .seconds:
                    guard let seconds = value.numberValue, seconds >= 0, seconds < 1e11 else { throw bad(key, "seconds (a number from 0 to 1e11)", value) }
                    time = seconds
                case .event:
                    guard case .string(let text) = value else { throw bad(key, "an event name", value) }
                    guard let known = try text.withUTF8({ TraceEventName(utf8: $0) }) else {
                        throw .init(column: 0, reason: "unknown event \(JSONText.quoted(text.string)) (expected one of \(TraceEventName.allCases.map(\.rawValue).joined(separator: ", ")))")
                    }
                    event = known
                case .row:
                    switch value {
                    case .integer(let id) where id >= 0: row = id
                    case .string(let text) where text.utf8Count > 0: row = try text.withUTF8 { Self.rowID(forUTF8: $0) }
                    default: throw bad(key, "a row id (an integer, 0 or more, or a non-empty string)", value)
                    }
                case .count:
                    guard case .integer(let number) = value, number >= 0, number <= RowsConfiguration.maximumCount else {
                        throw bad(key, "a count (an integer, 0 to \(RowsConfiguration.maximumCount))", value)
                    }
                    count = number
                case .name:
                    guard case .string(let text) = value, case let string = text.string,
                          !string.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                        throw bad(key, "a name without control characters", value)
                    }
                    name = string
                case .from, .to:
                    guard case .integer(let number) = value, number >= 0 else { throw bad(key, "a row number (an integer, 0 or more)", value) }
                    if which == .from { from = number } else { to = number }
                case .image:
                    switch value {
                    case .integer(let index) where index >= 0: image = .index(index)
                    case .string(let path) where path.utf8Count > 0: image = .path(path.string)
                    default: throw bad(key, "an image index (an integer, 0 or more) or a path", value)
                    }
                case .stateBytes:
                    guard case .integer(let bytes) = value, (0...Self.maximumStateBytes).contains(bytes) else {
                        throw bad(key, "a byte count from 0 to \(Self.maximumStateBytes)", value)
                    }
                    stateBytes = bytes
                case .frame, .seconds:
                    throw .init(column: 0, reason: "\"\(key.text.string)\" in a trace whose header says \"time\":\"\(unit.rawValue)\" (use \"\(timeKey)\")")
                default:
                    throw .init(column: 0, reason: "unknown key \(JSONText.quoted(key.text.string)) (expected \(timeKey), event, row, count, name, from, to, image, stateBytes)")
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
        var text = text
        return text.withUTF8 { rowID(forUTF8: UnsafeRawBufferPointer($0)) }
    }

    /// `rowID(forString:)` over a string's UTF-8 bytes. O(length).
    static func rowID(forUTF8 bytes: UnsafeRawBufferPointer) -> Int {
        Int(StableHash.fnv1a64(bytes) >> 2)
    }

    /// The keys an event line may hold, one bit each, so a key given twice is seen with one test.
    private struct Key: OptionSet {
        let rawValue: Int
        static let frame = Key(rawValue: 1 << 0)
        static let seconds = Key(rawValue: 1 << 1)
        static let event = Key(rawValue: 1 << 2)
        static let row = Key(rawValue: 1 << 3)
        static let count = Key(rawValue: 1 << 4)
        static let name = Key(rawValue: 1 << 5)
        static let from = Key(rawValue: 1 << 6)
        static let to = Key(rawValue: 1 << 7)
        static let image = Key(rawValue: 1 << 8)
        static let stateBytes = Key(rawValue: 1 << 9)

        init(rawValue: Int) { self.rawValue = rawValue }

        /// The key `text` names; empty for an unknown key. O(length), no allocation.
        init(_ text: FlatJSONLine.Text) {
            switch text.utf8Count {
            case 2 where text.equals("to"): self = .to
            case 3 where text.equals("row"): self = .row
            case 4 where text.equals("name"): self = .name
            case 4 where text.equals("from"): self = .from
            case 5 where text.equals("frame"): self = .frame
            case 5 where text.equals("event"): self = .event
            case 5 where text.equals("count"): self = .count
            case 5 where text.equals("image"): self = .image
            case 7 where text.equals("seconds"): self = .seconds
            case 10 where text.equals("stateBytes"): self = .stateBytes
            default: self = []
            }
        }
    }
}

extension TraceEventName {
    /// Each name's UTF-8 bytes, read once.
    private static let table: [(utf8: [UInt8], name: TraceEventName)] = allCases.map { (Array($0.rawValue.utf8), $0) }

    /// The event whose name is `utf8`; nil for an unknown name. O(names) byte comparisons of
    /// equal length, no allocation.
    init?(utf8: UnsafeRawBufferPointer) {
        for entry in Self.table where entry.utf8.count == utf8.count {
            if entry.utf8.withUnsafeBytes({ memcmp($0.baseAddress!, utf8.baseAddress!, utf8.count) }) == 0 {
                self = entry.name
                return
            }
        }
        return nil
    }
}

extension FrameReport {
    /// The trace line that declares this frame's on-screen rows:
    /// `{"frame":F,"event":"visibleRows","from":A,"to":B}`. O(1).
    public var visibleRowsTraceLine: String {
        "{\"frame\":\(frame),\"event\":\"visibleRows\",\"from\":\(visibleRows.lowerBound),\"to\":\(visibleRows.upperBound)}"
    }
}
