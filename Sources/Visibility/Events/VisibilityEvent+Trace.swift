import StrictJSON

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
