import CPNG

/// The second stage in `good` quality (and for enlarging): a separable Lanczos-3 or
/// triangle filter from the intermediate grid to the exact output size, fed row by row.
///
/// Input rows are premultiplied samples (4 floats) from `AreaAccumulator`; each is filtered
/// horizontally once (`rtn_thumb_filter_row`) straight into the vertical window's slot, and
/// each output row is made from the window's rows once its last input has arrived
/// (`VerticalWindow`). At 2:1 Lanczos-3 that is 12 taps per sample in each direction and 12
/// rows of output width, so memory stays a few rows whatever the image height.
struct Resampler {
    private let columns: FilterTable
    private var vertical: VerticalWindow
    private var nextInputRow = 0

    /// A resampler from `x` and `y` (intermediate → output) with `kernel`. An identity map
    /// on one axis passes that axis through.
    init(x: AxisMap, y: AxisMap, kernel: FilterTable.Kernel, memory: WorkingMemory) throws(ImagingError) {
        columns = try FilterTable(x, kernel: kernel, padded: true, memory: memory)
        let rows = try FilterTable(y, kernel: kernel, memory: memory)
        vertical = try VerticalWindow(table: rows, width: x.outputSize, memory: memory)
    }

    /// Adds the next intermediate row, zero outside `nonzero` (only the outputs that span reaches
    /// are filtered), and hands completed output rows to `emit`, each with its own such span.
    mutating func push(_ input: UnsafePointer<Float>, nonzero: Range<Int>, emit: (UnsafePointer<Float>, _ nonzero: Range<Int>) -> Void) {
        let y = nextInputRow
        nextInputRow += 1
        guard vertical.needs(y) else { return }
        let outputs = nonzero.isEmpty ? 0..<0 : columns.outputs(reaching: nonzero)
        columns.filter(input, outputs: outputs, into: vertical.slot(for: y))
        vertical.arrived(y, nonzero: outputs, emit: emit)
    }
}
