internal import Glibc

/// A failed file or system call: which operation, on which path, and why. The one I/O error
/// every module of the package reports, so a message reads the same wherever it comes from.
public struct SystemError: Error, CustomStringConvertible, Sendable, Equatable {
    /// Why the operation failed.
    public enum Reason: Sendable, Equatable {
        /// The call set `errno` to this value.
        case errno(Int32)
        /// The path names something other than a regular file; `kind` says what ("a FIFO").
        case notARegularFile(kind: String)
        /// The file holds more than `limit` bytes, the most the caller accepts.
        case tooLarge(limit: Int)
        /// The allocator refused `bytes` for the operation's buffer (an address-space limit,
        /// `ulimit -v`).
        case outOfMemory(bytes: Int)
        /// The path is not safe to use as asked; the text says why, as a clause ("it is owned
        /// by user 1000, not by this user (0)").
        case unsafe(String)
    }

    /// The path the operation was on.
    public var path: String
    /// What was being done, as a verb phrase that follows "cannot": "read", "create the folder".
    public var operation: String
    /// Why it failed.
    public var reason: Reason

    /// An error for `operation` on `path` with `reason`. O(1).
    public init(path: String, operation: String, reason: Reason) {
        self.path = path
        self.operation = operation
        self.reason = reason
    }

    /// An error for `operation` on `path` with the calling thread's current `errno`. O(1).
    public static func lastError(_ operation: String, _ path: String) -> SystemError {
        SystemError(path: path, operation: operation, reason: .errno(Glibc.errno))
    }

    /// The `errno` value, when the reason is one.
    public var errno: Int32? {
        if case .errno(let code) = reason { return code }
        return nil
    }

    /// One sentence: "cannot read x.png: No such file or directory" (bytes of the path that
    /// are not UTF-8 shown as `\xE9`, see ``PathText/display(_:)``).
    public var description: String {
        "cannot \(operation) \(PathText.display(path)): \(reasonText)"
    }

    /// The reason alone, e.g. "No such file or directory" or "it is a FIFO, not a regular file".
    public var reasonText: String {
        switch reason {
        case .errno(let code): return Self.text(forErrno: code)
        case .notARegularFile(let kind): return "it is \(kind), not a regular file"
        case .tooLarge(let limit): return "it is larger than the limit of \(limit) bytes"
        case .outOfMemory(let bytes): return "out of memory (\(bytes) bytes could not be allocated)"
        case .unsafe(let why): return why
        }
    }

    /// The C library's text for an errno value ("No such file or directory"). glibc's
    /// `strerror` returns static text for known codes and a thread-local buffer otherwise.
    public static func text(forErrno code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}
