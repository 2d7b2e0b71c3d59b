import Foundation
import Glibc
import Testing
@testable import SystemIO

@Suite("FileDescriptor, TemporaryFile and the file operations")
struct FileDescriptorTests {
    @Test("an owned descriptor reads, writes, syncs, stats and closes once; take hands the number over")
    func ownedDescriptor() throws {
        let folder = temporaryFolder()
        defer { try? FileIO.removeTree(folder) }
        let path = folder + "/f.bin"
        let writer = try FileDescriptor.open(path, .writeOnly, options: [.create, .exclusive])
        try writer.write(Data(repeating: 7, count: 10_000))
        try writer.sync()
        let status = try writer.status()
        #expect(status.size == 10_000 && status.kind == .regular && status.allocatedBytes >= 8192)
        try writer.close()
        let again = #expect(throws: SystemError.self) { _ = try FileDescriptor.open(path, .writeOnly, options: [.create, .exclusive]) }
        #expect(again?.description == "cannot open \(path): File exists")
        let reader = try FileDescriptor.openRegularFile(path)
        var buffer = [UInt8](repeating: 0, count: 4)
        #expect(try buffer.withUnsafeMutableBytes { try reader.read(into: $0, at: 9_998) } == 2)
        #expect(try reader.readAll().count == 10_000)
        let number = reader.take()
        #expect(fcntl(number, F_GETFD) >= 0, "take() must not close")
        #expect(fcntl(number, F_GETFD) & FD_CLOEXEC != 0, "every descriptor is close-on-exec")
        close(number)
    }

    @Test("flock: a second open file description cannot take the lock while the first holds it")
    func locks() throws {
        let folder = temporaryFolder()
        defer { try? FileIO.removeTree(folder) }
        let path = folder + "/lock"
        let first = try FileDescriptor.open(path, .readWrite, options: .create)
        let second = try FileDescriptor.open(path, .readWrite)
        #expect(try first.lock())
        #expect(try !second.lock())
        try first.unlock()
        #expect(try second.lock())
    }

    @Test("a temporary file is removed unless committed, and a commit replaces its destination in one step")
    func temporaryFiles() throws {
        let folder = temporaryFolder()
        defer { try? FileIO.removeTree(folder) }
        let destination = folder + "/out.json"
        try FileIO.replace(destination, with: Data("old".utf8))
        #expect(chmod(destination, 0o640) == 0)
        do {
            let dropped = try TemporaryFile(beside: destination)
            try dropped.write(Data("never".utf8))
            #expect(FileIO.exists(dropped.path))
        }
        #expect(try FileIO.directoryEntries(folder) == ["out.json"])
        let file = try TemporaryFile(beside: destination)
        try file.write(Data("new".utf8))
        try file.commit(to: destination, durable: true)
        #expect(try String(contentsOfFile: destination, encoding: .utf8) == "new")
        #expect(FileIO.status(of: destination)?.permissions == 0o640)
        #expect(try FileIO.directoryEntries(folder) == ["out.json"])
        let named = try TemporaryFile(in: folder, prefix: "costs-", suffix: ".json")
        #expect(named.path.hasPrefix(folder + "/costs-\(getpid())-") && named.path.hasSuffix(".json"))
        let kept = named.keep()
        #expect(FileIO.exists(kept))
    }

    @Test("an injected ENOSPC fails the write with the destination's name and leaves no temporary file")
    func diskFullIsAnError() throws {
        let folder = temporaryFolder()
        defer { try? FileIO.removeTree(folder) }
        let destination = folder + "/out.json"
        try FileIO.replace(destination, with: Data("old".utf8))
        let error = SystemFaults.with(ENOSPC, into: .write, whenPathContains: folder) {
            #expect(throws: SystemError.self) { try FileIO.replace(destination, with: Data("new".utf8)) }
        }
        #expect(error?.description == "cannot write \(destination): No space left on device")
        #expect(try String(contentsOfFile: destination, encoding: .utf8) == "old")
        #expect(try FileIO.directoryEntries(folder) == ["out.json"])
        // Spent after one use.
        SystemFaults.with(EIO, into: .rename, whenPathContains: folder, times: 1) {
            #expect(throws: SystemError.self) { try FileIO.replace(destination, with: Data("x".utf8)) }
            #expect(throws: Never.self) { try FileIO.replace(destination, with: Data("y".utf8)) }
        }
        #expect(try String(contentsOfFile: destination, encoding: .utf8) == "y")
    }

    @Test("remove, removeTree, rename and exists name the path in their errors")
    func operations() throws {
        let folder = temporaryFolder()
        defer { try? FileIO.removeTree(folder) }
        try FileIO.createDirectories(folder + "/a/b")
        try FileIO.replace(folder + "/a/b/c.txt", with: Data("c".utf8))
        try FileIO.rename(folder + "/a/b/c.txt", to: folder + "/a/d.txt")
        #expect(FileIO.exists(folder + "/a/d.txt") && !FileIO.exists(folder + "/a/b/c.txt"))
        let missing = #expect(throws: SystemError.self) { try FileIO.remove(folder + "/nope") }
        #expect(missing?.description == "cannot remove \(folder)/nope: No such file or directory")
        let full = #expect(throws: SystemError.self) { try FileIO.remove(folder + "/a") }
        #expect(full?.description == "cannot remove \(folder)/a: Directory not empty")
        try FileIO.remove(folder + "/a/b")
        try FileIO.removeTree(folder + "/a")
        #expect(!FileIO.exists(folder + "/a"))
        try FileIO.removeTree(folder + "/a")
        let rename = #expect(throws: SystemError.self) { try FileIO.rename(folder + "/x", to: folder + "/y") }
        #expect(rename?.description == "cannot replace \(folder)/y: No such file or directory")
        #expect(FileIO.executablePath?.hasPrefix("/") == true)
    }
}
