/// The memory lines of `/proc/self/status`, in bytes.
public struct ProcessStatus: Sendable, Equatable {
    /// `VmRSS`: resident memory now.
    public var residentBytes: Int
    /// `VmHWM`: peak resident memory since the process started or since
    /// ``ProcessMemory/resetPeak(path:)``.
    public var peakResidentBytes: Int
    /// `RssAnon`: resident anonymous memory (heap, stacks, anonymous mmap).
    public var anonymousBytes: Int
    /// `RssFile`: resident file-backed memory (code, mapped files).
    public var fileBytes: Int
    /// `RssShmem`: resident shared memory (System V, tmpfs, shared anonymous).
    public var sharedMemoryBytes: Int

    /// Creates a status from byte counts.
    public init(residentBytes: Int, peakResidentBytes: Int, anonymousBytes: Int, fileBytes: Int, sharedMemoryBytes: Int) {
        self.residentBytes = residentBytes
        self.peakResidentBytes = peakResidentBytes
        self.anonymousBytes = anonymousBytes
        self.fileBytes = fileBytes
        self.sharedMemoryBytes = sharedMemoryBytes
    }
}
