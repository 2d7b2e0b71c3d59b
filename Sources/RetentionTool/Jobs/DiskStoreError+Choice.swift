import DiskCache
import SystemIO

extension DiskStoreError {
    /// True when the store failed for a reason of the file system, not of the folder the user
    /// chose (an I/O error with an `errno`: no hard links, a full disk, no permission): the
    /// batch then goes on without the cache. A folder that is not a store, a protected folder
    /// or a link another user planted stays an error. O(1).
    var costsOnlyTheCache: Bool {
        if case .io(let error) = self, case .errno = error.reason { return true }
        return false
    }

    /// True when the folder's path is unsafe to write through (a link another user planted in
    /// a shared folder): a usage error, exit 64. O(1).
    var isUnsafePath: Bool {
        if case .io(let error) = self, case .unsafe = error.reason { return true }
        return false
    }
}
