/// Row heights: one value for every row, or a list cycled over the rows.
public enum RowHeight: Sendable, Hashable {
    /// Every row has this height (points, positive).
    case fixed(Double)
    /// Row `i` has height `heights[i % heights.count]` (points, positive, non-empty).
    case cycled([Double])

    /// The repeating pattern of heights: one element for `.fixed`. O(1).
    public var pattern: [Double] {
        switch self {
        case .fixed(let height): [height]
        case .cycled(let heights): heights
        }
    }

    /// The height of row `row`. O(1).
    public func height(ofRow row: Int) -> Double {
        switch self {
        case .fixed(let height): height
        case .cycled(let heights): heights[row % heights.count]
        }
    }
}
