#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
internal import Glibc

/// An entry file's bytes in memory from `malloc`, freed when the last holder lets go: the
/// buffer a lookup reads into and, without a copy, the storage of the `Data` it returns.
/// Immutable once filled, and never shared between threads while being filled.
final class EntryBuffer {
    let base: UnsafeMutableRawPointer
    let count: Int

    /// A buffer of `count` bytes; nil when the allocator refuses it.
    init?(count: Int) {
        guard let base = malloc(max(1, count)) else { return nil }
        self.base = base
        self.count = count
    }

    deinit { free(base) }

    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }
    var mutableBytes: UnsafeMutableRawBufferPointer { UnsafeMutableRawBufferPointer(start: base, count: count) }

    /// `range` of the buffer as `Data` that keeps the buffer alive, without copying. O(1).
    func payload(_ range: Range<Int>) -> Data {
        guard !range.isEmpty else { return Data() }
        return Data(bytesNoCopy: base + range.lowerBound, count: range.count, deallocator: .custom { _, _ in
            withExtendedLifetime(self) {}
        })
    }
}
