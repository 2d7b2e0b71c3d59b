import SystemIO

/// Samples resident memory from `/proc/self/statm` through one file descriptor kept open.
///
/// Cheap enough to call every frame: one `pread` at offset 0 into a stack buffer and a parse
/// of about 40 bytes, no allocation (about 1 µs). The kernel regenerates
/// the text on each read from offset 0, so the same descriptor gives fresh figures every time.
///
/// Safe to share between threads: the descriptor never changes after `init`, and `pread`
/// reads at an explicit offset without moving the descriptor's file position, so no lock is
/// needed. The descriptor is closed when the instance is released.
public final class ResidentMemory: Sendable {
    /// The file sampled (``ProcPaths/statm`` unless a test points it elsewhere).
    public let path: String

    /// Bytes per page, used to convert the page counts of statm.
    public let pageSize: Int

    private let descriptor: FileDescriptor

    /// The longest statm line: seven 20-digit numbers and their separators fit easily.
    private static let bufferSize = 256

    /// Opens `path` for sampling.
    ///
    /// - Parameters:
    ///   - path: the statm file; ``ProcPaths/statm`` by default.
    ///   - pageSize: bytes per page; ``ProcessMemory/pageSize`` by default.
    /// - Throws: ``MemoryProbeError/io(_:)`` naming `path`.
    /// - Cost: one `open(2)`; the descriptor stays open for the instance's lifetime.
    public init(path: String = ProcPaths.statm, pageSize: Int = ProcessMemory.pageSize) throws(MemoryProbeError) {
        self.path = path
        self.pageSize = pageSize
        self.descriptor = try ProcFileReads.openForReading(path).get()
    }

    /// Reads all statm figures now.
    ///
    /// - Throws: ``MemoryProbeError/io(_:)`` or
    ///   ``MemoryProbeError/malformed(path:line:text:reason:)``, naming the file.
    /// - Cost: one `pread(2)` (about 1 µs), no allocation.
    public func sample() throws(MemoryProbeError) -> StatmSample {
        try withUnsafeTemporaryAllocation(byteCount: Self.bufferSize, alignment: 1) { buffer in
            ProcFileReads.readFromStart(descriptor, into: buffer).flatMap { count in
                guard count < Self.bufferSize else {
                    return .failure(.malformed(
                        path: path, line: 1, text: String(decoding: buffer, as: UTF8.self),
                        reason: "longer than \(Self.bufferSize) bytes"
                    ))
                }
                return ProcParser.statm(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), pageSize: pageSize, source: path)
            }
        }.get()
    }

    /// Resident bytes now (statm's second field × page size).
    ///
    /// - Throws: as ``sample()``.
    /// - Cost: as ``sample()``.
    public func residentBytes() throws(MemoryProbeError) -> Int {
        try sample().residentBytes
    }
}
