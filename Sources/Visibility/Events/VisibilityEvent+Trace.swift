extension VisibilityEvent {
    /// The trace line `<frame>\t<event>\t<row>`: the third column is the row, the appended count
    /// for `rowsAppended`, the name for `checkpoint`, and `-` otherwise. O(1) plus the name.
    public var traceLine: String {
        "\(frame)\t\(kind.name)\t\(traceArgument)"
    }

    /// The third trace column alone. O(1) plus the name.
    public var traceArgument: String {
        switch kind {
        case .rowsAppended(let count): String(count)
        case .checkpoint(let name): name
        default: kind.row.map { String($0) } ?? "-"
        }
    }

    /// The event as one JSON object on one line: `{"frame":0,"event":"appeared","row":3}`, with
    /// `"count"` for `rowsAppended`, `"name"` for `checkpoint`, and only frame and event otherwise.
    /// O(1) plus the name.
    public var jsonLine: String {
        let head = "{\"frame\":\(frame),\"event\":\"\(kind.name)\""
        switch kind {
        case .rowsAppended(let count): return head + ",\"count\":\(count)}"
        case .checkpoint(let name): return head + ",\"name\":\(JSONText.quoted(name))}"
        default:
            guard let row = kind.row else { return head + "}" }
            return head + ",\"row\":\(row)}"
        }
    }
}

/// Minimal JSON text helpers for the line formats of this module (no Foundation).
package enum JSONText {
    /// `text` as a JSON string literal, quotes included. O(length).
    package static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// A number as JSON text: integral values without a fraction (`3`, not `3.0`). O(1).
    package static func number(_ value: Double) -> String {
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 {
            return String(Int(value))
        }
        return String(value)
    }
}
