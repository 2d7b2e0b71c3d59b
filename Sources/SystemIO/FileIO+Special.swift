internal import Glibc

extension FileIO {
    /// Makes a FIFO (a named pipe) at `path` with `permissions` (less the umask): the file
    /// that blocks a plain `open` until the other end opens, which the special-file rules are
    /// written against. Throws naming `path` when anything exists there (`EEXIST`, a device or
    /// a FIFO included) or its folder is missing. One `mkfifo`.
    public static func makeFIFO(_ path: String, permissions: UInt32 = 0o644) throws(SystemError) {
        if PathText.withCString(path, { mkfifo($0, mode_t(permissions)) }) != 0 { throw .lastError("create the FIFO", path) }
    }

    /// Makes a symbolic link at `path` whose target is `target`, stored as given (neither
    /// resolved nor required to exist). Throws naming `path` when anything exists there or its
    /// folder is missing. One `symlink`.
    public static func makeSymbolicLink(_ path: String, to target: String) throws(SystemError) {
        let made = PathText.withCString(target) { target in PathText.withCString(path) { symlink(target, $0) } }
        if made != 0 { throw .lastError("create the symbolic link", path) }
    }

    /// Sets the permission bits of `path` (`chmod`, following a link there: the caller named
    /// it), with no umask applied. Throws naming `path`. One `chmod`.
    public static func setPermissions(_ path: String, _ permissions: UInt32) throws(SystemError) {
        if PathText.withCString(path, { chmod($0, mode_t(permissions)) }) != 0 { throw .lastError("change the permissions of", path) }
    }
}
