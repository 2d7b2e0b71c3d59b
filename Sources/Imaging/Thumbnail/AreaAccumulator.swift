import CPNG

/// The first, streaming stage: area-averages decoded rows, as they arrive, onto the
/// intermediate grid (or straight onto the output in `fast` quality).
///
/// Each output sample is the mean over the exact source rectangle it covers; source pixels
/// cut by the rectangle's edges count by the fraction inside. Vertical first: each source row
/// is added, with its weight, into the (at most two) accumulator rows of source width that it
/// overlaps (`rtn_thumb_accumulate_rgba8`: one conversion and a multiply-add per pixel and row,
/// two pixels per instruction with AVX2, no branch per pixel); when an intermediate row is
/// complete, one horizontal pass over it (`rtn_thumb_filter_row`, precomputed per-column spans
/// and weights) makes the intermediate row. So the horizontal taps cost once per intermediate
/// row, not once per source row. Palette and 8-bit gray rows can come as one byte per pixel
/// (`useIndexedRows`): they are then added through a 256-entry table of samples, without
/// libpng's expansion to RGBA8, to the same sums; RGB rows as three bytes (`useRGBRows`),
/// without libpng's added alpha byte, to the same sums. Zero samples (fully transparent
/// ones: half the rows of a clip-art image, and half of each other row in side margins) add
/// nothing and filter to zero. So the RGBA kernel reports each row's span between its
/// transparent ends, an accumulator row is cleared and added to over those spans only, each
/// completed row is narrowed to its exact nonzero span, only the outputs that span reaches are
/// filtered, and the rest are zero: the same output bytes, for a fraction of the work (the
/// tests compare the two). The span goes on with the row, so the next stages narrow their work
/// too. Memory: two accumulator rows of source width and two rows of intermediate width, plus
/// the tables.
struct AreaAccumulator {
    /// How decoded pixels become premultiplied samples.
    enum Source {
        /// Opaque, stored values: the bytes as they are.
        case opaque
        /// With alpha, stored values: color multiplied by alpha / 255 (the products a palette's
        /// table gives, so its rows read as indices sum to the same bits as expanded rows).
        case premultiplied
        /// As `premultiplied`, alpha × weight / 255 made first: a multiply fewer per pixel, for
        /// sources never read as indices (RGBA, gray with alpha, tRNS keys); differs by rounding.
        case premultipliedWeighted
        /// Linear light through this sRGB → linear table (256 entries), then premultiplied.
        case linear(UnsafeMutablePointer<Float>)
    }

    private let columns: FilterTable
    private let identityColumns: Bool
    private var vertical: VerticalAccumulator
    private var pixels: rtn_thumb_pixels
    /// Bytes a source pixel takes: 4 (RGBA8), 3 after `useRGBRows`, 1 after `useIndexedRows`.
    private var pixelBytes = 4
    private let toLinear: UnsafePointer<Float>?
    private let row: UnsafeMutablePointer<Float>
    /// An intermediate row of zeros, never written: what a zero row is handed on as.
    private let zeroRow: UnsafeMutablePointer<Float>
    /// Source columns some tap reads: the rest of a row (a crop) is never converted.
    private let span: Range<Int>
    /// The samples each byte value stands for, once `useIndexedRows` was called.
    private var table: UnsafeMutablePointer<Float>?
    /// False: every row is handed on as nonzero throughout, so every stage filters all of it,
    /// and a stored row clears all of its accumulator row outside its own span.
    var skipsZeroSpans = true {
        didSet { vertical.tellsSpans = skipsZeroSpans }
    }

    /// An accumulator from `x` and `y` (source → intermediate) reading pixels as `source`.
    init(x: AxisMap, y: AxisMap, source: Source, memory: WorkingMemory) throws(ImagingError) {
        columns = try FilterTable(x, kernel: .area, padded: true, memory: memory)
        identityColumns = x.isIdentity
        let rows = try FilterTable(y, kernel: .area, memory: memory)
        vertical = try VerticalAccumulator(table: rows, width: x.inputSize, memory: memory)
        row = try memory.allocate(Float.self, count: 4 * x.outputSize)
        zeroRow = try memory.allocate(Float.self, count: 4 * x.outputSize)
        let last = x.outputSize - 1
        span = Int(columns.first[0]) ..< Int(columns.first[last] + columns.count[last])
        switch source {
        case .opaque: (pixels, toLinear) = (RTN_THUMB_OPAQUE, nil)
        case .premultiplied: (pixels, toLinear) = (RTN_THUMB_PREMULTIPLY, nil)
        case .premultipliedWeighted: (pixels, toLinear) = (RTN_THUMB_PREMULTIPLY_WEIGHTED, nil)
        case .linear(let table): (pixels, toLinear) = (RTN_THUMB_LINEAR, UnsafePointer(table))
        }
    }

