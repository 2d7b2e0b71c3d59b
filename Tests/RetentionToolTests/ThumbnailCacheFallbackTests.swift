import Foundation
import Glibc
import Lab
import RetentionTestSupport
import SystemIO
import Testing
@testable import RetentionTool

/// `thumbnail --cache` on a file system without hard links (vfat, exFAT, SMB refuse `linkat`
/// with EPERM or EOPNOTSUPP), injected through SystemIO's fault seam: the cache still works
/// where a rename that never replaces does, and where nothing can place its marker, the batch
/// costs only the cache: every thumbnail is made, with one note.
@Suite("thumbnail --cache without hard links")
struct ThumbnailCacheFallbackTests {
    /// Notes a batch printed: a `Lock`, since the batch's workers note from their threads.
    final class Notes: Sendable {
        private let lines = Lock<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var sink: ProgressSink { ProgressSink(progress: { _, _ in }, note: { [self] line in add(line) }, isTerminal: false) }
    }

    /// Three committed images copied into `folder`/in; returns their paths.
    func inputs(_ folder: String) throws -> [String] {
        try FileIO.createDirectories(folder + "/in")
        return try ["gray-600x400-01.png", "alpha-600x400-01.png", "palette-600x400-01.png"].map { name in
            let path = folder + "/in/" + name
            try FileIO.replace(path, with: try FileIO.readAll(TestPaths.assetsImages + "/" + name))
            return path
        }
    }

    func job(_ folder: String, _ inputs: [String]) -> ThumbnailJob {
        var job = ThumbnailJob(inputs: inputs)
        job.output = folder + "/out"
        job.cacheFolder = folder + "/cache"
        return job
    }

    @Test("linkat refused (EPERM, EOPNOTSUPP): the marker is placed by a rename that never replaces, the thumbnails are made and cached, and a second batch takes them from the cache",
          arguments: [EPERM, EOPNOTSUPP])
    func withoutLinks(code: Int32) throws {
        let folder = try TestPaths.temporaryFolder("thumb-nolink-\(code)")
        defer { try? FileIO.removeTree(folder) }
        let files = try inputs(folder)
        let notes = Notes()
        try SystemFaults.with(code, into: .link, whenPathContains: folder) {
            let first = try job(folder, files).run(sink: notes.sink)
            #expect(first.files == 3 && first.failed == 0)
            let second = try job(folder, files).run(sink: notes.sink)
            #expect(second.fromCache == 3, "\(second.line)")
        }
        #expect(notes.all.isEmpty, "\(notes.all)")
        #expect(FileIO.kind(of: folder + "/cache/RETENTION-STORE") == .regular)
    }

    @Test("neither linkat nor renameat2 works: every thumbnail is made without the cache, with one note")
    func neitherWorks() throws {
        let folder = try TestPaths.temporaryFolder("thumb-nocache")
        defer { try? FileIO.removeTree(folder) }
        let files = try inputs(folder)
        let notes = Notes()
        let summary = try SystemFaults.with(EPERM, into: .link, whenPathContains: folder) {
            try SystemFaults.with(EINVAL, into: .renameNoReplace, whenPathContains: folder) {
                try job(folder, files).run(sink: notes.sink)
            }
        }
        #expect(summary.files == 3 && summary.failed == 0, "\(summary.line)")
        #expect(try FileIO.directoryEntries(folder + "/out").sorted() == ["alpha-600x400-01.png", "gray-600x400-01.png", "palette-600x400-01.png"])
        #expect(notes.all == ["retention thumbnail: --cache: cannot make a disk store in \(folder)/cache: Operation not permitted; the thumbnails are made without the cache"],
                "\(notes.all)")
    }
}
