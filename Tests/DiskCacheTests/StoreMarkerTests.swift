import Dispatch
import Foundation
import RetentionTestSupport
import SystemIO
import Testing
@testable import DiskCache

/// The marker that makes a folder a store appears whole: written under a temporary name and
/// linked into place, so no opener ever reads half of one, and none waits for another.
@Suite struct StoreMarkerTests {
    /// `openers` threads open each of `rounds` new empty folders below `base` at once: every one
    /// gets the store's id, all the same one, and the folder holds the marker (whose id it is)
    /// and the tag, no temporary name.
    func raceOpeners(in base: String, rounds: Int, openers: Int) throws {
        for round in 0..<rounds {
            let folder = base + "/\(round)"
            try FileIO.createDirectories(folder)
            let ids = Lock([[UInt8]?](repeating: nil, count: openers))
            DispatchQueue.concurrentPerform(iterations: openers) { index in
                let opened = try? StoreOpening.open(folder, mode: .automatic, createFolder: false)
                ids.withLock { $0[index] = opened?.id }
            }
            let seen = ids.withLock { $0 }
            #expect(seen.allSatisfy { $0 != nil }, "round \(round): an opener failed")
            #expect(Set(seen.compactMap { $0 }).count == 1, "round \(round): openers disagree on the store's id")
            let marker = try FileIO.readAll(folder + "/RETENTION-STORE")
            #expect(Array(marker[12..<28]) == (seen.first ?? nil))
            #expect(try FileIO.directoryEntries(folder).sorted() == ["CACHEDIR.TAG", "RETENTION-STORE"], "round \(round)")
        }
    }

    @Test("openers racing on one empty folder all read the one marker that was linked, and no temporary name is left")
    func racingOpenersAgree() throws {
        try DiskTest.withFolder("marker-race") { base in try raceOpeners(in: base, rounds: 20, openers: 6) }
    }

    @Test("a marker's temporary name left by a killed opener does not stop a folder from becoming a store, and goes with it; a marker that is not whole is refused at once")
    func leftoversAndHalfMarkers() throws {
        try DiskTest.withFolder("marker-leftover") { folder in
            try FileIO.createDirectories(folder)
            try FileIO.replace(folder + "/" + StoreLayout.markerTemporary(suffix: "dead"), with: Array(repeating: 0, count: 7))
            let store = try DiskStore(folder: folder, limit: .megabytes(1))
            try store.store(Array("v".utf8), for: "k")
            store.close()
            #expect(try FileIO.readAll(folder + "/RETENTION-STORE").count == StoreMarker.size)
            // The leftover is a name the store makes: removing the unused store removes it too.
            #expect(DiskStore.removeFolder(folder))
            #expect(!FileIO.exists(folder))

            let half = folder + "-half"
            defer { try? FileIO.removeTree(half) }
            try FileIO.createDirectories(half)
            try FileIO.replace(half + "/RETENTION-STORE", with: Array(StoreMarker.encode(id: StoreMarker.newID()).prefix(10)))
            let start = ContinuousClock.now
            #expect(throws: DiskStoreError.notAStore(folder: half)) { _ = try DiskStore(folder: half, limit: .megabytes(1)) }
            #expect(ContinuousClock.now - start < .milliseconds(100), "a half marker is refused without a wait")
        }
    }

    @Test("on a file system without hard links (linkat fails with EPERM or EOPNOTSUPP, as on vfat, exFAT and SMB) the marker is placed by a rename that never replaces, and racing openers still agree",
          arguments: [EPERM, EOPNOTSUPP])
    func withoutHardLinks(code: Int32) throws {
        try DiskTest.withFolder("marker-nolink-\(code)") { base in
            try SystemFaults.with(code, into: .link, whenPathContains: base) {
                try raceOpeners(in: base, rounds: 10, openers: 4)
                let store = try DiskStore(folder: base + "/store", limit: .megabytes(1))
                try store.store(Array("v".utf8), for: "k")
                #expect(store.data(for: "k") == Data("v".utf8))
                store.close()
            }
        }
    }

    @Test("where neither a hard link nor a rename without replacing works, opening fails with the link's error and leaves the folder empty")
    func neitherWorks() throws {
        try DiskTest.withFolder("marker-neither") { folder in
            try FileIO.createDirectories(folder)
            let error = SystemFaults.with(EPERM, into: .link, whenPathContains: folder) {
                SystemFaults.with(EINVAL, into: .renameNoReplace, whenPathContains: folder) {
                    #expect(throws: DiskStoreError.self) { _ = try DiskStore(folder: folder, limit: .megabytes(1)) }
                }
            }
            #expect(error?.description == "cannot make a disk store in \(folder): Operation not permitted")
            #expect(try FileIO.directoryEntries(folder).isEmpty)
        }
    }
}
