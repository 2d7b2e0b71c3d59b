import DiskCache
import Foundation
import Glibc
import Imaging
import Synchronization
import SystemIO
import Testing
@testable import Retention

/// The disk tier: a memory miss looks on disk before the source; loads write what they fetched
/// off the caller's thread; coalescing, cancellation, damaged entries and a full disk.
@Suite("Disk tier", .timeLimit(.minutes(1)))
struct DiskTierTests {
    /// `thumbnail-disk` at 16 px, so the 64 × 48 fixtures really shrink.
    static let smallThumbnails = RetentionPolicy.thumbnailDisk.with { $0.visible = .thumbnail(maxPixelSize: 16) }

    /// The decoded fixture `key`, for comparing pixels.
    func original(_ key: Int) throws -> Bitmap { try PNGDecoder().decode(Fixtures.images[key]!) }

    // MARK: - Admission

    @Test("admission is the tier's pure rule: what the tier keeps, once per key while pending, dropped and counted past the cap")
    func admission() throws {
        let thumbnail = try original(1)
        let bytes = Data([1, 2, 3])
        let both = RetentionPolicy.DiskTier(source: true, thumbnails: true)
        func admit(_ tier: RetentionPolicy.DiskTier, _ origin: LoadOrigin, thumbnail made: Bitmap?, pending: UInt8 = 0, keys: Int = 0) -> CacheDiskTier<Int>.Admission {
            CacheDiskTier<Int>.admit(7, tier: tier, origin: origin, readData: bytes, thumbnail: made, pending: pending, keysPending: keys)
        }
        guard case .write(let fromSource) = admit(both, .source, thumbnail: thumbnail) else { Issue.record("expected writes"); return }
        #expect(fromSource.source == bytes && fromSource.thumbnail != nil && fromSource.marks == 3)
        // Bytes read back from the disk are not written again; a thumbnail made from them is.
        guard case .write(let fromDisk) = admit(both, .disk, thumbnail: thumbnail) else { Issue.record("expected a thumbnail write"); return }
        #expect(fromDisk.source == nil && fromDisk.marks == DiskWrites<Int>.thumbnailMark)
        guard case .nothing = admit(RetentionPolicy.DiskTier(source: false, thumbnails: true), .source, thumbnail: nil) else { Issue.record("nothing to write"); return }
        guard case .nothing = admit(both, .source, thumbnail: thumbnail, pending: 3) else { Issue.record("both pending: nothing"); return }
        guard case .write(let rest) = admit(both, .source, thumbnail: thumbnail, pending: DiskWrites<Int>.sourceMark) else { Issue.record("the thumbnail is not pending"); return }
        #expect(rest.source == nil && rest.thumbnail != nil)
        let cap = ImageCache<Int>.maximumPendingDiskWrites
        guard case .dropped(let entries) = admit(both, .source, thumbnail: thumbnail, keys: cap) else { Issue.record("past the cap: dropped"); return }
        #expect(entries == 2)
        // A key already pending is not a new key: its missing entry is still admitted at the cap.
        guard case .write = admit(both, .source, thumbnail: thumbnail, pending: DiskWrites<Int>.thumbnailMark, keys: cap) else { Issue.record("a pending key passes the cap"); return }
    }

    // MARK: - Settings that cannot apply

