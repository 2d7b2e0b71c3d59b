import CPNG

/// The second stage in `good` quality (and for enlarging): a separable Lanczos-3 or
/// triangle filter from the intermediate grid to the exact output size, fed row by row.
///
/// Input rows are premultiplied samples (4 floats) from `AreaAccumulator`; each is filtered
/// horizontally once (`rtn_thumb_filter_row`), then added to the open output rows
/// (`VerticalAccumulator`). At 2:1 Lanczos-3 that is 12–13 taps per sample in each direction
/// and about 7 open rows of output width, so memory stays a few rows whatever the image height.
struct Resampler {
    private let columns: FilterTable
    private var vertical: VerticalAccumulator
    private let row: UnsafeMutablePointer<Float>
    private var nextInputRow = 0

    /// A resampler from `x` and `y` (intermediate → output) with `kernel`. An identity map
    /// on one axis passes that axis through.
    init(x: AxisMap, y: AxisMap, kernel: FilterTable.Kernel, memory: WorkingMemory) throws(ImagingError) {
        columns = try FilterTable(x, kernel: kernel, padded: true, memory: memory)
        let rows = try FilterTable(y, kernel: kernel, memory: memory)
        vertical = try VerticalAccumulator(table: rows, width: x.outputSize, memory: memory)
        row = try memory.allocate(Float.self, count: 4 * x.outputSize)
    }

    /// Adds the next intermediate row and hands completed output rows to `emit`.
    mutating func push(_ input: UnsafePointer<Float>, emit: (UnsafePointer<Float>) -> Void) {
        let y = nextInputRow
        nextInputRow += 1
        guard vertical.needs(y) else { return }
        rtn_thumb_filter_row(input, columns.taps, row)
        vertical.push(row, inputRow: y, emit: emit)
    }
}
