#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Glibc
import SystemIO

/// Paths every test target needs: the package root and the vendored corpora.
public enum TestPaths {
    /// Fills `folder` with someone's files laid out like a disk store's (`tmp/` with a name of
    /// the writers' form among others, `entries/` with a subfolder and a file named like an
    /// entry, `lock`, `index`) and no marker: what a store must refuse and leave alone. A few
    /// file writes.
    public static func plantForeignFolder(_ folder: String) throws {
        try FileIO.createDirectories(folder + "/tmp")
        try FileIO.createDirectories(folder + "/entries/sub")
        try FileIO.replace(folder + "/tmp/draft.txt", with: Array("draft".utf8))
        try FileIO.replace(folder + "/tmp/.rtn-1-1.tmp", with: Array("looks like ours".utf8))
        try FileIO.replace(folder + "/lock", with: Array("my lock notes".utf8))
        try FileIO.replace(folder + "/index", with: Array("my index".utf8))
        try FileIO.replace(folder + "/entries/sub/f", with: Array("nested".utf8))
        try FileIO.replace(folder + "/entries/00000000000000ab", with: Array("named like an entry".utf8))
    }

    /// Every name below `folder` with its type, size, modification time and inode, sorted: a
    /// listing to compare before and after, so a test sees any file created, changed, replaced
    /// or removed. O(entries) `lstat`s.
    public static func tree(_ folder: String) -> [String] {
        FileIO.entries(under: folder).map { name in
            let status = FileIO.status(of: folder + "/" + name, followLinks: false)
            return "\(name) \(status.map { "\($0.kind) \($0.size) \($0.modificationNanoseconds) \($0.inode)" } ?? "gone")"
        }
    }

    /// The package's root folder, found from this file's path (Tests/RetentionTestSupport/…).
    public static let packageRoot: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()

    /// The committed assets' images folder.
    public static var assetsImages: String { packageRoot + "/assets/images" }

    /// The corpora's root: `Tests/Fixtures` in the package, or `RETENTION_TESTDATA` when set.
    public static var fixtures: String {
        ProcessInfo.processInfo.environment["RETENTION_TESTDATA"] ?? packageRoot + "/Tests/Fixtures"
    }

    /// The corpus folder `name` (`pngsuite`, `broken`), or the one-line reason it is missing,
    /// which a test records as its failure.
    public static func fixtureFolder(_ name: String) -> Result<String, MissingFixture> {
        let path = fixtures + "/" + name
        guard FileIO.kind(of: path) == .directory else { return .failure(MissingFixture(path: path)) }
        return .success(path)
    }

    /// A fresh, empty folder under the system's temporary folder for one test; the caller removes it.
    public static func temporaryFolder(_ name: String) throws -> String {
        let path = TemporaryFile.systemFolder + "/retention-\(name)-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileIO.createDirectories(path)
        return path
    }

    /// Copies the regular file `source` to `destination` (replaced atomically if it exists),
    /// through SystemIO: one read of the whole file and one write.
    public static func copyFile(_ source: String, to destination: String) throws {
        try FileIO.replace(destination, with: FileIO.readAll(source))
    }
}

/// A corpus folder that is not there, with the message a test records.
public struct MissingFixture: Error, CustomStringConvertible {
    /// The folder looked for.
    public var path: String
    /// "test corpus missing: …".
    public var description: String {
        "test corpus missing: \(path) does not exist. These tests read Tests/Fixtures (PngSuite and broken PNGs); RETENTION_TESTDATA, when set, replaces that folder."
    }
}
