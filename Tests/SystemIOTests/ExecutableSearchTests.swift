import Glibc
import Testing
import SystemIO

@Suite("ChildProcess.executablePath: a command found as a shell finds it")
struct ExecutableSearchTests {
    @Test("a bare name is searched in the path's folders, first match wins; a path is taken as it is")
    func searchesThePath() throws {
        let folder = TemporaryFile.systemFolder + "/rtn-search-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileIO.createDirectories(folder + "/a")
        try FileIO.createDirectories(folder + "/b")
        defer { try? FileIO.removeTree(folder) }
        try FileIO.replace(folder + "/b/tool", with: Array("#!/bin/sh\n".utf8))
        #expect(chmod(folder + "/b/tool", 0o755) == 0)
        try FileIO.replace(folder + "/a/plain", with: Array("data".utf8))
        #expect(ChildProcess.executablePath(of: "tool", searchPath: folder + "/a:" + folder + "/b") == folder + "/b/tool")
        // Not executable, a folder, missing, empty: none is found.
        #expect(ChildProcess.executablePath(of: "plain", searchPath: folder + "/a") == nil)
        #expect(ChildProcess.executablePath(of: "a", searchPath: folder) == nil)
        #expect(ChildProcess.executablePath(of: "no-such-tool-here", searchPath: folder + "/a:" + folder + "/b") == nil)
        #expect(ChildProcess.executablePath(of: "") == nil)
        #expect(ChildProcess.executablePath(of: folder + "/b/tool") == folder + "/b/tool")
        #expect(ChildProcess.executablePath(of: folder + "/a/plain") == nil)
        #expect(ChildProcess.executablePath(of: "sh") != nil)
    }

    @Test("a FIFO or a device on the path is not a program")
    func specialFilesAreNotPrograms() throws {
        let folder = TemporaryFile.systemFolder + "/rtn-search-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileIO.createDirectories(folder)
        defer { try? FileIO.removeTree(folder) }
        try FileIO.makeFIFO(folder + "/fifo", permissions: 0o755)
        #expect(ChildProcess.executablePath(of: "fifo", searchPath: folder) == nil)
        #expect(ChildProcess.executablePath(of: "/dev/null") == nil)
    }
}
