import Foundation
import Glibc
import Testing
@testable import SystemIO

/// Creates the file whose path is the raw `bytes` (which need not be UTF-8) holding `contents`.
func createFile(rawPath bytes: [UInt8], contents: [UInt8]) {
    let fd = (bytes.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { open($0.baseAddress!, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
    precondition(fd >= 0, "cannot create the fixture file: errno \(errno)")
    _ = contents.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
}

@Suite("PathText: file names that are not UTF-8")
struct PathTextTests {
    @Test("valid UTF-8 is unchanged; other bytes are escaped and come back exactly")
    func roundTrip() {
        #expect(PathText.string(fromBytes: Array("photos/café ✓.png".utf8)) == "photos/café ✓.png")
        let latin1: [UInt8] = Array("caf".utf8) + [0xE9] + Array(".png".utf8)
        let text = PathText.string(fromBytes: latin1)
        #expect(text != "caf\u{FFFD}.png" && text.unicodeScalars.count == 8)
        #expect(PathText.bytes(text) == latin1)
        #expect(PathText.display(text) == "caf\\xE9.png")
        // Control characters never reach a terminal or split a line: NUL, newline, escape.
        #expect(PathText.display("a\u{0}b\nc\u{1B}[2J.png") == "a\\x00b\\x0Ac\\x1B[2J.png")
        // A name that really holds an escape scalar (U+EF80..U+EFFF, valid UTF-8) survives too.
        let privateUse = Array("a\u{EF80}b".utf8)
        #expect(PathText.bytes(PathText.string(fromBytes: privateUse)) == privateUse)
        // Overlong forms, surrogates, cut sequences and stray continuation bytes.
        for bytes: [UInt8] in [[0xC0, 0xAF], [0xED, 0xA0, 0x80], [0x61, 0xE2, 0x82], [0x80, 0x80, 0x41], [0xFF, 0xFE], [0xF4, 0x90, 0x80, 0x80]] {
            #expect(PathText.bytes(PathText.string(fromBytes: bytes)) == bytes, "\(bytes)")
        }
    }

    @Test("any bytes come back exactly (seeded)")
    func randomBytes() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for round in 0..<2000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let count = Int(state >> 59)
            var bytes: [UInt8] = []
            for _ in 0..<count {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                bytes.append(UInt8(truncatingIfNeeded: state >> 33))
            }
            bytes.removeAll { $0 == 0 }
            #expect(PathText.bytes(PathText.string(fromBytes: bytes)) == bytes, "round \(round): \(bytes)")
        }
    }

    @Test("a file whose name is not UTF-8 is listed, read, stat'ed, replaced and found below a folder")
    func filesOnDisk() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/sub", withIntermediateDirectories: true)
        createFile(rawPath: Array((folder + "/sub/a").utf8) + [0xFF] + Array(".png".utf8), contents: [1, 2, 3])
        let names = try FileIO.directoryEntries(folder + "/sub")
        #expect(names.count == 1)
        let path = folder + "/sub/" + names[0]
        #expect(PathText.display(path) == folder + "/sub/a\\xFF.png")
        #expect(try FileIO.readAll(path) == Data([1, 2, 3]))
        #expect(FileIO.status(of: path)?.size == 3 && FileIO.kind(of: path) == .regular)
        try FileIO.checkReadable(path)
        #expect(FileIO.resolvedPath(path).map(PathText.bytes) == Array((FileIO.resolvedPath(folder)! + "/sub/a").utf8) + [0xFF] + Array(".png".utf8))
        try FileIO.replace(path, with: Data([4, 5]))
        #expect(try FileIO.readAll(path) == Data([4, 5]))
        #expect(try FileIO.directoryEntries(folder + "/sub") == names, "replaced in place, no second file")
        #expect(FileIO.entries(under: folder) == ["sub", "sub/" + names[0]])
        // The missing one is named with its raw byte shown, not as a replacement character.
        let missing = PathText.string(fromBytes: Array((folder + "/b").utf8) + [0xFE])
        let error = #expect(throws: SystemError.self) { try FileIO.readAll(missing) }
        #expect(error?.description == "cannot read \(folder)/b\\xFE: No such file or directory")
    }
}