    @Test("a setting that cannot apply is an error at construction, one sentence each")
    func badSettings() throws {
        let disk = try TemporaryStore("disk-settings", limit: 10_000_000)
        let source = ImageSource<Int>.memory(Fixtures.images)
        func refusal(_ policy: RetentionPolicy, _ store: DiskStore?) -> ImageCacheError? {
            do {
                _ = try ImageCache(source: source, configuration: .init(policy: policy, diskStore: store, diskName: { "\($0)" }))
                return nil
            } catch {
                return error
            }
        }
        let lru = RetentionPolicy.decodedLRUDisk.with { $0.disk?.budget = .megabytes(10) }
        #expect(refusal(lru, nil) == .diskTierWithoutStore(policy: lru.name))
        #expect(refusal(.decodedLRU, disk.store) == .storeWithoutDiskTier(policy: "decoded-lru"))
        let empty = lru.with { $0.disk = .init(source: false, thumbnails: false, budget: .megabytes(1)) }
        #expect(refusal(empty, disk.store) == .emptyDiskTier(policy: empty.name))
        let thumbnailsOfDecoded = lru.with { $0.disk?.thumbnails = true }
        #expect(refusal(thumbnailsOfDecoded, disk.store) == .thumbnailsOnDiskNeedThumbnailRows(policy: thumbnailsOfDecoded.name))
        let zero = lru.with { $0.disk?.budget = ByteSize(bytes: 0) }
        #expect(refusal(zero, disk.store) == .zeroDiskBudget(policy: zero.name))
        let big = lru.with { $0.disk?.budget = .megabytes(20) }
        #expect(refusal(big, disk.store) == .diskBudgetOverStoreLimit(policy: big.name, budget: 20_000_000, limit: 10_000_000))
        #expect(refusal(lru, disk.store) == nil)
        #expect(ImageCacheError.diskBudgetOverStoreLimit(policy: "p", budget: 20_000_000, limit: 10_000_000).description
                == "policy p has a disk budget of 20MB, over the disk store's limit of 10MB")
        #expect(ImageCacheError.diskTierWithoutStore(policy: "p").description == "policy p keeps a disk tier, but the cache was given no disk store")
        // Row numbers are not names: an Int key needs diskName; a String key names itself.
        #expect(throws: ImageCacheError.diskNameRequired(keyType: "Int")) { _ = try ImageCache(source: source, configuration: .init(policy: lru, diskStore: disk.store)) }
        #expect(ImageCacheError.diskNameRequired(keyType: "Int").description
                == "a cache with a disk tier needs a stable name on disk for each key: give diskName, or make Int DiskKeyConvertible (a Int such as a row number may name another image in the next run)")
        let named = try ImageCache(source: ImageSource<String>.memory(["a": Fixtures.images[0]!]), configuration: .init(policy: lru, mode: .synchronous, diskStore: disk.store))
        #expect(named.appeared("a").status == .decoded)
    }

    @Test("the cache says when its disk tier only reads because another store owns the folder")
    func diskWriteStateIsShown() throws {
        let disk = try TemporaryStore("disk-state", limit: 50_000_000)
        let folder = disk.store.folder
        let reader = try DiskStore(folder: folder, limit: .megabytes(50))
        defer { reader.close() }
        let cache = try ImageCache(source: ImageSource<Int>.memory(Fixtures.images), configuration: .init(policy: .thumbnailDisk, mode: .synchronous,
                                   diskStore: reader, diskName: { "\($0)" }))
        #expect(cache.diskWriteState == .ownedByAnotherProcess(processID: getpid()))
        #expect(cache.metrics.diskWriteState == .ownedByAnotherProcess(processID: getpid()))
        #expect(cache.appeared(1).status == .decoded, "a tier that only reads costs writes, never an image")
        cache.waitForIdle()
        #expect(cache.metrics.diskWritesDropped >= 1 && cache.metrics.diskWriteFailures == 0 && cache.metrics.diskWrites == 0,
                "writes a reader cannot make are dropped, not failed: \(cache.metrics.diskWritesDropped) dropped, \(cache.metrics.diskWriteFailures) failed")
        let plain = try ImageCache(source: ImageSource<Int>.memory(Fixtures.images), configuration: .init(policy: .decodedLRU))
        #expect(plain.diskWriteState == nil && plain.metrics.diskWriteState == nil)
    }

    @Test("a preset's default disk budget takes a smaller store's limit; an explicit one over it throws")
    func presetsFitTheirStore() throws {
        let disk = try TemporaryStore("disk-fit", limit: 50_000_000)
        let source = ImageSource<Int>.memory(Fixtures.images)
        let cache = try ImageCache(source: source, configuration: .init(policy: .thumbnailDisk, diskStore: disk.store, diskName: { "\($0)" }))
        #expect(cache.policy.disk?.budget == .megabytes(50))
        #expect(RetentionPolicy.thumbnailDisk.disk?.budgetIsExplicit == false)
        let explicit = RetentionPolicy.thumbnailDisk.with { $0.disk?.budget = .megabytes(150) }
        #expect(explicit.disk?.budgetIsExplicit == true)
        #expect(throws: ImageCacheError.diskBudgetOverStoreLimit(policy: explicit.name, budget: 150_000_000, limit: 50_000_000)) {
            _ = try ImageCache(source: source, configuration: .init(policy: explicit, diskStore: disk.store, diskName: { "\($0)" }))
        }
    }

    // MARK: - Hits

    @Test("a row that returns after release decodes the source's bytes from disk, without a source read")
    func diskHitsAfterRelease() throws {
        let h = Harness(.decodedReleaseDisk)
        let first = h.appear(7)
        #expect(first.status == .decoded && first.origin == .source)
        h.settle() // the writer has written the source's bytes
        #expect(h.metrics.diskWrites == 1 && h.metrics.diskWriteBytes == Fixtures.images[7]!.count)
        #expect(h.disk!.store.data(for: "source:7") == Fixtures.images[7])
        h.disappear(7)
        #expect(h.lookup(7) == nil)
        let again = h.appear(7)
        #expect(again.status == .decoded && again.origin == .disk && !again.readFromSource)
        #expect(try h.lookup(7)!.hasSamePixels(as: original(7)))
        let m = h.metrics
        #expect(m.sourceReads == 1 && h.reads.readCount(7) == 1)
        #expect(m.diskHits == 1 && m.diskMisses == 1 && m.diskReads == 2, "one miss before the first source read, one hit on return")
        #expect(m.diskReadBytes == Fixtures.images[7]!.count)
        h.settle()
        #expect(h.metrics.diskWrites == 1, "bytes read from disk are not written again")
    }

    /// A store of the user's own for the disk tier: entries in a dictionary behind a Mutex (the
    /// tier calls it from loading threads and its writer at once).
    final class MemoryDiskStore: ImageCacheDiskStore {
        let entries = Mutex<[String: Data]>([:])
        let limit = 10_000_000
        var usage: Int { entries.withLock { $0.values.reduce(0) { $0 + $1.count } } }
        var writeState: DiskStore.WriteState { .owner }
        func contains(_ key: String) -> Bool { entries.withLock { $0[key] != nil } }
        func data(for key: String) -> Data? { entries.withLock { $0[key] } }
        func store(_ data: Data, for key: String) throws(DiskStoreError) { entries.withLock { $0[key] = data } }
        func remove(_ key: String) -> Bool { entries.withLock { $0.removeValue(forKey: key) != nil } }
        func trim(to size: ByteSize) -> Int { 0 }
    }

    @Test("a store of another kind serves the tier as a DiskStore does: writes, then a hit without a source read; disk is nil, diskStore is it")
    func storeOfAnotherKind() throws {
        let store = MemoryDiskStore()
        let source = TestSource()
        let cache = try ImageCache(source: source.source(), configuration: .init(policy: .decodedReleaseDisk, mode: .synchronous, diskStore: store, diskName: { "\($0)" }))
        #expect((cache.diskStore as? DiskStore) == nil && cache.diskStore === store && cache.diskWriteState == .owner)
        #expect(cache.appeared(3).origin == .source)
        cache.waitForIdle()
        #expect(store.data(for: "source:3") == Fixtures.images[3])
        cache.disappeared(3)
        #expect(cache.appeared(3).origin == .disk)
        #expect(source.totalReads == 1 && cache.metrics.diskHits == 1)
        #expect(try cache.cachedImage(for: 3)!.hasSamePixels(as: original(3)))
    }

    @Test("a new cache over the reopened store starts warm: no source read for what is on disk")
    func warmStart() throws {
        let disk = try TemporaryStore("disk-warm")
        do {
            let cold = Harness(.decodedLRUDisk.with { $0.disk?.budget = .megabytes(50) }, disk: disk)
            for key in 0..<8 { cold.appear(key) }
            cold.settle()
            #expect(cold.metrics.diskWrites == 8)
        }
        let store = try disk.reopened()
        defer { store.close() }
        let source = TestSource()
        let warm = try ImageCache(source: source.source(), configuration: .init(policy: .decodedLRUDisk.with { $0.disk?.budget = .megabytes(50) },
                                  mode: .synchronous, diskStore: store, diskName: { "\($0)" }))
        for key in 0..<8 { #expect(warm.appeared(key).origin == .disk) }
        #expect(source.totalReads == 0)
        #expect(warm.metrics.diskHits == 8 && warm.metrics.sourceReads == 0)
    }

    @Test("a thumbnail is written as its encoded PNG under a key naming its transform, and decoded again on return")
    func thumbnailOnDisk() throws {
        let h = Harness(Self.smallThumbnails)
        let first = h.appear(3)
        #expect(first.origin == .source)
        let made = try #require(h.lookup(3))
        #expect(made.width == 16 && made.height == 12)
        h.settle()
        let key = "thumbnail:16:good:fit:gamma:3"
        let png = try #require(h.disk!.store.data(for: key))
        #expect(try PNGDecoder().decode(png).hasSamePixels(as: made), "the PNG holds the thumbnail exactly")
        #expect(h.disk!.store.data(for: "source:3") == nil, "the original is never kept")
        h.disappear(3)
        let again = h.appear(3)
        #expect(again.origin == .diskThumbnail)
        #expect(h.lookup(3)!.hasSamePixels(as: made))
        #expect(h.metrics.diskThumbnailHits == 1 && h.metrics.diskHits == 1 && h.metrics.sourceReads == 1)
        h.settle()
        #expect(h.metrics.diskWrites == 1, "a thumbnail read from disk is not written again")
    }

    @Test("every part of the transform is in the key: another size, quality or light is another entry")
    func transformKeys() throws {
        let keys = [
            RetentionPolicy.DiskTier.thumbnailKey("a", .thumbnail(maxPixelSize: 256)),
            RetentionPolicy.DiskTier.thumbnailKey("a", .thumbnail(maxPixelSize: 128)),
            RetentionPolicy.DiskTier.thumbnailKey("a", .thumbnail(maxPixelSize: 256, quality: .fast)),
            RetentionPolicy.DiskTier.thumbnailKey("a", .thumbnail(maxPixelSize: 256, linearLight: true)),
        ].compactMap { $0 }
        #expect(keys == ["thumbnail:256:good:fit:gamma:a", "thumbnail:128:good:fit:gamma:a", "thumbnail:256:fast:fit:gamma:a",
                         "thumbnail:256:good:fit:linear:a"])
        #expect(RetentionPolicy.DiskTier.thumbnailKey("a", .decoded) == nil)
        #expect(RetentionPolicy.DiskTier.sourceKey("a") == "source:a")
        // A cache making 8 px fast thumbnails over a store holding 16 px good ones does not hit them.
        let disk = try TemporaryStore("disk-transform")
        let sixteen = Harness(Self.smallThumbnails.with { $0.disk?.budget = .megabytes(50) }, disk: disk)
        sixteen.appear(2)
        sixteen.settle()
        let eight = Harness(Self.smallThumbnails.with {
            $0.visible = .thumbnail(maxPixelSize: 8, quality: .fast)
            $0.disk?.budget = .megabytes(50)
        }, disk: disk)
        #expect(eight.appear(2).origin == .source)
        #expect(eight.lookup(2)!.width == 8)
        eight.settle()
        #expect(disk.store.data(for: "thumbnail:8:fast:fit:gamma:2") != nil)
    }

    @Test("a tier keeping the source and thumbnails writes both, and a lost thumbnail is made again from the disk's bytes")
    func sourceAndThumbnails() throws {
        let h = Harness(Self.smallThumbnails.with { $0.disk?.source = true })
        h.appear(4)
        h.settle()
        #expect(h.metrics.diskWrites == 2)
        #expect(h.disk!.store.remove("thumbnail:16:good:fit:gamma:4"))
        h.disappear(4)
        #expect(h.appear(4).origin == .disk)
        h.settle()
        #expect(h.metrics.diskWrites == 3, "the thumbnail made from the disk's bytes is written; the bytes are not")
        #expect(h.reads.readCount(4) == 1)
    }

    @Test("a compressed memory tier keeps bytes read from disk as it keeps bytes from the source")
    func compressedTierKeepsDiskBytes() throws {
        let policy = RetentionPolicy.tiered.with { $0.disk = .init(source: true, budget: .megabytes(50)) }
        let disk = try TemporaryStore("disk-tiered")
        try disk.store.store(Fixtures.images[9]!, for: "source:9")
        let h = Harness(policy, disk: disk)
        #expect(h.appear(9).origin == .disk)
        #expect(h.usage.byRepresentation.compressed == Fixtures.images[9]!.count)
        h.disappear(9)
        h.warn(.critical) // the bitmap LRU and the compressed LRU are emptied
        h.appear(9)
        #expect(h.reads.totalReads == 0)
    }

    // MARK: - Coalescing across tiers

    /// A `decoded-lru+disk` cache with one asynchronous worker, over a store already holding
    /// key 5's bytes; key 99's source read waits at `gate`, so a load queued behind it waits too.
    func cacheWithKey5OnDisk(_ name: String, gate: Gate) throws -> Harness {
        let disk = try TemporaryStore(name)
        try disk.store.store(Fixtures.images[5]!, for: "source:5")
        return Harness(.decodedLRUDisk.with { $0.disk?.budget = .megabytes(50) }, mode: .asynchronous(workers: 1),
                       images: Fixtures.images.merging([99: Fixtures.images[0]!]) { a, _ in a }, gate: gate, disk: disk)
    }

    @Test("100 concurrent requests for a key on disk cause one disk read and no source read")
    func coalesceOnDisk() async throws {
        let gate = Gate()
        // The one worker is held by key 99's source read, so all 100 requests meet one queued load.
        let h = try cacheWithKey5OnDisk("disk-coalesce-hit", gate: gate)
        let blocker = Task { try await h.cache.image(for: 99) }
        try await Polling.eventually { gate.takeArrival() }
        let bitmaps = try await withThrowingTaskGroup(of: Bitmap.self) { group in
            for _ in 0..<100 { group.addTask { try await h.cache.image(for: 5) } }
            try await Polling.eventually { h.metrics.coalescedRequests == 99 }
            gate.open()
            var all: [Bitmap] = []
            for try await bitmap in group { all.append(bitmap) }
            return all
        }
        _ = try await blocker.value
        await h.cache.idle()
        #expect(bitmaps.count == 100 && bitmaps.allSatisfy { $0 === bitmaps[0] })
        #expect(try bitmaps[0].hasSamePixels(as: original(5)))
        #expect(h.reads.readCount(5) == 0)
        let m = h.metrics
        #expect(m.diskHits == 1, "one disk read for key 5")
        #expect(m.sourceReads == 1, "key 99 only")
        #expect(m.diskWrites == 1, "key 99's bytes; nothing for key 5")
        h.check()
    }

    @Test("100 concurrent requests for a key not on disk cause one source read and one write")
    func coalesceFromSource() async throws {
        let gate = Gate()
        let h = Harness(.decodedReleaseDisk, mode: .asynchronous(workers: 4), gate: gate)
        let bitmaps = try await withThrowingTaskGroup(of: Bitmap.self) { group in
            for _ in 0..<100 { group.addTask { try await h.cache.image(for: 6) } }
            try await Polling.eventually { h.metrics.coalescedRequests == 99 }
            gate.open()
            var all: [Bitmap] = []
            for try await bitmap in group { all.append(bitmap) }
            return all
        }
        await h.cache.idle()
        #expect(bitmaps.count == 100 && bitmaps.allSatisfy { $0 === bitmaps[0] })
        let m = h.metrics
        #expect(m.sourceReads == 1 && h.reads.readCount(6) == 1)
        #expect(m.diskHits == 0 && m.diskMisses == 1, "one lookup that found nothing (a failed open), before the source")
        #expect(m.diskWrites == 1)
        h.check()
    }

    @Test("a load finishing while the key's write is still pending does not write it again")
    func noSecondWriteWhilePending() async throws {
        // The writer is held by a job of the test's, so the key's first write still waits when
        // a second load of the key (after its release) finishes.
        let h = Harness(.decodedReleaseDisk, mode: .synchronous)
        let writerHeld = DispatchSemaphore(value: 0)
        let writerFree = DispatchSemaphore(value: 0)
        h.cache.diskTier!.writer.submit {
            writerHeld.signal()
            writerFree.wait()
        }
        writerHeld.wait()
        h.appear(1)
        h.disappear(1)
        #expect(h.appear(1).origin == .source, "not on disk yet: the write waits behind the held writer")
        writerFree.signal()
        h.settle()
        #expect(h.metrics.sourceReads == 2)
        #expect(h.metrics.diskWrites == 1, "the second load found the write pending")
        #expect(h.disk!.store.data(for: "source:1") == Fixtures.images[1])
    }

    // MARK: - Cancellation

    @Test("a row that disappears before its load runs cancels its pending disk read")
    func cancelPendingDiskRead() async throws {
        let gate = Gate()
        let h = try cacheWithKey5OnDisk("disk-cancel", gate: gate)
        #expect(h.appear(99).status == .pending)
        #expect(gate.waitForArrival())
        #expect(h.appear(5).status == .pending) // queued behind key 99
        h.disappear(5)
        #expect(h.metrics.cancelledLoads == 1)
        gate.open()
        h.settle()
        let m = h.metrics
        #expect(m.diskHits == 0, "the disk read of key 5 never ran")
        #expect(m.diskMisses == 1, "key 99's lookup only")
        #expect(h.lookup(5) == nil && h.usage.entryCount == 1)
    }

    @Test("in scheduled mode a row that disappears before its start costs no disk read")
    func scheduledCancel() throws {
        let disk = try TemporaryStore("disk-scheduled")
        try disk.store.store(Fixtures.images[5]!, for: "source:5")
        let h = Harness(.decodedLRUDisk.with { $0.disk?.budget = .megabytes(50) }, mode: .scheduled(workers: 1), disk: disk)
        #expect(h.appear(5).status == .pending)
        h.disappear(5)
        #expect(!h.cache.startLoad(5))
        h.settle()
        #expect(h.metrics.diskReads == 0 && h.metrics.cancelledLoads == 1)
        #expect(h.appear(5).status == .pending)
        #expect(h.cache.startLoad(5))
        h.settle()
        #expect(h.metrics.diskHits == 1 && h.lookup(5) != nil)
    }

    // MARK: - Damaged entries

    @Test("a damaged entry file is a miss: the store removes it and the source is read")
    func damagedEntryFile() throws {
        let h = Harness(.decodedReleaseDisk)
        h.appear(2)
        h.settle()
        h.disappear(2)
        let file = try #require(h.disk!.entryFile("source:2"))
        var bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        bytes[bytes.count / 2] ^= 0xFF // one flipped byte in the payload
        try bytes.write(to: URL(fileURLWithPath: file))
        let again = h.appear(2)
        #expect(again.origin == .source)
        #expect(try h.lookup(2)!.hasSamePixels(as: original(2)))
        #expect(h.disk!.store.metrics.corruptEntries == 1)
        #expect(h.metrics.diskHits == 0 && h.metrics.diskMisses == 2)
        h.settle()
        #expect(h.disk!.store.data(for: "source:2") == Fixtures.images[2], "written again, whole")
    }

    @Test("an entry that reads whole but does not decode is removed and read as a miss, never served")
    func undecodableEntry() throws {
        let h = Harness(.decodedReleaseDisk)
        try h.disk!.store.store(Fixtures.corrupt, for: "source:8")
        let outcome = h.appear(8)
        #expect(outcome.status == .decoded && outcome.origin == .source)
        #expect(try h.lookup(8)!.hasSamePixels(as: original(8)))
        let m = h.metrics
        #expect(m.diskCorruptEntries == 1 && m.diskHits == 0 && m.diskMisses == 1 && m.failedDecodes == 0)
        h.settle()
        #expect(h.disk!.store.data(for: "source:8") == Fixtures.images[8], "the good bytes replaced it")
    }

    @Test("a stored thumbnail larger than the transform's size is not this policy's thumbnail: removed, made again")
    func wrongThumbnail() throws {
        let h = Harness(Self.smallThumbnails)
        try h.disk!.store.store(Fixtures.images[3]!, for: "thumbnail:16:good:fit:gamma:3") // a 64 × 48 PNG
        #expect(h.appear(3).origin == .source)
        #expect(h.lookup(3)!.width == 16)
        #expect(h.metrics.diskCorruptEntries == 1)
        h.settle()
        #expect(try PNGDecoder().decode(h.disk!.store.data(for: "thumbnail:16:good:fit:gamma:3")!).width == 16)
    }

    // MARK: - A full or failing disk

    @Test("a full disk costs writes, never an image: failures are counted and loads go on", arguments: [ENOSPC, EDQUOT])
    func fullDisk(code: Int32) throws {
        let h = Harness(.decodedReleaseDisk)
        let folder = h.disk!.folder
        SystemFaults.with(code, into: .write, whenPathContains: folder) { () -> Void in
            SystemFaults.with(EIO, into: .fileSystemStatus, whenPathContains: folder) { () -> Void in
                for key in 0..<6 {
                    #expect(h.appear(key).status == .decoded)
                    h.settle()
                }
                for key in 0..<6 { h.disappear(key) }
                for key in 0..<6 { #expect(h.appear(key).origin == .source, "nothing reached the disk") }
                h.settle()
            }
        }
        let m = h.metrics
        #expect(m.diskWrites == 0)
        #expect(m.diskWriteFailures == 12, "every write failed: the first on the disk, the rest refused while paused")
        #expect(h.disk!.store.metrics.writesPaused)
        #expect((0..<6).allSatisfy { h.lookup($0) != nil })
    }

    @Test("a store at its limit evicts older entries and stays within it")
    func storeAtItsLimit() throws {
        // 64 KiB (the least a cache takes): room for a handful of the ~3-7 KB fixtures' entry
        // files (4 KB blocks).
        let h = Harness(.decodedReleaseDisk.with { $0.disk?.budget = ByteSize(bytes: DiskStore.minimumLimitBytes) })
        for key in 0..<40 {
            h.appear(key)
            h.disappear(key)
            h.settle()
            #expect(h.disk!.store.usage <= DiskStore.minimumLimitBytes)
        }
        #expect(h.metrics.diskWrites == 40 && h.metrics.diskWriteFailures == 0)
        #expect((h.disk!.store.metrics.evictions[.size] ?? 0) > 0)
        #expect(h.appear(39).origin == .disk, "the most recent entry is kept")
        #expect(h.appear(0).origin == .source, "the oldest was evicted")
    }

    @Test("an entry larger than the store's limit is a counted failure, and a smaller budget than the store's limit is kept by trimming")
    func entryTooLargeAndBudgetTrim() throws {
        // The smallest store a cache takes, and an image of noise larger than it.
        let tiny = try TemporaryStore("disk-tiny", limit: DiskStore.minimumLimitBytes)
        var random = SystemRandomNumberGenerator()
        let noise = try Bitmap(width: 200, height: 200) { buffer, _ in
            for i in buffer.indices { buffer[i] = UInt8.random(in: 0...255, using: &random) }
        }
        let large = try PNGEncoder(compressionLevel: 1).encode(noise)
        #expect(large.count > DiskStore.minimumLimitBytes)
        let h = Harness(.decodedReleaseDisk.with { $0.disk?.budget = ByteSize(bytes: DiskStore.minimumLimitBytes) },
                        images: [1: large], disk: tiny)
        #expect(h.appear(1).status == .decoded)
        h.settle()
        #expect(h.metrics.diskWriteFailures == 1 && h.metrics.diskWrites == 0)
        // A 40 KB budget on a 10 MB store: the cache trims the store to its budget.
        let roomy = try TemporaryStore("disk-trim", limit: 10_000_000)
        let trimmed = Harness(.decodedReleaseDisk.with { $0.disk?.budget = .kilobytes(40) }, disk: roomy)
        for key in 0..<30 {
            trimmed.appear(key)
            trimmed.settle()
        }
        #expect(roomy.store.usage <= 40_000)
        #expect((roomy.store.metrics.evictions[.trim] ?? 0) > 0)
    }

    @Test("a closed store reads as misses and refuses writes: the cache goes on from the source")
    func closedStore() throws {
        let h = Harness(.decodedReleaseDisk)
        h.disk!.store.close()
        for key in 0..<3 { #expect(h.appear(key).status == .decoded) }
        h.settle()
        #expect(h.metrics.diskWriteFailures == 3 && h.metrics.diskMisses == 3 && h.metrics.sourceReads == 3)
    }

    @Test("the disk tier's writer thread ends with the cache")
    func writerEnds() throws {
        var h: Harness? = Harness(.decodedReleaseDisk)
        h!.appear(1)
        h!.settle()
        let writer = h!.cache.diskTier!.writer
        #expect(writer.liveThreads == 1)
        h = nil
        for _ in 0..<1000 where writer.liveThreads > 0 { usleep(1000) }
        #expect(writer.liveThreads == 0)
    }
}
