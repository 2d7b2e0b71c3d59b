import Foundation
import Glibc
import Testing
@testable import SystemIO

/// A fresh folder under the system's temporary folder, removed by the caller.
func temporaryFolder() -> String {
    var template = Array(("/tmp/systemio-XXXXXX").utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    precondition(made != nil, "mkdtemp failed")
    return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

@Suite("FileIO: reads with a cap, writes by the special-file rules")
struct FileIOTests {
    @Test("readAll returns the whole file, and a file over the limit is refused with its size rule")
    func readsAndCaps() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/data.bin"
        let bytes = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect(try FileIO.readAll(path) == bytes)
        #expect(try FileIO.readAll(path, limit: 200_000) == bytes)
        let error = #expect(throws: SystemError.self) { try FileIO.readAll(path, limit: 199_999) }
        #expect(error?.description == "cannot read \(path): it is larger than the limit of 199999 bytes")
    }

    @Test("files of 128 KiB and more, read into pages of their own, come back whole at every size around a page edge")
    func mappedReads() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for size in [FileDescriptor.mappedReadBytes - 1, FileDescriptor.mappedReadBytes, 139_263, 139_264, 139_265, 1_000_003] {
            let path = folder + "/\(size).bin"
            let bytes = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ size) })
            try bytes.write(to: URL(fileURLWithPath: path))
            #expect(try FileIO.readAll(path) == bytes, "\(size) bytes")
            #expect(try FileIO.readAll(path, limit: size) == bytes, "\(size) bytes, limit \(size)")
            #expect(throws: SystemError.self) { try FileIO.readAll(path, limit: size - 1) }
        }
    }

    @Test("files that report no size (/proc) are read whole, and capped too")
    func procFiles() throws {
        let status = try FileIO.readAll("/proc/self/status")
        #expect(String(decoding: status, as: UTF8.self).contains("VmRSS:"))
        #expect(throws: SystemError.self) { try FileIO.readAll("/proc/self/status", limit: 16) }
    }

    @Test("a FIFO, a device and a folder are refused at once, never read")
    func specialFilesRefused() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fifo = folder + "/pipe.png"
        #expect(mkfifo(fifo, 0o644) == 0)
        let fifoError = #expect(throws: SystemError.self) { try FileIO.readAll(fifo) }
        #expect(fifoError?.description == "cannot read \(fifo): it is a FIFO, not a regular file")
        let zero = #expect(throws: SystemError.self) { try FileIO.readAll("/dev/zero") }
        #expect(zero?.reasonText == "it is a character device, not a regular file")
        let dir = #expect(throws: SystemError.self) { try FileIO.readAll(folder) }
        #expect(dir?.reasonText == "it is a folder, not a regular file")
        let missing = #expect(throws: SystemError.self) { try FileIO.readAll(folder + "/nope") }
        #expect(missing?.description == "cannot read \(folder)/nope: No such file or directory")
    }

    @Test("replace swaps a regular file atomically, keeps its mode, and leaves no temporary file")
    func replaceRegular() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/out.json"
        try FileIO.replace(path, with: Data("one".utf8))
        #expect(chmod(path, 0o600) == 0)
        try FileIO.replace(path, with: Data("two".utf8))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "two")
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["out.json"])
    }

    @Test("a 255-byte file name works: the temporary name does not grow with it")
    func longNames() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/" + String(repeating: "n", count: 251) + ".png"
        try FileIO.replace(path, with: Data([1, 2, 3]))
        #expect(try FileIO.readAll(path) == Data([1, 2, 3]))
    }

    @Test("a symbolic link keeps pointing at its target, which is replaced")
    func replaceThroughLink() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let target = folder + "/target.txt", link = folder + "/link.txt"
        try FileIO.replace(target, with: Data("old".utf8))
        #expect(symlink(target, link) == 0)
        try FileIO.replace(link, with: Data("new".utf8))
        #expect(FileIO.kind(of: link, followLinks: false) == .symbolicLink)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "new")
    }

    @Test("a device is written in place, never renamed over: /dev/full fails with ENOSPC, /dev/null takes it")
    func replaceDevice() throws {
        let full = #expect(throws: SystemError.self) { try FileIO.replace("/dev/full", with: Data("x".utf8)) }
        #expect(full?.errno == ENOSPC)
        #expect(full?.description == "cannot write /dev/full: No space left on device")
        try FileIO.replace("/dev/null", with: Data("x".utf8))
        #expect(FileIO.kind(of: "/dev/null") == .special(noun: "a character device"))
        #expect(!FileIO.replacesAtomically("/dev/stdout"))
    }

    @Test("a FIFO is written in place: the reader gets the bytes and the FIFO stays")
    func replaceFIFO() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fifo = folder + "/out.json"
        #expect(mkfifo(fifo, 0o644) == 0)
        let received = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var got = Data()
        let reader = Thread {
            got = FileHandle(forReadingAtPath: fifo)?.readDataToEndOfFile() ?? Data()
            received.signal()
        }
        reader.start()
        try FileIO.replace(fifo, with: Data("streamed".utf8))
        received.wait()
        #expect(got == Data("streamed".utf8))
        #expect(FileIO.kind(of: fifo) == .special(noun: "a FIFO"))
    }

    @Test("a folder is refused as a write target, and checkWritable names a missing folder before any work")
    func unwritable() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let dir = #expect(throws: SystemError.self) { try FileIO.replace(folder, with: Data()) }
        #expect(dir?.description == "cannot write \(folder): Is a directory")
        let missing = #expect(throws: SystemError.self) { try FileIO.checkWritable(folder + "/nodir/x.json") }
        #expect(missing?.description == "cannot write \(folder)/nodir/x.json: No such file or directory")
        try FileIO.checkWritable(folder + "/x.json")
        #expect(FileIO.kind(of: folder + "/x.json") == .missing)
    }

    @Test("createDirectories makes parents, accepts an existing folder, and names a file in the way")
    func directories() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileIO.createDirectories(folder + "/a/b/c")
        try FileIO.createDirectories(folder + "/a/b/c")
        #expect(FileIO.kind(of: folder + "/a/b/c") == .directory)
        try FileIO.replace(folder + "/file", with: Data())
        let error = #expect(throws: SystemError.self) { try FileIO.createDirectories(folder + "/file/x") }
        #expect(error?.description == "cannot create the folder \(folder)/file: Not a directory")
    }

    @Test("LineFile leaves an old file alone until its first line, then replaces it whole and appends")
    func lineFile() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/rows.csv"
        try FileIO.replace(path, with: Data("old,results\n".utf8))
        let file = try LineFile(replacing: path, header: "a,b")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old,results\n", "nothing written before the first line")
        try file.append("1,2")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "a,b\n1,2\n")
        try file.append("3,4")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "a,b\n1,2\n3,4\n")
        #expect(try FileIO.directoryEntries(folder) == ["rows.csv"])
        // A second writer of the same path writes its own file; rows never interleave.
        let other = try LineFile(replacing: path, header: "a,b")
        try other.append("9,9")
        try file.append("5,6")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "a,b\n9,9\n")
        let full = try LineFile(replacing: "/dev/full")
        let error = #expect(throws: SystemError.self) { try full.append("x") }
        #expect(error?.errno == ENOSPC)
        #expect(throws: SystemError.self) { try LineFile(replacing: folder) }
    }

    @Test("StagedFile appears whole at commit; dropped, it leaves the old file and no temporary file")
    func stagedFile() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/doc.json"
        try FileIO.replace(path, with: Data("old".utf8))
        do {
            let dropped = try StagedFile(replacing: path)
            try dropped.write("half")
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old")
        #expect(try FileIO.directoryEntries(folder) == ["doc.json"])
        let file = try StagedFile(replacing: path)
        try file.write("{")
        try file.write("}")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old")
        try file.commit()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "{}")
    }

    @Test("Duration.seconds and milliseconds")
    func durations() {
        #expect(Duration.milliseconds(1500).seconds == 1.5)
        #expect(Duration.microseconds(250).milliseconds == 0.25)
    }

    @Test("leftover temporary files of dead writers go; a live writer's, a link and other names stay")
    func leftoverTemporaryFiles() throws {
        let folder = temporaryFolder()
        defer { try? FileIO.removeTree(folder) }
        // A pid no process has: past the highest one in use.
        let dead = (4_000_000...4_194_303).first { FileIO.status(of: "/proc/\($0)") == nil } ?? 4_194_303
        try FileIO.replace(folder + "/.rtn-\(dead)-1.tmp", with: Array("left".utf8))
        try FileIO.replace(folder + "/.rtn-\(getpid())-1.tmp", with: Array("mine".utf8))
        try FileIO.replace(folder + "/.rtn-\(dead)-x.tmp", with: Array("not the form".utf8))
        try FileIO.replace(folder + "/notes.txt", with: Array("notes".utf8))
        try FileIO.replace(folder + "-target", with: Array("target".utf8))
        defer { try? FileIO.remove(folder + "-target") }
        #expect(symlink(folder + "-target", folder + "/.rtn-\(dead)-2.tmp") == 0)
        #expect(TemporaryFile.creatorProcessID(ofName: ".rtn-\(dead)-1.tmp") == Int32(dead))
        #expect(TemporaryFile.creatorProcessID(ofName: ".rtn-1-.tmp") == nil)
        #expect(TemporaryFile.removeLeftovers(in: folder) == 1)
        let left = try FileIO.directoryEntries(folder).sorted()
        #expect(left == [".rtn-\(dead)-2.tmp", ".rtn-\(dead)-x.tmp", ".rtn-\(getpid())-1.tmp", "notes.txt"].sorted(), "\(left)")
        #expect(try FileIO.readAll(folder + "-target") == Data("target".utf8))
    }
}

