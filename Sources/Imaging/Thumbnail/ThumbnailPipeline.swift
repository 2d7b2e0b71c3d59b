/// One thumbnail run: decoded rows → `AreaAccumulator` → (`Resampler`) → `RowWriter`.
///
/// Non-interlaced files are read in batches of rows (at most 128 KiB, at most 32 rows) and
/// each batch is consumed before the next is decoded. Interlaced files are decoded whole into
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

    /// Decodes and resamples; the reader's limits were checked by the caller.
    func run(allocator: BitmapAllocator) throws(ImagingError) -> Thumbnail {
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
        let streamed = !reader.isInterlaced
        var pixelBytes = 4
        if streamed, compactRows {
            let rgba = try memory.allocate(UInt8.self, count: 256 * 4)
            if try reader.startIndexed(rgba: rgba) {
                try area.useIndexedRows(rgba: rgba, memory: memory)
                pixelBytes = 1
            } else if !linearLight, try reader.startRGB() {
                area.useRGBRows()
                pixelBytes = 3
            }
        }
        if pixelBytes == 4 { try reader.start() }
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
                try reader.readRows(into: rows, bytesPerRow: stride, count: count)
                for i in 0..<count { feed(rows + i * stride, y + i) }
                y += count
            }
        } else {
            let image = try memory.allocate(UInt8.self, count: height * stride)
            try reader.readImage(into: image, bytesPerRow: stride)
            for y in 0..<height { feed(image + y * stride, y) }
        }
        precondition(area.isComplete && writer.rowsWritten == writer.height,
                     "thumbnail pipeline wrote \(writer.rowsWritten) of \(writer.height) rows")

        let stats = ThumbnailStats(
            sourceWidth: width, sourceHeight: height,
            intermediateWidth: plan.x.intermediate, intermediateHeight: plan.y.intermediate,
            streamed: streamed, peakWorkingBytes: memory.peakBytes
        )
        return Thumbnail(bitmap: bitmap, stats: stats)
    }
}
