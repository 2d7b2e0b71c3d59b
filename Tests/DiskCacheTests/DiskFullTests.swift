import AssetGen
import Foundation
import Glibc
import SystemIO
import Testing
@testable import DiskCache

/// A full disk is an event, not a crash: the failed write leaves no temporary file and is
/// counted by errno, entries are evicted, writes pause until there is room again, and reads
/// go on throughout.
@Suite struct DiskFullTests {
    @Test(arguments: [ENOSPC, EDQUOT])
    func anInjectedFullDiskFailsTheWriteCleanlyAndPausesWrites(code: Int32) throws {
        try DiskTest.withFolder("enospc-\(code)") { folder in
            let store = try DiskStore(folder: folder, limit: ByteSize(bytes: 50_000_000))
            defer { store.close() }
            for i in 0..<10 { try store.store(DiskTest.bytes(20_000, seed: i), for: "k\(i)") }
            // The file system's seam fails every write under this folder, and reports no room.
            SystemFaults.with(code, into: .write, whenPathContains: folder) { () -> Void in
                SystemFaults.with(EIO, into: .fileSystemStatus, whenPathContains: folder) { () -> Void in
                    #expect(throws: DiskStoreError.io(SystemError(path: folder + "/entries/" + KeyHash.fileName(KeyHash.fnv1a64("new")),
                                                                  operation: "write", reason: .errno(code)))) {
                        try store.store(DiskTest.bytes(20_000, seed: 99), for: "new")
                    }
                    #expect(DiskTest.temporaryFiles(in: folder).isEmpty, "the failed write left its temporary file")
                    let metrics = store.metrics
                    #expect(metrics.writeFailures[code] == 1)
                    #expect(metrics.writesPaused)
                    #expect((metrics.evictions[.diskFull] ?? 0) > 0)
                    // Paused: refused before touching the disk.
                    #expect(throws: DiskStoreError.writesPaused(folder: folder, errno: code)) {
                        try store.store(DiskTest.bytes(100, seed: 1), for: "other")
                    }
                    #expect(store.metrics.writesRefusedWhilePaused == 1)
                    // Reads keep working.
                    #expect(store.data(for: "k9") == Data(DiskTest.bytes(20_000, seed: 9)))
                }
            }
            // Room again: the next write resumes.
            try store.store(DiskTest.bytes(20_000, seed: 99), for: "new")
            #expect(!store.metrics.writesPaused)
            #expect(store.data(for: "new") == Data(DiskTest.bytes(20_000, seed: 99)))
        }
    }

    @Test func aFailedRenameLeavesNoTemporaryFile() throws {
        try DiskTest.withFolder("rename-fails") { folder in
            let store = try DiskStore(folder: folder, limit: ByteSize(bytes: 50_000_000))
            defer { store.close() }
            SystemFaults.with(EIO, into: .rename, whenPathContains: folder + "/entries") { () -> Void in
                #expect(throws: DiskStoreError.self) { try store.store([1, 2, 3], for: "k") }
            }
            #expect(DiskTest.temporaryFiles(in: folder).isEmpty)
            #expect(store.metrics.writeFailures[EIO] == 1)
            #expect(!store.metrics.writesPaused)
            try store.store([1, 2, 3], for: "k")
            #expect(store.data(for: "k") == Data([1, 2, 3]))
        }
    }

    /// Fills a small tmpfs: bytes (`size=4m`) or files (`nr_inodes=64`).
    @Test(.enabled(if: Tmpfs.available, Tmpfs.skipReason), arguments: ["size=4m", "size=64m,nr_inodes=64"])
    func aRealFullTmpfsIsSurvived(options: String) throws {
        try Tmpfs.with(options) { mount in
            let folder = mount + "/store"
            let store = try DiskStore(folder: folder, limit: ByteSize(bytes: 1_000_000_000))
            defer { store.close() }
            let bySize = options.hasPrefix("size=4m")
            var stored: [String] = []
            var failure: DiskStoreError?
            // Bytes, or files, until the file system is full.
            for i in 0..<200 {
                do {
                    try store.store(DiskTest.bytes(bySize ? 300_000 : 1_000, seed: i), for: "k\(i)")
                    stored.append("k\(i)")
                } catch let error as DiskStoreError {
                    failure = error
                    break
                }
            }
            guard case .io(let error)? = failure else {
                Issue.record("the tmpfs never filled: \(String(describing: failure))")
                return
            }
            #expect(error.errno == ENOSPC)
            #expect(DiskTest.temporaryFiles(in: folder).isEmpty, "the failed write left its temporary file")
            #expect(store.metrics.writeFailures[ENOSPC] == 1)
            #expect((store.metrics.evictions[.diskFull] ?? 0) > 0, "nothing was evicted to make room")
            // Reads keep working for what is left.
            let left = stored.filter { store.data(for: $0) != nil }
            #expect(!left.isEmpty)
            for key in left {
                let i = Int(key.dropFirst())!
                #expect(store.data(for: key) == Data(DiskTest.bytes(bySize ? 300_000 : 1_000, seed: i)))
            }
            // The eviction freed room, so writes resume.
            try store.store(DiskTest.bytes(bySize ? 300_000 : 1_000, seed: 500), for: "after")
            #expect(store.data(for: "after") != nil)
            #expect(!store.metrics.writesPaused)
        }
    }

    @Test(.enabled(if: Tmpfs.available, Tmpfs.skipReason))
    func writesPauseUntilSpaceIsFreedAndThenResume() throws {
        try Tmpfs.with("size=4m") { mount in
            let folder = mount + "/store"
            let store = try DiskStore(folder: folder, limit: ByteSize(bytes: 1_000_000_000))
            defer { store.close() }
            try store.store(DiskTest.bytes(100_000, seed: 1), for: "kept")
            // Another program fills the disk.
            let filler = try FileDescriptor.open(mount + "/filler", .writeOnly, options: [.create])
            let chunk = [UInt8](repeating: 7, count: 65_536)
            while (try? filler.write(chunk)) != nil {}
            #expect(throws: DiskStoreError.self) { try store.store(DiskTest.bytes(200_000, seed: 2), for: "new") }
            #expect(DiskTest.temporaryFiles(in: folder).isEmpty)
            #expect(store.metrics.writesPaused)
            #expect(throws: DiskStoreError.writesPaused(folder: folder, errno: ENOSPC)) {
                try store.store(DiskTest.bytes(200_000, seed: 2), for: "new")
            }
            // The filler goes; writes resume.
            try filler.close()
            try FileIO.remove(mount + "/filler")
            try store.store(DiskTest.bytes(200_000, seed: 2), for: "new")
            #expect(store.data(for: "new") == Data(DiskTest.bytes(200_000, seed: 2)))
        }
    }
}
