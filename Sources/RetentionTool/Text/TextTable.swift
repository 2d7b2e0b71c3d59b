/// A plain-text table: a header, a rule of dashes, then rows; the first column left-aligned
/// (or the first few: text), the others right-aligned (numbers), columns two spaces apart. The
/// one table layout every report uses.
package enum TextTable {
    /// The table as lines ending in newlines. Rows shorter than the header are padded with
    /// empty cells. The first `leftAligned` columns are left-aligned, the rest right-aligned;
    /// a left-aligned last column is not padded, so no line ends in spaces. O(cells).
    package static func render(header: [String], rows: [[String]], leftAligned: Int = 1) -> String {
        let lines = [header] + rows.map { $0 + Array(repeating: "", count: max(0, header.count - $0.count)) }
        var widths = Array(repeating: 0, count: header.count)
        for line in lines { for (i, cell) in line.prefix(header.count).enumerated() { widths[i] = max(widths[i], cell.count) } }
        var text = ""
        for (n, line) in lines.enumerated() {
            let cells = line.prefix(header.count).enumerated().map { i, cell in
                guard i < leftAligned else { return String(repeating: " ", count: widths[i] - cell.count) + cell }
                return i == header.count - 1 ? cell : cell + String(repeating: " ", count: widths[i] - cell.count)
            }
            text += cells.joined(separator: "  ") + "\n"
            if n == 0 { text += widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n" }
        }
        return text
    }
}
