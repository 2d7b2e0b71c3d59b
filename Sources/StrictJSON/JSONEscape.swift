/// The one decoder of JSON string escapes (`\n`, `\u00e9`, surrogate pairs) for this package's
/// JSON readers: the scenario parser and the trace line reader.
package enum JSONEscape {
    /// Decodes the escape whose letter is at `index` (just after the backslash) into `utf8` and
    /// moves `index` past it. Returns nil, or the reason it is invalid with `index` at the
    /// offending byte. O(1).
    package static func decode<Bytes: RandomAccessCollection<UInt8>>(
        _ bytes: Bytes, at index: inout Int, into utf8: inout [UInt8]
    ) -> String? where Bytes.Index == Int {
        guard index < bytes.endIndex else { return "unterminated string" }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(byte)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"):
            guard var scalar = hex4(bytes, at: &index) else { return "expected four hex digits after \\u" }
            if (0xD800..<0xDC00).contains(scalar) {
                guard index + 1 < bytes.endIndex, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else { return "unpaired surrogate in \\u escape" }
                index += 2
                guard let low = hex4(bytes, at: &index) else { return "expected four hex digits after \\u" }
                guard (0xDC00..<0xE000).contains(low) else { return "unpaired surrogate in \\u escape" }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                return "unpaired surrogate in \\u escape"
            }
            utf8.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
        default:
            index -= 1
            return "invalid escape \\" + ((0x21..<0x7F).contains(byte) ? String(UnicodeScalar(byte)) : "\\u{" + String(byte, radix: 16) + "}")
        }
        return nil
    }

    private static func hex4<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, at index: inout Int) -> UInt32? where Bytes.Index == Int {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.endIndex else { return nil }
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }
}
