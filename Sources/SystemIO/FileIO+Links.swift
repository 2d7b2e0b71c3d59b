internal import Glibc

extension FileIO {
    /// The most symbolic links one path may lead through, as the kernel allows (`ELOOP` past it).
    static let maximumLinks = 40

    /// `path` with its symbolic links resolved for a write, component by component as the
    /// kernel walks it, following a link only where the kernel's `fs.protected_symlinks=1`
    /// rule would (see ``checkFollowable(link:folder:path:)``), whatever this machine's
    /// setting: a link another user put in a shared folder (sticky and writable by every user,
    /// like `/tmp`) is refused, not followed, so an output can never be redirected onto
    /// someone else's file. `.` and `..` are taken as the kernel takes them; what is under
    /// `/proc` is left to the kernel (its links, such as `/proc/self/fd/1`, are not paths).
    /// Components that do not exist yet are kept as written. Throws `ELOOP` past
    /// ``maximumLinks`` links. An `lstat` per component, a `stat` and a `readlink` per link.
    public static func resolvedForWriting(_ path: String) throws(SystemError) -> String {
        var absolute = path.hasPrefix("/")
        var resolved: [String] = []
        var pending = Array(path.split(separator: "/", omittingEmptySubsequences: true).map(String.init).reversed())
        var followed = 0
        func joined(_ parts: [String]) -> String {
            if parts.isEmpty { return absolute ? "/" : "." }
            return (absolute ? "/" : "") + parts.joined(separator: "/")
        }
        while let component = pending.popLast() {
            if component == "." { continue }
            if component == ".." {
                if let last = resolved.last, last != ".." { resolved.removeLast() } else if !absolute { resolved.append("..") }
                continue
            }
            let candidate = joined(resolved + [component])
            if candidate.hasPrefix("/proc/") { return joined(resolved + [component] + pending.reversed()) }
            guard let status = status(of: candidate, followLinks: false), status.kind == .symbolicLink else {
                resolved.append(component)
                continue
            }
            guard let folder = self.status(of: joined(resolved)) else {
                throw SystemError(path: candidate, operation: "follow the link", reason: .errno(ENOENT))
            }
            try checkFollowable(link: status, folder: folder, path: candidate)
            followed += 1
            guard followed <= maximumLinks else { throw SystemError(path: path, operation: "write", reason: .errno(ELOOP)) }
            guard let destination = linkTarget(candidate) else { throw .lastError("read the link", candidate) }
            if destination.hasPrefix("/") {
                absolute = true
                resolved = []
            }
            pending.append(contentsOf: destination.split(separator: "/", omittingEmptySubsequences: true).map(String.init).reversed())
        }
        return joined(resolved)
    }

    /// Throws unless the kernel would follow `link` (its `lstat`) found in `folder` (the
    /// folder's `stat`) under `fs.protected_symlinks=1`: a link in a folder that is not both
    /// sticky and writable by every user is followed, and so is one owned by this user or by
    /// the folder's owner; any other (a link another user planted in `/tmp`) is refused with
    /// ``SystemError/Reason/unsafe(_:)`` naming its owner. O(1).
    public static func checkFollowable(link: Status, folder: Status, path: String) throws(SystemError) {
        let shared = folder.permissions & UInt32(S_ISVTX) != 0 && folder.permissions & 0o002 != 0
        let user = UInt32(geteuid())
        guard shared, link.owner != user, link.owner != folder.owner else { return }
        throw SystemError(path: path, operation: "write through", reason: .unsafe(
            "it is a symbolic link that user \(link.owner) put in a folder every user may write in (sticky, mode "
                + "\(String(folder.permissions, radix: 8))); following it could replace another user's file, so it is not followed"))
    }
}