    /// From now on rows are one byte per pixel, byte value `v` standing for the RGBA8 pixel
    /// `rgba[4v..<4v+4]` (256 entries). The table is made by the RGBA8 kernel itself, so the
    /// sums are the same bits as for the expanded rows. 4 KiB; O(256).
    mutating func useIndexedRows(rgba: UnsafePointer<UInt8>, memory: WorkingMemory) throws(ImagingError) {
        let samples = try memory.allocate(Float.self, count: 256 * 4)
        var target = rtn_thumb_target()  // stored (fresh), sample × 1 is the sample
        (target.acc, target.weight, target.fresh) = (samples, 1, 1)
        rtn_thumb_accumulate_rgba8(&target, rgba, 256, pixels, toLinear)
        table = samples
        pixelBytes = 1
    }

    /// From now on rows are RGB8, three bytes a pixel, for an opaque source read as stored
    /// values: the same samples as the RGBA8 rows libpng would make by adding alpha 255.
    mutating func useRGBRows() {
        precondition(pixels == RTN_THUMB_OPAQUE, "RGB rows are for opaque sources in stored values")
        pixels = RTN_THUMB_RGB
        pixelBytes = 3
    }

    /// True once every intermediate row has been handed on.
    var isComplete: Bool { vertical.nextOutput == vertical.table.outputSize }

    /// Adds source row `y` (RGBA8, RGB8 after `useRGBRows`, one byte per pixel after
    /// `useIndexedRows`; rows in order)
    /// and hands completed intermediate rows (4 floats per sample) to `emit`, each with the span
    /// of samples outside which it is zero (empty for a zero row). Rows outside the source
    /// window (a crop) cost nothing. A completed row costs a scan from each end of the span its
    /// input rows reported (the kernel finds each row's transparent ends as it reads it) up to
    /// its first nonzero sample, before its filter pass.
    mutating func push(_ source: UnsafePointer<UInt8>, row y: Int, emit: (UnsafePointer<Float>, _ nonzero: Range<Int>) -> Void) {
        guard vertical.needs(y) else { return }
        let (start, count, kind, toLinear, table, bytes) = (span.lowerBound, span.count, pixels, self.toLinear, self.table, pixelBytes)
        let (columns, identity, row, zeroRow, scans) = (columns, identityColumns, self.row, self.zeroRow, skipsZeroSpans)
        vertical.push(inputRow: y, add: { target in
            var window = target  // the source window's columns only; spans are counted in them
            window.acc += 4 * start
            window.next = window.next.map { $0 + 4 * start }
            if let table {
                rtn_thumb_accumulate_indexed(&window, source + start, count, table)
            } else {
                rtn_thumb_accumulate_rgba8(&window, source + bytes * start, count, kind, toLinear)
            }
            (target.row_lo, target.row_hi) = (window.row_lo, window.row_hi)
        }, emit: { acc, written in
            // `written`: the window's samples outside which the row is zero, as its input rows
            // reported; the exact nonzero span lies inside it. Without skipping, every sample.
            var handed = start ..< start + count
            if scans {
                var first = 0, end = 0
                if !written.isEmpty { rtn_thumb_nonzero_span(acc + 4 * (start + written.lowerBound), written.count, &first, &end) }
                handed = first < end ? start + written.lowerBound + first ..< start + written.lowerBound + end : 0..<0
            }
            if identity { return emit(acc, handed) }
            if handed.isEmpty { return emit(zeroRow, handed) }
            let outputs = columns.outputs(reaching: handed)
            columns.filter(acc, outputs: outputs, into: row)
            emit(row, outputs)
        })
    }
}
