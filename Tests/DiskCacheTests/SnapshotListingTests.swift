import Foundation
import RetentionTestSupport
import SystemIO
import Testing
@testable import DiskCache

/// A snapshot is checked against the files that are there: one whose records were removed and
/// its checksum fixed is corrected from a listing, so the limit holds on disk, not only in the
/// store's own count.
@Suite("Index snapshot checked against the listing")
struct SnapshotListingTests {
    @Test("records removed from a valid snapshot (CRC fixed): the next open indexes what the listing finds, and its limit holds on disk")
    func removedRecordsLeadToARebuild() throws {
        try DiskTest.withFolder("snapshot-cut") { folder in
            let store = try DiskStore(folder: folder, limit: ByteSize(bytes: 64 << 20))
            for i in 0..<13 { try store.store(Array(repeating: UInt8(i), count: 130_000), for: "entry-\(i)") }
            store.close()
            let snapshot = Array(try FileIO.readAll(folder + "/index", limit: 1 << 20))
            let id = Array(try FileIO.readAll(folder + "/RETENTION-STORE", limit: 4096)[12..<28])
            let (header, kept): (IndexSnapshot.Header, IndexSnapshot.Record) = try snapshot.withUnsafeBytes { raw in
                guard case .success(let header) = IndexSnapshot.check(raw, storeID: id) else { throw CheckFailed() }
                return (header, IndexSnapshot.record(raw, header.count - 1))
            }
            #expect(header.count == 13 && header.clean)
            // One record of 13, the folder's time and inode untouched, the checksum right.
            let forged = IndexSnapshot.encode([kept], clean: true, storeID: id,
                                              folderModification: header.folderModification, folderInode: header.folderInode)
            try FileIO.replace(folder + "/index", with: forged)
            // What `retention cache stat` shows: checked against the listing before it answers.
            let viewed = try DiskStore(folder: folder, limit: ByteSize(bytes: 64 << 20))
            viewed.checkIndexAgainstListing()
            #expect(viewed.metrics.entries == 13, "stat shows the forged snapshot's \(viewed.metrics.entries) entries")
            viewed.close()
            try FileIO.replace(folder + "/index", with: forged)
            let reopened = try DiskStore(folder: folder, limit: ByteSize(bytes: 1_000_000))
            reopened.waitForIndex()
            // The snapshot is loaded at once and checked against a listing after; closing waits
            // for that check and the eviction it starts (13 × 130 KB > 1 MB).
            reopened.close()
            #expect(reopened.metrics.indexState == .rebuilt, "the cut snapshot was corrected from the listing")
            let onDisk = DiskTest.allocatedBytes(under: folder + "/entries")
            #expect(onDisk > 0 && onDisk <= 1_000_000, "the limit holds on disk: \(onDisk) bytes")
            #expect(reopened.metrics.bytes >= onDisk, "the store counts what is there: \(reopened.metrics.bytes) < \(onDisk)")
            // A snapshot that names every file is still loaded as it is.
            let again = try DiskStore(folder: folder, limit: ByteSize(bytes: 1_000_000))
            again.waitForIndex()
            again.close()
            #expect(again.metrics.indexState == .fresh)
        }
    }

    struct CheckFailed: Error {}
}
