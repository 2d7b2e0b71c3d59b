internal import Glibc

/// This process, for modules that do not import the C library (`tools/check-architecture.sh`
/// keeps `import Glibc` to SystemIO, MemoryProbe and the files it lists with their reasons).
public enum CurrentProcess {
    /// This process's id (`getpid`). One system call.
    public static var id: Int32 { getpid() }

    /// The value of the environment variable `name`, nil when it is unset (`getenv`). O(size
    /// of the environment).
    public static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
