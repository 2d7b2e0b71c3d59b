import AssetGen
import Foundation
import Glibc
import RetentionTestSupport
import SystemIO
import Testing
@testable import DiskCache

/// Helpers the disk store's tests share.
enum DiskTest {
    /// A fresh folder for one test, removed by `body`'s end.
    static func withFolder<R>(_ name: String, _ body: (String) throws -> R) throws -> R {
        let folder = try TestPaths.temporaryFolder("disk-\(name)")
        defer { try? FileIO.removeTree(folder) }
        return try body(folder)
    }

    /// Allocated bytes (`st_blocks × 512`) of every regular file under `folder`, summed from
    /// `stat`, as the bound is checked: the store's own accounting plays no part.
    static func allocatedBytes(under folder: String) -> Int {
        FileIO.entries(under: folder).reduce(0) { sum, relative in
            guard let status = FileIO.status(of: folder + "/" + relative, followLinks: false), status.kind == .regular else { return sum }
            return sum + status.allocatedBytes
        }
    }

    /// Files in the store's temporary folder.
    static func temporaryFiles(in folder: String) -> [String] {
        (try? FileIO.directoryEntries(folder + "/tmp")) ?? []
    }

    /// Files in the store's entries folder.
    static func entryFiles(in folder: String) -> [String] {
        ((try? FileIO.directoryEntries(folder + "/entries")) ?? []).sorted()
    }

    /// The helper executable beside the test bundle.
    static var helper: String {
        FileIO.directory(of: FileIO.executablePath ?? CommandLine.arguments[0]) + "/DiskStoreCheck"
    }

    /// Runs `body` on a thread of its own and suspends until it returns, so a test that blocks
    /// for long (children, sleeps) never holds one of the few cooperative threads.
    static func onThread<R: Sendable>(_ body: @escaping @Sendable () throws -> R) async throws -> R {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    /// Bytes whose content depends on `seed`, `count` long: a 251-byte pattern copied by
    /// doubling, fast even in a debug build.
    static func bytes(_ count: Int, seed: Int) -> [UInt8] {
        var bytes = (0..<min(count, 251)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed &* 7 &+ seed >> 8) }
        bytes.reserveCapacity(count)
        while bytes.count < count { bytes.append(contentsOf: bytes.prefix(count - bytes.count)) }
        return bytes
    }
}

/// A tmpfs mounted for one test (root only), unmounted by `body`'s end; or the reason it
/// cannot be mounted here, for the test's skip.
enum Tmpfs {
    /// Whether this process may mount a tmpfs (tried once, on a scratch folder).
    static let available: Bool = {
        guard let folder = try? TestPaths.temporaryFolder("tmpfs-probe") else { return false }
        defer { try? FileIO.removeTree(folder) }
        guard mount(options: "size=1m", at: folder) else { return false }
        unmount(folder)
        return true
    }()

    /// Why mounting is skipped.
    static let skipReason: Comment = "skipped: this process cannot mount a tmpfs (not root, or no CAP_SYS_ADMIN)"

    /// Mounts a tmpfs with `options` on a fresh folder and runs `body` on it.
    static func with<R>(_ options: String, _ body: (String) throws -> R) throws -> R {
        let folder = try TestPaths.temporaryFolder("tmpfs")
        defer { try? FileIO.removeTree(folder) }
        guard mount(options: options, at: folder) else { throw MountFailed(options: options) }
        defer { unmount(folder) }
        return try body(folder)
    }

    struct MountFailed: Error, CustomStringConvertible {
        var options: String
        var description: String { "mount -t tmpfs -o \(options) failed" }
    }

    private static func mount(options: String, at folder: String) -> Bool {
        guard getuid() == 0 else { return false }
        let outcome = try? ChildProcess(executable: "/usr/bin/mount", arguments: ["-t", "tmpfs", "-o", options, "tmpfs", folder],
                                        timeoutSeconds: 20).run()
        return outcome?.exitStatus == 0
    }

    private static func unmount(_ folder: String) {
        _ = try? ChildProcess(executable: "/usr/bin/umount", arguments: [folder], timeoutSeconds: 20).run()
    }
}

extension SplitMix64 {
    /// A value in 0..<n. O(1).
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    /// Log-uniform between `low` and `high`. O(1).
    mutating func size(_ low: Int, _ high: Int) -> Int {
        let unit = Double(next() >> 11) / Double(1 << 53)
        return Int(exp(log(Double(low)) + unit * (log(Double(high)) - log(Double(low)))))
    }
}
