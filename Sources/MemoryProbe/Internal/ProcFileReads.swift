internal import Glibc
import SystemIO
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Every file call MemoryProbe makes passes through here, onto SystemIO's owned descriptors,
/// returning `Result` so the public `throws` functions stay small and every failure carries
/// the path and the reason.
enum ProcFileReads {
    /// The most a `/proc` file read accepts (a status file is ~1.5 KB, smaps_rollup ~1 KB).
    static let procFileLimit = 1 << 20
    /// The cap for `smaps`, about 1 KB per mapping: 64 MiB.
    static let smapsLimit = 64 << 20

    /// Opens `path` read-only and close-on-exec (so children spawned by the lab do not inherit
    /// it), refusing anything but a regular file.
    static func openForReading(_ path: String) -> Result<FileDescriptor, MemoryProbeError> {
        do { return .success(try FileDescriptor.openRegularFile(path)) } catch { return .failure(.io(error)) }
    }

    /// Reads the whole of `path` (a `/proc` file is generated as it is read, so its size is
    /// unknown until `read` returns 0). Cost: one open, two or more reads, one close.
    static func readAll(_ path: String, limit: Int = procFileLimit) -> Result<Data, MemoryProbeError> {
        do { return .success(try FileIO.readAll(path, limit: limit)) } catch { return .failure(.io(error)) }
    }

    /// Reads up to `buffer.count` bytes of `descriptor` from offset 0. `pread` leaves the
    /// descriptor's file position alone, so concurrent callers do not interfere.
    static func readFromStart(_ descriptor: borrowing FileDescriptor, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, MemoryProbeError> {
        do { return .success(try descriptor.read(into: buffer, at: 0)) } catch { return .failure(.io(error)) }
    }

    /// Writes the single byte `byte` to `path`, returning the `errno` of a failed open or write.
    static func writeByte(_ byte: UInt8, to path: String) -> Result<Void, Errno> {
        do {
            let descriptor = try FileDescriptor.open(path, .writeOnly, operation: "write")
            try descriptor.write([byte])
            return .success(())
        } catch {
            return .failure(Errno(code: error.errno ?? EIO))
        }
    }

    /// An `errno` value as an `Error`, so it can travel in a `Result`.
    struct Errno: Error {
        var code: Int32
    }
}
