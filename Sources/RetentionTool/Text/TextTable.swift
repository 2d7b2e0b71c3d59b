/// A plain-text table: a header, a rule of dashes, then rows; the first column left-aligned,
/// the others right-aligned, columns two spaces apart. The one table layout every report uses.
public enum TextTable {
    /// The table as lines ending in newlines. Rows shorter than the header are padded with
    /// empty cells. O(cells).
    public static func render(header: [String], rows: [[String]]) -> String {
        let lines = [header] + rows.map { $0 + Array(repeating: "", count: max(0, header.count - $0.count)) }
        var widths = Array(repeating: 0, count: header.count)
        for line in lines { for (i, cell) in line.prefix(header.count).enumerated() { widths[i] = max(widths[i], cell.count) } }
        var text = ""
        for (n, line) in lines.enumerated() {
            let cells = line.prefix(header.count).enumerated().map { i, cell in
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                return i == 0 ? cell + pad : pad + cell
            }
            text += cells.joined(separator: "  ") + "\n"
            if n == 0 { text += widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n" }
        }
        return text
    }
}
