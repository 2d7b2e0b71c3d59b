internal import Glibc

/// The `errno` values callers outside SystemIO test a ``SystemError`` against
/// (`error.errno == Errno.noSuchFileOrDirectory`, or `case Errno.noSpace:` in a switch), named
/// as swift-system names them, so that no module needs the C library for a constant:
/// `tools/check-architecture.sh` keeps `import Glibc` (in any form) to SystemIO, MemoryProbe
/// and the files it lists with their reasons.
public enum Errno {
    /// `ENOENT`: no such file or directory.
    public static let noSuchFileOrDirectory: Int32 = ENOENT
    /// `EEXIST`: the name already exists.
    public static let fileExists: Int32 = EEXIST
    /// `ENOTDIR`: a component of the path is not a folder.
    public static let notDirectory: Int32 = ENOTDIR
    /// `EISDIR`: the path is a folder.
    public static let isDirectory: Int32 = EISDIR
    /// `ELOOP`: a symbolic link where none is followed (`O_NOFOLLOW`), or too many links.
    public static let tooManySymbolicLinkLevels: Int32 = ELOOP
    /// `EIO`: an input/output error.
    public static let ioError: Int32 = EIO
    /// `ENOSPC`: no space left on the device.
    public static let noSpace: Int32 = ENOSPC
    /// `EDQUOT`: the user's disk quota is exhausted.
    public static let diskQuotaExceeded: Int32 = EDQUOT
    /// `EACCES`: permission denied.
    public static let permissionDenied: Int32 = EACCES
    /// `EPERM`: the operation is not permitted.
    public static let notPermitted: Int32 = EPERM
    /// `EROFS`: the file system is read-only.
    public static let readOnlyFileSystem: Int32 = EROFS
}
