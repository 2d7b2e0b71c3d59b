/// The state at the end of one frame, handed to the end-of-frame callback.
///
/// A lab measures here: for example "placeholder frames" are the frames whose `visibleRows` include
/// a row without a ready image.
public struct FrameReport: Sendable, Hashable {
    /// The frame that just ended.
    public var frame: Int
    /// The scroll offset: the viewport covers `[offset, offset + viewport.height)`.
    public var offset: Double
    /// Rows intersecting the viewport itself (no prefetch buffer); empty while no container lives.
    public var visibleRows: Range<Int>
    /// Rows in the laid-out region: the viewport plus the prefetch buffer (every row for `vStack`).
    public var laidOutRows: Range<Int>
    /// Rows in the data source now (grows with `loadMore`).
    public var rowCount: Int
    /// Whether a container exists at the end of the frame.
    public var isContainerAlive: Bool

    /// Creates a report. O(1).
    public init(
        frame: Int, offset: Double, visibleRows: Range<Int>, laidOutRows: Range<Int>,
        rowCount: Int, isContainerAlive: Bool
    ) {
        self.frame = frame
        self.offset = offset
        self.visibleRows = visibleRows
        self.laidOutRows = laidOutRows
        self.rowCount = rowCount
        self.isContainerAlive = isContainerAlive
    }
}
