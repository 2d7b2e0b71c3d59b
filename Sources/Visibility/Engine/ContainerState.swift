/// What one live container holds: its built rows, its appeared rows, and its open destination.
///
/// Created with the container and dropped when it is destroyed, which is how "row state outlives
/// disappear until the container is destroyed" (seeds 000 and 001) is modelled.
struct ContainerState: Sendable {
    /// Rows initialized in this container (kept until it is destroyed). rowCount / 8 bytes.
    var built: RowBitset
    /// Rows appeared and not yet disappeared.
    var appeared = RowIntervalSet()
    /// Lines intersecting the viewport at the end of the last layout pass.
    var visibleLines: Range<Int> = 0..<0
    /// Rows of the laid-out region at the end of the last layout pass.
    var laidOutRows: Range<Int> = 0..<0
    /// The row whose lazy destination is open (seed 003), if any.
    var openDestination: Int?

    /// A container with nothing built yet, with room for `rowCount` rows. O(rowCount / 64).
    init(rowCount: Int) {
        built = RowBitset(capacity: rowCount)
    }
}
