import SystemIO

/// Working memory a thumbnailer may keep from one thumbnail to the next on one thread: the
/// buffer a whole-image inflate takes (`DecodeOptions.thumbnailInflateBytes`).
///
/// Without one (`Thumbnailer.thumbnail(contentsOf:allocator:)`), each thumbnail maps its buffer
/// and unmaps it when done, so nothing stays behind, but every file's inflate faults in fresh
/// zeroed pages: on flat-colour images, whose inflate is cheap, that doubled a batch's CPU time.
/// With one (`thumbnail(contentsOf:allocator:reusing:)`), the buffer is kept mapped for the next
/// file: the pages are resident already. The buffer is mapped, never taken from malloc: from
/// malloc, glibc serves such blocks from its heap after the first is freed, and the heap then
/// kept up to twice the largest block resident (a batch of 2.5 MP RGBA files peaked 18 MB above
/// streaming for a 10 MB buffer).
///
/// Holds at most one buffer, the last one used (a file needing more unmaps it and maps a larger
/// one first, so the peak is the largest buffer, never two), until ``release()`` or deinit.
/// Not Sendable: one per thread (a batch worker keeps one for its files).
public final class ThumbnailScratch {
    private var kept: UnsafeMutablePointer<UInt8>?
    private var keptBytes = 0
    /// Whether buffers given back are kept for the next thumbnail (false: unmapped at once).
    private let keeps: Bool

    /// A scratch that keeps its buffer between thumbnails. O(1); maps nothing yet.
    public convenience init() {
        self.init(keeps: true)
    }

    /// A scratch that keeps its buffer (`keeps`) or unmaps each one when its thumbnail is done.
    init(keeps: Bool) {
        self.keeps = keeps
    }

    deinit {
        release()
    }

    /// Bytes of the buffer kept for the next thumbnail (0 when none). O(1).
    public var heldBytes: Int { kept == nil ? 0 : keptBytes }

    /// Unmaps the kept buffer, if any: its memory leaves the process at once. O(1) plus munmap.
    public func release() {
        if let kept { PageMapping.unmap(kept, keptBytes) }
        kept = nil
        keptBytes = 0
    }

    /// A buffer of at least `capacity` bytes and its mapped size (whole pages): the kept one
    /// when it is large enough, else a new mapping (the kept one unmapped first). Nil when the
    /// kernel refuses the mapping or `capacity` rounds past `Int.max`.
    func take(_ capacity: Int) -> (buffer: UnsafeMutablePointer<UInt8>, mappedBytes: Int)? {
        guard let wanted = PageMapping.roundUp(capacity) else { return nil }
        if let kept, keptBytes >= wanted {
            self.kept = nil
            return (kept, keptBytes)
        }
        release()
        guard let mapped = try? PageMapping.map(wanted) else { return nil }
        return (mapped.assumingMemoryBound(to: UInt8.self), wanted)
    }

    /// Takes back a buffer from ``take(_:)`` with its mapped size: kept for the next
    /// thumbnail, or unmapped.
    func giveBack(_ buffer: UnsafeMutablePointer<UInt8>, mappedBytes: Int) {
        if keeps && kept == nil {
            kept = buffer
            keptBytes = mappedBytes
        } else {
            PageMapping.unmap(buffer, mappedBytes)
        }
    }
}
