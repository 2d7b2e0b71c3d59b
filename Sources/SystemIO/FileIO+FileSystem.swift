internal import Glibc

extension FileIO {
    /// What `statvfs(3)` says about the file system holding a path: the room left for an
    /// unprivileged writer, in bytes and in files.
    public struct FileSystemSpace: Sendable, Equatable {
        /// Bytes an unprivileged process may still write (`f_bavail × f_bsize`).
        public var availableBytes: Int
        /// Files that may still be created (`f_favail`); `Int.max` when the file system does
        /// not count inodes (it reports 0 files in all).
        public var availableFiles: Int
        /// The file system's size in bytes (`f_blocks × f_bsize`).
        public var totalBytes: Int

        /// A space as given. O(1).
        public init(availableBytes: Int, availableFiles: Int, totalBytes: Int) {
            self.availableBytes = availableBytes
            self.availableFiles = availableFiles
            self.totalBytes = totalBytes
        }

        /// What `statvfs` reported. O(1).
        init(_ info: Glibc.statvfs) {
            let block = Int(info.f_bsize)
            self.init(availableBytes: Int(info.f_bavail) * block,
                      availableFiles: info.f_files == 0 ? Int.max : Int(info.f_favail),
                      totalBytes: Int(info.f_blocks) * block)
        }
    }

    /// The free space and files of the file system holding `path`. Throws naming `path`
    /// (operation "measure the free space of"). One `open`, one `fstatvfs` and one `close`,
    /// through the fault seam.
    public static func fileSystemSpace(of path: String) throws(SystemError) -> FileSystemSpace {
        switch Syscalls.statvfs(path) {
        case .success(let info):
            return FileSystemSpace(info)
        case .failure(let error):
            throw SystemError(path: path, operation: "measure the free space of", reason: .errno(error.code))
        }
    }
}
