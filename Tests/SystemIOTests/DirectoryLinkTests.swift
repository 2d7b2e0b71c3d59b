import Foundation
import Glibc
import Testing
@testable import SystemIO

/// `Directory.link`: a second name for a file, never replacing what is there, so that of two
/// processes placing the same name exactly one wins.
@Suite("Directory.link")
struct DirectoryLinkTests {
    @Test("a file gets a second name; an existing name is refused (EEXIST) and kept; a missing one is ENOENT; a FIFO is linked, never opened")
    func link() throws {
        let folder = temporaryFolder()
        defer { try? FileIO.removeTree(folder) }
        let root = try Directory.open(folder)
        try FileIO.replace(folder + "/whole", with: Array("marker".utf8))
        try root.link("whole", to: "placed", in: root)
        #expect(try FileIO.readAll(folder + "/placed") == Data("marker".utf8))
        #expect(FileIO.status(of: folder + "/placed")?.inode == FileIO.status(of: folder + "/whole")?.inode)

        try FileIO.replace(folder + "/other", with: Array("theirs".utf8))
        #expect { try root.link("other", to: "placed", in: root) } throws: { ($0 as? SystemError)?.errno == EEXIST }
        #expect(try FileIO.readAll(folder + "/placed") == Data("marker".utf8))
        #expect { try root.link("missing", to: "new", in: root) } throws: { ($0 as? SystemError)?.errno == ENOENT }
        #expect(!FileIO.exists(folder + "/new"))

        try FileIO.makeFIFO(folder + "/fifo")
        try root.link("fifo", to: "fifo-2", in: root)
        #expect(FileIO.kind(of: folder + "/fifo-2") == .special(noun: "a FIFO"))
    }
}
