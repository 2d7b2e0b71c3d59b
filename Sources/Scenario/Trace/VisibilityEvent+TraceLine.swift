import StrictJSON
import Visibility

extension VisibilityEvent {
    /// The event as a trace line (`jsonLine`) with a row's `image` and `stateBytes` when given
    /// (a trace's `initialized`). O(1) plus the path.
    public func jsonLine(image: TraceImage?, stateBytes: Int?) -> String {
        var line = jsonLine
        guard image != nil || stateBytes != nil else { return line }
        line.removeLast()
        switch image {
        case .index(let index): line += ",\"image\":\(index)"
        case .path(let path): line += ",\"image\":" + JSONText.quoted(path)
        case nil: break
        }
        if let stateBytes { line += ",\"stateBytes\":\(stateBytes)" }
        return line + "}"
    }
}
