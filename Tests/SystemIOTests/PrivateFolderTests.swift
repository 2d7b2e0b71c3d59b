import Foundation
import Testing
@testable import SystemIO

@Suite("Directory.openPrivate: a folder only its owner can write, never through a link")
struct PrivateFolderTests {
    @Test("a missing folder is made with mode 700 (parents too), and opens again as it is")
    func createsPrivate() throws {
        let parent = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let folder = try Directory.openPrivate("mine", in: parent + "/a/b")
        #expect(folder.path == parent + "/a/b/mine")
        let status = try folder.status()
        #expect(status.kind == .directory && status.permissions == 0o700 && status.owner == Directory.effectiveUserID)
        #expect(try Directory.openPrivate("mine", in: parent + "/a/b").status().inode == status.inode)
    }

    @Test("a link, a file, or a folder others may write is refused with one sentence, and left as it was")
    func refusesUnsafe() throws {
        let parent = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        try FileIO.createDirectories(parent + "/target")
        try FileIO.makeSymbolicLink(parent + "/link", to: parent + "/target")
        #expect(throws: SystemError(path: parent + "/link", operation: "use the folder", reason: .unsafe("it is a symbolic link, not a folder of this user's"))) {
            try Directory.openPrivate("link", in: parent)
        }
        #expect(try Directory.open(parent).status(of: "link")?.kind == .symbolicLink)
        try FileIO.replace(parent + "/file", with: Array("x".utf8))
        #expect(throws: SystemError.self) { try Directory.openPrivate("file", in: parent) }
        try FileIO.createDirectories(parent + "/open")
        try FileIO.setPermissions(parent + "/open", 0o777)
        do {
            _ = try Directory.openPrivate("open", in: parent)
            Issue.record("a folder every user can write was taken as private")
        } catch {
            #expect(error.description == "cannot use the folder \(parent)/open: other users may write in it (mode 777); only its owner may (mode 700)")
        }
        #expect(FileIO.status(of: parent + "/open")?.permissions == 0o777, "its mode is not changed")
    }
}
