/// Comma-separated values as RFC 4180 writes them: a field holding a comma, a quote, a line
/// break or edge spaces is quoted, with quotes doubled, so any strategy name or failure text
/// stays in its column.
public enum CSV {
    /// `text` as one field, quoted only when it must be. O(length).
    public static func field(_ text: String) -> String {
        let needsQuotes = text.contains { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }
            || text.first == " " || text.last == " "
        guard needsQuotes else { return text }
        return "\"" + text.replacing("\"", with: "\"\"") + "\""
    }

    /// One record: the fields, each quoted as needed, joined by commas (no line break). O(total length).
    public static func line(_ fields: [String]) -> String {
        fields.map(field).joined(separator: ",")
    }

    /// One record of `columns`, taking each column's value from `values` (empty when absent),
    /// so a header and its rows cannot drift apart. O(columns).
    public static func line(columns: [String], values: [String: String]) -> String {
        line(columns.map { values[$0] ?? "" })
    }
}
