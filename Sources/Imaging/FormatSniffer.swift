/// Names what a byte string looks like when it is not a PNG, from its first bytes.
///
/// Used for error messages only ("not a PNG file: it looks like a JPEG image"). O(1).
enum FormatSniffer {
    static func describe(_ head: some Collection<UInt8>) -> String {
        let b = Array(head.prefix(16))
        if b.isEmpty { return "an empty file" }
        func starts(_ prefix: [UInt8]) -> Bool { b.count >= prefix.count && Array(b[0..<prefix.count]) == prefix }
        if starts([0xFF, 0xD8, 0xFF]) { return "a JPEG image" }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return "a GIF image" }
        if starts(Array("BM".utf8)) && b.count >= 14 { return "a BMP image" }
        if starts(Array("RIFF".utf8)) && b.count >= 12 && Array(b[8..<12]) == Array("WEBP".utf8) { return "a WebP image" }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return "a TIFF image" }
        if b.count >= 12 && Array(b[4..<8]) == Array("ftyp".utf8) {
            let brand = String(decoding: b[8..<12], as: UTF8.self)
            return brand.hasPrefix("avi") ? "an AVIF image" : (brand.hasPrefix("hei") || brand.hasPrefix("mif") ? "a HEIF image" : "an MP4/ISO media file")
        }
        if starts([0x00, 0x00, 0x01, 0x00]) { return "an ICO image" }
        if starts(Array("%PDF".utf8)) { return "a PDF document" }
        if starts([0x1F, 0x8B]) { return "gzip-compressed data" }
        if starts(Array("PK".utf8) + [0x03, 0x04]) { return "a ZIP archive" }
        if starts([0x8A, 0x4D, 0x4E, 0x47]) { return "an MNG animation" }
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        if starts(Array(signature[0..<4])) {
            // libpng's rule: the first four bytes right and the rest wrong means a text-mode
            // transfer rewrote the line endings.
            return "a PNG file whose signature was damaged by text-mode (CR/LF) conversion"
        }
        if b.count >= 8 && zip(b, signature).filter({ $0 == $1 }).count >= 6 {
            return "a PNG file with a damaged signature"
        }
        if b.allSatisfy({ $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || (0x20...0x7E).contains($0) }) {
            return "text"
        }
        return "unrecognized binary data"
    }
}
