/// One thumbnail run: decoded rows → `AreaAccumulator` → (`Resampler`) → `RowWriter`.
///
/// Non-interlaced files are read in batches of rows (at most 128 KiB, at most 32 rows) and
/// each batch is consumed before the next is decoded: from libpng, or, with a whole-image
/// inflate allowed (`DecodeOptions.thumbnailInflateBytes`), from the fast path's buffer. Interlaced files are decoded whole into
/// one working buffer and then fed through the same stages. Everything the run allocates is
/// counted in a `WorkingMemory`, which frees it when the run ends.
struct ThumbnailPipeline {
    /// Upper bound on a batch of decoded source rows.
    static let batchBytes = 128 * 1024
    static let maxBatchRows = 32

    let reader: PNGReader
    let plan: ThumbnailGeometry
    let linearLight: Bool
    let quality: Thumbnailer.Quality

    /// Palette and gray rows come as one byte per pixel and are expanded through a table by the
    /// area stage, and opaque RGB rows as three bytes, where libpng would expand them to RGBA8
    /// first (false: always RGBA8; the tests compare the two).
    var compactRows = true

    /// Zero (fully transparent) samples at the ends of rows, and zero rows, are not filtered,
    /// since they filter to zero (false: every sample is; the tests compare the two).
    var skipsZeroSpans = true

    /// The source inflated whole by the fast path (`DecodeOptions.thumbnailInflateBytes`), when
    /// prepared: its rows replace libpng's, unless the fast path declines when it inflates.
    var whole: WholeImageRows?

    /// The source streamed by the fast path (a file over the whole-inflate allowance), when
    /// prepared: its rows replace libpng's, unless the fast path declines when it opens them.
    var stream: StreamedRows?

    /// Decodes and resamples; the reader's limits were checked by the caller. nil when the
    /// streamed rows were declined after the first were read: the reader is untouched, and
    /// the caller runs again without `stream`.
    func run(allocator: BitmapAllocator) throws(ImagingError) -> Thumbnail? {
        let memory = WorkingMemory()
        let bitmap = try Bitmap(uninitializedWidth: plan.x.output, height: plan.y.output, allocator: allocator)
        memory.count(external: bitmap.byteCount)

        let header = reader.header
        let hasAlpha = header.color_type & 4 != 0 || header.has_trns != 0
        var fromLinear: UnsafeMutablePointer<UInt8>?
        let source: AreaAccumulator.Source
        if linearLight {
            let tables = try LinearLight.tables(memory)
            fromLinear = tables.fromLinear
            source = .linear(tables.toLinear)
        } else {
            // A palette's table and its expanded rows must give the same sums (the tests compare
            // the two); other sources take the cheaper product.
            source = !hasAlpha ? .opaque : header.color_type == 3 ? .premultiplied : .premultipliedWeighted
        }
        var area = try AreaAccumulator(x: plan.x.area, y: plan.y.area, source: source, memory: memory)
        area.skipsZeroSpans = skipsZeroSpans
        var streamed = !reader.isInterlaced
        var pixelBytes = 4
        // Rows from the whole-image inflate, in the form libpng's would take (the same bytes).
        var inflated: WholeImageRows?
        var streaming: StreamedRows?
        if streamed, whole != nil || stream != nil {
            let type = header.color_type
            var bytes = 4
            if compactRows, type == 3 || (type == 0 && header.has_trns == 0) { bytes = 1 }
            else if compactRows, !linearLight, type == 2, header.has_trns == 0 { bytes = 3 }
            let rgba = bytes == 1 ? try memory.allocate(UInt8.self, count: 256 * 4) : nil
            var opened = false
            if let whole {
                memory.count(external: whole.capacity)
                if whole.open(pixelBytes: bytes, rgba: rgba) { inflated = whole; opened = true }
            } else if let stream {
                if stream.open(pixelBytes: bytes, rgba: rgba) { streaming = stream; opened = true }
                memory.count(external: stream.workingBytes)  // with the helper's ring, once started
            }
            if opened {
                pixelBytes = bytes
                if let rgba { try area.useIndexedRows(rgba: rgba, memory: memory) }
                else if bytes == 3 { area.useRGBRows() }
            }
        }
        if inflated == nil, streaming == nil, streamed, compactRows {
            let rgba = try memory.allocate(UInt8.self, count: 256 * 4)
            if try reader.startIndexed(rgba: rgba) {
                try area.useIndexedRows(rgba: rgba, memory: memory)
                pixelBytes = 1
            } else if !linearLight, try reader.startRGB() {
                area.useRGBRows()
                pixelBytes = 3
            }
        }
        if inflated == nil, streaming == nil, pixelBytes == 4 { try reader.start() }
        var resampler: Resampler?
        if plan.needsResampler {
            resampler = try Resampler(x: plan.x.resampleOrIdentity, y: plan.y.resampleOrIdentity,
                                      kernel: quality == .good ? .lanczos3 : .triangle, memory: memory)
        }
        var writer = RowWriter(bitmap: bitmap, fromLinear: fromLinear)

        // Hands one source row down the stages.
        func feed(_ pixels: UnsafePointer<UInt8>, _ y: Int) {
            area.push(pixels, row: y) { intermediate, nonzero in
                if resampler != nil {
                    resampler!.push(intermediate, nonzero: nonzero) { output, nonzero in writer.write(output, nonzero: nonzero) }
                } else {
                    writer.write(intermediate, nonzero: nonzero)
                }
            }
        }

        let width = reader.width, height = reader.height
        let stride = width * pixelBytes
        if streamed {
            let batch = max(1, min(Self.maxBatchRows, Self.batchBytes / stride))
            let rows = try memory.allocate(UInt8.self, count: batch * stride)
            var y = 0
            while y < height {
                let count = min(batch, height - y)
                if let inflated { try inflated.read(into: rows, bytesPerRow: stride, count: count) }
                else if let streaming {
                    guard streaming.read(into: rows, bytesPerRow: stride, count: count) else { return nil }
                } else { try reader.readRows(into: rows, bytesPerRow: stride, count: count) }
                for i in 0..<count { feed(rows + i * stride, y + i) }
                y += count
            }
            if let streaming, !streaming.finish() { return nil }
        } else {
            let image = try memory.allocate(UInt8.self, count: height * stride)
            try reader.readImage(into: image, bytesPerRow: stride)
            for y in 0..<height { feed(image + y * stride, y) }
        }
        precondition(area.isComplete && writer.rowsWritten == writer.height,
                     "thumbnail pipeline wrote \(writer.rowsWritten) of \(writer.height) rows")

        if inflated != nil { streamed = false }
        var stats = ThumbnailStats(
            sourceWidth: width, sourceHeight: height,
            intermediateWidth: plan.x.intermediate, intermediateHeight: plan.y.intermediate,
            streamed: streamed, peakWorkingBytes: memory.peakBytes
        )
        stats.streamedByFastPath = streaming != nil
        stats.inflatedOnHelperThread = streaming?.inflatesOnHelperThread ?? false
        stats.inflatedByISAL = streaming?.inflatesWithISAL ?? false
        return Thumbnail(bitmap: bitmap, stats: stats)
    }
}
