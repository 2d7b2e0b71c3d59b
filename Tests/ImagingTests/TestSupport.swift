import Foundation
import RetentionTestSupport
import Testing
@testable import Imaging

/// Where the public PNG corpora live: `Tests/Fixtures` in the package (override with
/// RETENTION_TESTDATA). Tests that need them fail with this text when absent.
enum TestData {
    static let packageRoot = TestPaths.packageRoot

    /// The folder `name` under the corpora, or nil after recording a plain failure message.
    static func folder(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        switch TestPaths.fixtureFolder(name) {
        case .success(let path): return path
        case .failure(let missing):
            Issue.record("\(missing)", sourceLocation: sourceLocation)
            return nil
        }
    }

    static var assetsImages: String { TestPaths.assetsImages }

    static func bytes(_ path: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: path))
    }
}

/// FNV-1a 64 over bytes, matching tools/fnv1a64.py.
func fnv1a64(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for b in bytes {
        h ^= UInt64(b)
        h = h &* 0x100_0000_01b3
    }
    return h
}

/// CRC-32 as PNG chunks use it, for building hostile files.
func crc32(_ bytes: some Sequence<UInt8>) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
    }
    return ~crc
}

/// A PNG chunk with a correct CRC.
func chunk(_ type: String, _ payload: [UInt8]) -> [UInt8] {
    let typeBytes = Array(type.utf8)
    let length = UInt32(payload.count)
    let crc = crc32(typeBytes + payload)
    return withUnsafeBytes(of: length.bigEndian) { Array($0) } + typeBytes + payload + withUnsafeBytes(of: crc.bigEndian) { Array($0) }
}

let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

/// A small deterministic RGBA bitmap with varied colors and alpha.
func sampleBitmap(width: Int = 37, height: Int = 23, opaque: Bool = false, allocator: BitmapAllocator = .system) throws -> Bitmap {
    try Bitmap(width: width, height: height, allocator: allocator) { pixels, bytesPerRow in
        for y in 0..<height {
            for x in 0..<width {
                let o = y * bytesPerRow + x * 4
                pixels[o] = UInt8((x * 7 + y * 3) & 0xFF)
                pixels[o + 1] = UInt8((x * x + y) & 0xFF)
                pixels[o + 2] = UInt8((y * 11) & 0xFF)
                pixels[o + 3] = opaque ? 255 : UInt8((x * 13 + y * 5) & 0xFF)
            }
        }
    }
}

/// (offset, length) of each chunk after the signature.
func chunkBoundaries(_ png: [UInt8]) -> [Int] {
    var offsets: [Int] = []
    var offset = 8
    while offset + 8 <= png.count {
        offsets.append(offset)
        let length = Int(png[offset]) << 24 | Int(png[offset + 1]) << 16 | Int(png[offset + 2]) << 8 | Int(png[offset + 3])
        offset += 12 + length
    }
    return offsets
}
