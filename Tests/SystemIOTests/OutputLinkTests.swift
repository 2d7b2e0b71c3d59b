import Foundation
import Glibc
import Testing
@testable import SystemIO

/// The uid the tests plant links as: `nobody`, another user than the one running the tests.
private let otherUser: uid_t = 65534

/// Makes `folder` shared like `/tmp`: sticky and writable by every user.
private func makeShared(_ folder: String) {
    #expect(chmod(folder, 0o1777) == 0)
}

/// Plants a symbolic link at `link` to `target` owned by `otherUser`, as that user would.
private func plantForeignLink(_ target: String, at link: String) {
    #expect(symlink(target, link) == 0)
    #expect(lchown(link, otherUser, gid_t(otherUser)) == 0)
}

@Suite("FileIO: an output never follows a link another user planted in a shared folder")
struct OutputLinkTests {
    @Test("the rule is the kernel's protected_symlinks: refused only in a sticky, world-writable folder for a link neither we nor the folder's owner own")
    func rule() throws {
        let me = UInt32(geteuid()), stranger = me &+ 4242
        var link = FileIO.Status(kind: .symbolicLink, size: 0, device: 1, inode: 2)
        var folder = FileIO.Status(kind: .directory, size: 0, device: 1, inode: 3)
        link.owner = stranger
        folder.owner = stranger &+ 1
        folder.permissions = 0o1777
        let error = #expect(throws: SystemError.self) { try FileIO.checkFollowable(link: link, folder: folder, path: "/tmp/shared/out") }
        #expect(error?.description == "cannot write through /tmp/shared/out: it is a symbolic link that user \(stranger) put in a folder every user may write in (sticky, mode 1777); following it could replace another user's file, so it is not followed")
        folder.permissions = 0o0777  // not sticky
        try FileIO.checkFollowable(link: link, folder: folder, path: "x")
        folder.permissions = 0o1775  // sticky, not world-writable
        try FileIO.checkFollowable(link: link, folder: folder, path: "x")
        folder.permissions = 0o1777
        link.owner = me  // our own link
        try FileIO.checkFollowable(link: link, folder: folder, path: "x")
        link.owner = folder.owner  // the folder owner's link
        try FileIO.checkFollowable(link: link, folder: folder, path: "x")
    }

    @Test("a foreign link at the output, or on the way to it, leaves the victim's file byte for byte: replace, checkWritable, LineFile and StagedFile refuse it",
          .enabled(if: geteuid() == 0, "lchown to another user needs root (CI runs as root)"))
    func plantedLinks() throws {
        let root = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let victimFolder = root + "/victim", shared = root + "/shared"
        try FileIO.createDirectories(victimFolder)
        try FileIO.createDirectories(shared)
        makeShared(shared)
        let precious = victimFolder + "/precious.txt"
        let original = Data("the victim's words\n".utf8)
        try original.write(to: URL(fileURLWithPath: precious))
        plantForeignLink(precious, at: shared + "/out")
        plantForeignLink(victimFolder, at: shared + "/dir")
        for path in [shared + "/out", shared + "/dir/precious.txt", shared + "/./dir/../out"] {
            let error = #expect(throws: SystemError.self) { try FileIO.replace(path, with: Data("report".utf8)) }
            #expect(error?.description.contains("is not followed") == true, "\(path): \(String(describing: error))")
            #expect(throws: SystemError.self) { try FileIO.checkWritable(path) }
            #expect(throws: SystemError.self) { try LineFile(replacing: path, header: "h") }
            #expect(throws: SystemError.self) { try StagedFile(replacing: path) }
            #expect(!FileIO.replacesAtomically(path))
        }
        #expect(try FileIO.readAll(precious) == original)
        #expect(FileIO.kind(of: shared + "/out", followLinks: false) == .symbolicLink)
        // The same link, owned by this user, is followed as the user meant it.
        #expect(lchown(shared + "/out", geteuid(), getegid()) == 0)
        try FileIO.replace(shared + "/out", with: Data("mine".utf8))
        #expect(try FileIO.readAll(precious) == Data("mine".utf8))
    }

    @Test("a link this user made in their own folder is followed, also through a folder link and a relative target")
    func ownLinks() throws {
        let root = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileIO.createDirectories(root + "/real/sub")
        #expect(symlink("real", root + "/alias") == 0)
        #expect(symlink("sub/file.txt", root + "/real/link") == 0)
        try FileIO.replace(root + "/alias/link", with: Data("x".utf8))
        #expect(try FileIO.readAll(root + "/real/sub/file.txt") == Data("x".utf8))
        #expect(FileIO.kind(of: root + "/real/link", followLinks: false) == .symbolicLink)
        #expect(try FileIO.resolvedForWriting(root + "/alias/link") == root + "/real/sub/file.txt")
        #expect(try FileIO.resolvedForWriting(root + "/alias/../alias/./missing/x") == root + "/real/missing/x")
        #expect(symlink("loop", root + "/loop") == 0)
        let loop = #expect(throws: SystemError.self) { try FileIO.replace(root + "/loop", with: Data()) }
        #expect(loop?.errno == ELOOP)
    }

    @Test("an empty path is refused by name, and the running program is never replaced")
    func emptyAndProgram() throws {
        let empty = #expect(throws: SystemError.self) { try FileIO.checkWritable("") }
        #expect(empty?.description == "cannot write '': an empty path names no file")
        let program = try #require(FileIO.executablePath)
        let before = FileIO.status(of: program).map { [$0.inode, UInt64($0.size)] }
        let error = #expect(throws: SystemError.self) { try FileIO.replace(program, with: Data("{}".utf8)) }
        #expect(error?.description == "cannot write \(program): it is this running program; writing it would replace the program")
        #expect(FileIO.status(of: program).map { [$0.inode, UInt64($0.size)] } == before)
    }
}
