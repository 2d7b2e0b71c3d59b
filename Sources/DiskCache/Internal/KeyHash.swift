import SystemIO

/// The 64-bit FNV-1a hash of a key's UTF-8 bytes, which names the key's entry file. Two keys
/// may share a hash; the full key in each entry's header turns such a collision into a miss,
/// never a wrong hit. O(key length).
enum KeyHash {
    static func fnv1a64(_ key: String) -> UInt64 {
        StableHash.fnv1a64(key)
    }

    /// The entry file name for `hash`: 16 lowercase hex digits. O(1).
    static func fileName(_ hash: UInt64) -> String {
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The hash a file name stands for; nil for any name that is not 16 lowercase hex digits.
    /// O(1).
    static func hash(fileName name: String) -> UInt64? {
        guard name.utf8.count == 16, name.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }) else { return nil }
        return UInt64(name, radix: 16)
    }
}
