#if canImport(Glibc)
import Glibc
#endif

/// Folder creation with the system's reason on failure.
public enum Directories {
    /// Creates `path` and any missing parents (`mkdir -p`); an existing folder is fine. Throws
    /// `.io(path:operation: "create", errno:)` naming the component that could not be made
    /// (`ENOTDIR` when a parent is a file, `EEXIST` when `path` itself is one). One `mkdir` per
    /// missing component.
    public static func create(_ path: String, mode: mode_t = 0o755) throws(ImagingError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            if mkdir(prefix, mode) != 0 {
                let code = errno
                var info = stat()
                guard code == EEXIST, stat(prefix, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
                    throw .io(path: prefix, operation: "create the folder", errno: code == EEXIST ? ENOTDIR : code)
                }
            }
            prefix += "/"
        }
    }
}