@Suite("FileIO: FIFOs and symbolic links made for tests")
struct SpecialFileTests {
    @Test("makeFIFO makes a FIFO; over a FIFO, a device or in a missing folder it throws naming the path")
    func fifo() throws {
        let folder = temporaryFolder()
        defer { try? FileIO.removeTree(folder) }
        try FileIO.makeFIFO(folder + "/f", permissions: 0o600)
        #expect(FileIO.kind(of: folder + "/f") == .special(noun: "a FIFO"))
        #expect(FileIO.status(of: folder + "/f")?.permissions == 0o600)
        for (path, reason) in [(folder + "/f", "File exists"), ("/dev/null", "File exists"), (folder + "/missing/f", "No such file or directory")] {
            let error = #expect(throws: SystemError.self) { try FileIO.makeFIFO(path) }
            #expect(error?.description == "cannot create the FIFO \(path): \(reason)")
        }
    }

    @Test("makeSymbolicLink stores the target as given, dangling or not; over a FIFO, a device or in a missing folder it throws")
    func symbolicLink() throws {
        let folder = temporaryFolder()
        defer { try? FileIO.removeTree(folder) }
        try FileIO.makeSymbolicLink(folder + "/to-null", to: "/dev/null")
        try FileIO.makeSymbolicLink(folder + "/dangling", to: "nowhere/x")
        #expect(FileIO.linkTarget(folder + "/to-null") == "/dev/null")
        #expect(FileIO.kind(of: folder + "/to-null") == .special(noun: "a character device"))
        #expect(FileIO.linkTarget(folder + "/dangling") == "nowhere/x")
        #expect(FileIO.kind(of: folder + "/dangling", followLinks: false) == .symbolicLink)
        try FileIO.makeFIFO(folder + "/f")
        for (path, reason) in [(folder + "/f", "File exists"), ("/dev/null", "File exists"), (folder + "/missing/l", "No such file or directory")] {
            let error = #expect(throws: SystemError.self) { try FileIO.makeSymbolicLink(path, to: "/tmp") }
            #expect(error?.description == "cannot create the symbolic link \(path): \(reason)")
        }
    }
}
