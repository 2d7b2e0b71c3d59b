internal import Glibc

/// File names as Swift strings, without loss. A Linux file name is bytes, and a `String` is
/// Unicode: decoding `caf\xE9.png` (Latin-1) the usual way makes `caf\u{FFFD}.png`, a file that
/// does not exist. So every path that comes from the system (argv, `readdir`, `realpath`) is
/// decoded here, and every path SystemIO hands to the system is encoded back here.
///
/// The rule: each byte that is not part of valid UTF-8 becomes the private-use scalar
/// U+EF00 + byte (U+EF80…U+EFFF, the convention of MirBSD's OPTU-8). A name that really holds
/// one of those scalars keeps it as its three bytes, each escaped the same way, so
/// bytes → `String` → bytes is exact for every name. Valid UTF-8 outside that range decodes to
/// itself, so ordinary paths are unchanged and cost one scan.
public enum PathText {
    /// The first scalar that stands for a raw byte (U+EF80 holds byte 0x80).
    static let escapeBase: UInt32 = 0xEF00
    /// Scalars that stand for raw bytes 0x80…0xFF.
    static let escapes: ClosedRange<UInt32> = 0xEF80...0xEFFF

    /// The bytes `bytes` as a path string, by the rule above. O(count).
    public static func string(fromBytes bytes: some Collection<UInt8>) -> String {
        var scalars = String.UnicodeScalarView()
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var pending = Array(bytes)[...]
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                let scalar = Unicode.UTF8.decode(encoded)
                if escapes.contains(scalar.value) {
                    for byte in encoded { scalars.append(Unicode.Scalar(escapeBase + UInt32(byte))!) }
                } else {
                    scalars.append(scalar)
                }
                pending = pending.dropFirst(encoded.count)
            case .error(let length):
                for byte in pending.prefix(length) { scalars.append(Unicode.Scalar(escapeBase + UInt32(byte))!) }
                pending = pending.dropFirst(length)
            case .emptyInput:
                return String(scalars)
            }
        }
    }

    /// The NUL-terminated C string at `pointer` as a path string. O(length).
    public static func string(fromCString pointer: UnsafePointer<CChar>) -> String {
        string(fromBytes: UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)))
    }

    /// The bytes `path` stands for: its UTF-8, with each escape scalar turned back into its
    /// byte. O(length).
    public static func bytes(_ path: String) -> [UInt8] {
        guard hasEscapes(path) else { return Array(path.utf8) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(path.utf8.count)
        for scalar in path.unicodeScalars {
            if escapes.contains(scalar.value) {
                bytes.append(UInt8(scalar.value - escapeBase))
            } else {
                bytes.append(contentsOf: String(scalar).utf8)
            }
        }
        return bytes
    }

    /// Calls `body` with `path` as the NUL-terminated bytes it stands for, for a system call.
    /// A path without escapes is passed as its own UTF-8, without a copy. O(length).
    public static func withCString<R>(_ path: String, _ body: (UnsafePointer<CChar>) -> R) -> R {
        guard hasEscapes(path) else { return path.withCString(body) }
        let bytes = self.bytes(path).map { CChar(bitPattern: $0) } + [0]
        return bytes.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    /// `path` for a message: each raw byte that is not UTF-8 shown as `\xE9`, and each control
    /// character (a NUL, a newline, an escape that would drive a terminal) as `\x00`, so a name
    /// never breaks the one line it is printed on; the rest as it is. O(length).
    public static func display(_ path: String) -> String {
        if path.isEmpty { return "''" }
        guard hasEscapes(path) || path.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return path }
        var text = ""
        for scalar in path.unicodeScalars {
            if escapes.contains(scalar.value) {
                text += hex(scalar.value - escapeBase)
            } else if scalar.value < 0x20 || scalar.value == 0x7F {
                text += hex(scalar.value)
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        return text
    }

    /// `\xE9`: one byte in hexadecimal, two digits. O(1).
    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "\\x" + (digits.count < 2 ? "0" : "") + digits
    }

    /// The command-line arguments after the program name, decoded by the rule above (Swift's
    /// `CommandLine.arguments` replaces bytes that are not UTF-8 with U+FFFD). O(total length).
    public static var arguments: [String] {
        (1..<Int(CommandLine.argc)).compactMap { index in
            CommandLine.unsafeArgv[index].map { string(fromCString: $0) }
        }
    }

    /// True when `path` holds an escape scalar, whose UTF-8 starts with 0xEE. O(length).
    static func hasEscapes(_ path: String) -> Bool {
        path.utf8.contains(0xEE) && path.unicodeScalars.contains { escapes.contains($0.value) }
    }
}
