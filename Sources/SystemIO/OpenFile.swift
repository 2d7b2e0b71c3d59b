internal import Glibc

/// A file opened for reading and what `fstat` said of it on that descriptor (the file read is
/// the file described). Noncopyable, as its descriptor is.
public struct OpenFile: ~Copyable, Sendable {
    /// The open file.
    public let descriptor: FileDescriptor
    /// Its status at open.
    public let status: FileIO.Status
}
