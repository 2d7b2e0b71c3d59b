/// Little-endian integers read from and written into byte buffers at any alignment: the one
/// byte order of the entry and snapshot formats. O(1) each.
enum LittleEndian {
    static func load<T: FixedWidthInteger>(_ type: T.Type, _ bytes: UnsafeRawBufferPointer, at offset: Int) -> T {
        T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    static func store<T: FixedWidthInteger>(_ value: T, _ bytes: UnsafeMutableRawBufferPointer, at offset: Int) {
        bytes.storeBytes(of: value.littleEndian, toByteOffset: offset, as: T.self)
    }
}
