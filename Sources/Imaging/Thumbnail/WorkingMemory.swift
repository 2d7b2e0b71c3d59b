import Glibc

/// The buffers one thumbnail run holds, counted so the run can report its peak.
///
/// Every block is zero-filled (`calloc`) and lives until the run ends (deinit), so the live
/// total only grows and the peak is the sum of everything taken plus the output bitmap,
/// which is counted with `count(external:)`. libpng's own state is not included.
/// Not Sendable: one run, one thread.
final class WorkingMemory {
    private var blocks: [UnsafeMutableRawPointer] = []
    /// Bytes held now (blocks plus external bytes counted).
    private(set) var liveBytes = 0
    /// The most bytes held at once.
    private(set) var peakBytes = 0

    init() {}

    deinit {
        for block in blocks { free(block) }
    }

    /// `count` zeroed values of `T`, aligned for `T` (malloc gives 16 bytes). Throws `.outOfMemory` when the size overflows or calloc fails.
    func allocate<T>(_ type: T.Type, count: Int) throws(ImagingError) -> UnsafeMutablePointer<T> {
        let size = count.multipliedReportingOverflow(by: MemoryLayout<T>.stride)
        guard !size.overflow, count >= 0 else { throw .outOfMemory(bytes: Int.max) }
        guard let raw = calloc(max(size.partialValue, 1), 1) else { throw .outOfMemory(bytes: size.partialValue) }
        blocks.append(raw)
        self.count(external: size.partialValue)
        return raw.bindMemory(to: T.self, capacity: count)
    }

    /// Counts `bytes` held elsewhere (the output bitmap) as part of this run.
    func count(external bytes: Int) {
        liveBytes += bytes
        peakBytes = max(peakBytes, liveBytes)
    }
}
