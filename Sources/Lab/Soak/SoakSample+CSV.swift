extension SoakSample {
    /// The CSV columns in order, each a name and how a sample writes its value: the header
    /// and every line come from this one list.
    public static let csvColumns: [(name: String, value: @Sendable (SoakSample) -> String)] = [
        ("iteration", { "\($0.iteration)" }), ("warmup", { "\($0.warmup)" }),
        ("elapsedSeconds", { "\(($0.elapsedSeconds * 1000).rounded() / 1000)" }),
        ("residentBytes", { "\($0.residentBytes)" }), ("anonymousBytes", { "\($0.anonymousBytes)" }),
        ("retainedBytes", { "\($0.retainedBytes)" }),
        ("logicalBytes", { "\($0.logicalBytes)" }), ("rowHeldBytes", { "\($0.rowHeldBytes)" }),
        ("evictableBytes", { "\($0.evictableBytes)" }), ("entries", { "\($0.entries)" }),
        ("heapInUseBytes", { "\($0.heapInUseBytes)" }), ("heapFreeHeldBytes", { "\($0.heapFreeHeldBytes)" }),
        ("decodes", { "\($0.decodes)" }), ("hitches", { "\($0.hitches)" }), ("rowsInList", { "\($0.rowsInList)" }),
        ("useSeconds", { "\(($0.useSeconds * 1000).rounded() / 1000)" }), ("rowStateBytes", { "\($0.rowStateBytes)" }),
        ("diskBytes", { "\($0.diskBytes)" }),
    ]

    /// The CSV header, from ``csvColumns``. O(columns).
    public static var csvHeader: String { CSV.line(csvColumns.map(\.name)) }

    /// This sample as a CSV line, from ``csvColumns`` (elapsed seconds to the millisecond). O(columns).
    public var csvLine: String { CSV.line(Self.csvColumns.map { $0.value(self) }) }
}
