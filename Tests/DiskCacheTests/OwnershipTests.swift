import Foundation
import Glibc
import RetentionTestSupport
import SystemIO
import Testing
@testable import DiskCache

/// What the store never touches: folders it did not make, names outside its scheme, links,
/// special files, and snapshots that are not its own.
@Suite struct OwnershipTests {
    static func tree(_ folder: String) -> [String] { TestPaths.tree(folder) }

    @Test("a folder of other files is refused in every mode, and nothing in it changes")
    func foreignFolderIsRefusedAndUntouched() throws {
        try DiskTest.withFolder("foreign") { folder in
            try TestPaths.plantForeignFolder(folder)
            let before = Self.tree(folder)
            for mode in [DiskStore.AccessMode.owner, .automatic, .readOnly] {
                #expect(throws: DiskStoreError.notAStore(folder: folder)) { _ = try DiskStore(folder: folder, limit: ByteSize(bytes: 1 << 20), mode: mode) }
            }
            #expect(Self.tree(folder) == before)
            #expect(DiskStoreError.notAStore(folder: folder).description
                    == "\(folder) is not a Retention cache (it holds files the cache did not make); give an empty or new folder")
        }
    }

    @Test("the empty path, / and the home folder are refused with their own sentences")
    func emptyRootAndHomeAreRefused() throws {
        #expect(throws: DiskStoreError.emptyPath) { _ = try DiskStore(folder: "", limit: ByteSize(bytes: 1 << 20)) }
        #expect(DiskStoreError.emptyPath.description == "the disk store's folder is an empty path (an unset variable?); give a folder")
        #expect(throws: DiskStoreError.protectedFolder("/")) { _ = try DiskStore(folder: "/", limit: ByteSize(bytes: 1 << 20)) }
        if let home = ProcessInfo.processInfo.environment["HOME"], FileIO.kind(of: home) == .directory {
            #expect(throws: DiskStoreError.protectedFolder(home)) { _ = try DiskStore(folder: home, limit: ByteSize(bytes: 1 << 20)) }
        }
        #expect(!FileIO.exists("/entries") && !FileIO.exists("/RETENTION-STORE"))
    }

    @Test("an empty folder becomes a store: the marker first, a CACHEDIR.TAG, and it opens again")
    func emptyFolderBecomesAStore() throws {
        try DiskTest.withFolder("marked") { folder in
            try FileIO.createDirectories(folder)
            let store = try DiskStore(folder: folder, limit: ByteSize(bytes: 1 << 20))
            try store.store(Array("v".utf8), for: "k")
            store.close()
            let marker = try FileIO.readAll(folder + "/RETENTION-STORE")
            #expect(marker.count == 32 && marker.prefix(8) == Data("RTNSTORE".utf8))
            let tag = String(decoding: try FileIO.readAll(folder + "/CACHEDIR.TAG"), as: UTF8.self)
            #expect(tag.hasPrefix("Signature: 8a477f597d28d172789f06886806bc55\n"))
            let again = try DiskStore(folder: folder, limit: ByteSize(bytes: 1 << 20))
            defer { again.close() }
            again.waitForIndex()
            #expect(again.metrics.indexState == .fresh)
            #expect(again.data(for: "k") == Data("v".utf8))
            // A read-only open of a new, empty folder changes nothing in it.
            let empty = folder + "-empty"
            try FileIO.createDirectories(empty)
            defer { try? FileIO.removeTree(empty) }
            let reader = try DiskStore(folder: empty, limit: ByteSize(bytes: 1 << 20), mode: .readOnly)
            #expect(reader.data(for: "k") == nil)
            reader.close()
            #expect(try FileIO.directoryEntries(empty).isEmpty)
        }
    }

    @Test("links where tmp, lock, index or an entry should be are never followed; what they point at is untouched")
    func linksAreNeverFollowed() throws {
        try DiskTest.withFolder("links") { folder in
            let outside = folder + "-outside"
            try FileIO.createDirectories(outside)
            defer { try? FileIO.removeTree(outside) }
            try FileIO.replace(outside + "/precious", with: Array("do not touch".utf8))
            try FileIO.replace(outside + "/.rtn-1-1.tmp", with: Array("do not touch".utf8))
            // An entry file of key "k", kept outside, for a link in the entries folder.
            try FileIO.replace(outside + "/entry", with: EntryFormat.encode(key: "k", payload: UnsafeRawBufferPointer(start: nil, count: 0)))
            let store = try DiskStore(folder: folder, limit: ByteSize(bytes: 1 << 20))
            try store.store(Array("v".utf8), for: "other")
            store.close()
            let outsideBefore = Self.tree(outside)
            try FileIO.removeTree(folder + "/tmp")
            try FileIO.makeSymbolicLink(folder + "/tmp", to: outside)
            try FileIO.remove(folder + "/lock")
            try FileIO.makeSymbolicLink(folder + "/lock", to: outside + "/precious")
            try FileIO.remove(folder + "/index")
            try FileIO.makeSymbolicLink(folder + "/index", to: outside + "/precious")
            let entry = KeyHash.fileName(KeyHash.fnv1a64("k"))
            try FileIO.makeSymbolicLink(folder + "/entries/" + entry, to: outside + "/entry")

            let reopened = try DiskStore(folder: folder, limit: ByteSize(bytes: 1 << 20))
            #expect(reopened.writeState == .notWritable(reason: "tmp in it is not a folder the store made"))
            #expect(reopened.data(for: "k") == nil)
            #expect(reopened.data(for: "other") == Data("v".utf8))
            #expect(throws: DiskStoreError.readOnly(folder: folder)) { try reopened.store(Array("x".utf8), for: "new") }
            _ = reopened.verify()
            _ = reopened.clear()
            reopened.close()
            #expect(Self.tree(outside) == outsideBefore)
            #expect(FileIO.kind(of: folder + "/tmp", followLinks: false) == .symbolicLink)
        }
    }

    @Test("a FIFO, a folder and a link as entries are misses, counted, and never opened; verify finishes")
    func specialFilesAreDamageNotWaits() throws {
        try DiskTest.withFolder("special") { folder in
            let store = try DiskStore(folder: folder, limit: ByteSize(bytes: 1 << 20))
            defer { store.close() }
            store.waitForIndex()
            let fifo = KeyHash.fileName(KeyHash.fnv1a64("fifo"))
            let dir = KeyHash.fileName(KeyHash.fnv1a64("dir"))
            try FileIO.makeFIFO(folder + "/entries/" + fifo)
            try FileIO.createDirectories(folder + "/entries/" + dir + "/inside")
            #expect(store.data(for: "fifo") == nil)
            #expect(store.data(for: "dir") == nil)
            #expect(store.metrics.corruptEntries == 2)
            // The FIFO (a name of the store's scheme, not a file) is removed; the folder is not.
            #expect(FileIO.status(of: folder + "/entries/" + fifo, followLinks: false) == nil)
            #expect(FileIO.kind(of: folder + "/entries/" + dir + "/inside") == .directory)
            try FileIO.makeFIFO(folder + "/entries/" + fifo)
            let report = store.verify()
            #expect(report.bad.map(\.name).sorted() == [dir, fifo].sorted())
            #expect(report.bad.first { $0.name == dir }?.removed == false)
            #expect(report.bad.first { $0.name == fifo }?.removed == true)
            #expect(store.clear() == 0)
            #expect(FileIO.kind(of: folder + "/entries/" + dir + "/inside") == .directory)
        }
    }

    @Test("a snapshot from another store, a forged one and a 2 GiB one are not trusted, and not read whole")
    func snapshotsThatAreNotOursAreRebuilt() throws {
        try DiskTest.withFolder("snapshots") { folder in
            let other = folder + "-other"
            defer { try? FileIO.removeTree(other) }
            for (path, key) in [(folder, "mine"), (other, "theirs")] {
                let store = try DiskStore(folder: path, limit: ByteSize(bytes: 1 << 30))
                try store.store(DiskTest.bytes(10_000, seed: 1), for: key)
                store.close()
            }
            // Another store's clean snapshot, copied in: rebuilt from the listing.
            try FileIO.replace(folder + "/index", with: try FileIO.readAll(other + "/index"))
            var store = try DiskStore(folder: folder, limit: ByteSize(bytes: 1 << 30))
            store.waitForIndex()
            #expect(store.metrics.indexState == .rebuilt && store.metrics.entries == 1)
            store.close()
            // A forged snapshot with this store's id, clean and current, claiming 1 TB.
            let marker = try FileIO.readAll(folder + "/RETENTION-STORE")
            let id = Array(marker[12..<28])
            let entries = try #require(FileIO.status(of: folder + "/entries"))
            let forged = IndexSnapshot.encode([.init(hash: 42, allocatedBytes: 1 << 40, lastUse: 1)], clean: true, storeID: id,
                                              folderModification: entries.modificationNanoseconds, folderInode: entries.inode)
            try FileIO.replace(folder + "/index", with: forged)
            store = try DiskStore(folder: folder, limit: ByteSize(bytes: 1 << 30))
            store.waitForIndex()
            #expect(store.metrics.indexState == .rebuilt && store.metrics.bytes < 1 << 20)
            #expect(store.data(for: "mine") != nil)
            store.close()
            // 2 GiB of sparse file under the snapshot's name: its header is not a snapshot's,
            // so no more than the header is read.
            let big = try FileDescriptor.open(folder + "/index", .writeOnly, options: .truncate)
            try big.truncate(to: 2 << 30)
            store = try DiskStore(folder: folder, limit: ByteSize(bytes: 1 << 30))
            store.waitForIndex()
            #expect(store.metrics.indexState == .rebuilt && store.data(for: "mine") != nil)
            store.close()
        }
    }

    @Test("the lock is the folder's own: deleting the lock file lets no second owner in")
    func deletingTheLockFileLetsNoSecondOwnerIn() throws {
        try DiskTest.withFolder("lock") { folder in
            let owner = try DiskStore(folder: folder, limit: ByteSize(bytes: 1 << 20), mode: .owner)
            defer { owner.close() }
            try FileIO.remove(folder + "/lock")
            #expect(throws: DiskStoreError.self) { _ = try DiskStore(folder: folder, limit: ByteSize(bytes: 1 << 20), mode: .owner) }
            let reader = try DiskStore(folder: folder, limit: ByteSize(bytes: 1 << 20), mode: .automatic)
            defer { reader.close() }
            #expect(!reader.isOwner)
            #expect(throws: DiskStoreError.readOnly(folder: folder)) { try reader.store(Array("x".utf8), for: "k") }
            if case .ownedByAnotherProcess = reader.writeState {} else { Issue.record("writeState \(reader.writeState)") }
        }
    }

    @Test("entries larger than the limit are damage and are never read")
    func oversizedEntriesAreNotRead() throws {
        try DiskTest.withFolder("oversized") { folder in
            let store = try DiskStore(folder: folder, limit: ByteSize(bytes: 64 * 1024))
            defer { store.close() }
            store.waitForIndex()
            let name = KeyHash.fileName(KeyHash.fnv1a64("huge"))
            let fd = try FileDescriptor.open(folder + "/entries/" + name, .writeOnly, options: .create)
            try fd.truncate(to: 1 << 30)
            #expect(store.data(for: "huge") == nil)
            #expect(store.metrics.corruptEntries == 1)
        }
    }

    @Test("writeState says why a store only reads, and the hook hears the takeover when the owner goes")
    func writeStateAndItsHook() throws {
        try DiskTest.withFolder("state") { folder in
            let owner = try DiskStore(folder: folder, limit: ByteSize(bytes: 1 << 20), mode: .owner)
            #expect(owner.writeState == .owner)
            let heard = Lock<[DiskStore.WriteState]>([])
            var options = DiskStore.Options()
            options.onWriteStateChange = { state in heard.withLock { $0.append(state) } }
            let reader = try DiskStore(folder: folder, limit: ByteSize(bytes: 1 << 20), options: options)
            defer { reader.close() }
            #expect(reader.writeState == .ownedByAnotherProcess(processID: getpid()))
            #expect(reader.writeState.description == "reads only: this process already has the store open")
            owner.close()
            // A write takes over (tries at most every 100 ms) and the hook hears it.
            var stored = false
            for _ in 0..<50 where !stored {
                stored = (try? reader.store(Array("v".utf8), for: "k")) != nil
                if !stored { usleep(25_000) }
            }
            #expect(stored && reader.writeState == .owner)
            reader.waitForIndex()
            reader.close()
            #expect(heard.withLock { $0 } == [.owner])
            let readOnly = try DiskStore(folder: folder, limit: ByteSize(bytes: 1 << 20), mode: .readOnly)
            #expect(readOnly.writeState == .readOnlyRequested)
        }
    }

    @Test("an owner that dies is replaced without a further write: writeState changes, the hook hears it, and the next write is stored")
    func deadOwnerIsReplacedWithoutAWrite() throws {
        try DiskTest.withFolder("dead-owner") { folder in
            var child = ChildProcess(executable: DiskTest.helper, arguments: ["write", folder, "7", "16"], timeoutSeconds: 60)
            child.standardOutput = .file(folder + "-marks")
            defer { try? FileIO.remove(folder + "-marks") }
            let owner = try child.start()
            // The writer owns the folder once it has committed a write.
            let start = ContinuousClock.now
            while (FileIO.status(of: folder + "-marks")?.size ?? 0) < 2 && ContinuousClock.now - start < .seconds(30) { usleep(2_000) }
            let heard = Lock<[DiskStore.WriteState]>([])
            var options = DiskStore.Options()
            options.takeoverCheckInterval = .milliseconds(50)
            options.onWriteStateChange = { state in heard.withLock { $0.append(state) } }
            let reader = try DiskStore(folder: folder, limit: ByteSize(bytes: 1 << 30), options: options)
            defer { reader.close() }
            guard case .ownedByAnotherProcess(let pid) = reader.writeState else {
                Issue.record("writeState \(reader.writeState)")
                return
            }
            #expect(pid == owner.processID)
            #expect(owner.signal(SIGKILL))
            _ = owner.wait()
            // No write from here: the background check takes the folder. The hook hears it on
            // the store's background queue, after writeState changes: wait for both.
            for _ in 0..<400 where reader.writeState != .owner || heard.withLock({ $0.isEmpty }) { usleep(10_000) }
            #expect(reader.writeState == .owner)
            #expect(heard.withLock { $0 } == [.owner])
            try reader.store(Array("after".utf8), for: "mine")
            #expect(reader.data(for: "mine").map(Array.init) == Array("after".utf8))
        }
    }
}
