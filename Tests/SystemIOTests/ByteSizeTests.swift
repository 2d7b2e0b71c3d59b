import Testing
import SystemIO

/// `ByteSize`, the package's one size type: its factories and the clamping initializer never
/// trap on a size past `Int`'s range, and a computed size is clamped to 0 or more.
@Suite("ByteSize")
struct ByteSizeTests {
    @Test("factories saturate at Int.max instead of overflowing")
    func factoriesSaturate() {
        #expect(ByteSize.kilobytes(64).bytes == 64_000 && ByteSize.megabytes(3).bytes == 3_000_000)
        #expect(ByteSize.kilobytes(.max).bytes == .max && ByteSize.megabytes(.max / 1_000).bytes == .max)
        #expect(ByteSize.megabytes(9_223_372_036_854).bytes == 9_223_372_036_854_000_000, "the largest that fits is exact")
    }

    @Test("clamping: NaN and negatives are 0 bytes, past Int.max is Int.max, fractions round")
    func clamping() {
        #expect(ByteSize(clamping: .nan).bytes == 0 && ByteSize(clamping: -.nan).bytes == 0)
        #expect(ByteSize(clamping: -1).bytes == 0 && ByteSize(clamping: -.infinity).bytes == 0)
        #expect(ByteSize(clamping: .infinity).bytes == .max && ByteSize(clamping: 1e300).bytes == .max)
        #expect(ByteSize(clamping: 9.3e18).bytes == .max, "9.3e18 bytes is past Int.max")
        #expect(ByteSize(clamping: 9.2e18).bytes == 9_200_000_000_000_000_000)
        #expect(ByteSize(clamping: 1_500.4).bytes == 1_500 && ByteSize(clamping: 0.4).bytes == 0)
    }

    @Test("descriptions parse back to the same size")
    func roundTrip() {
        for size in [ByteSize(bytes: 0), .kilobytes(1_500), .megabytes(64), ByteSize(bytes: 157_286_400), ByteSize(bytes: 12_345)] {
            #expect(ByteSize(parsing: size.description) == size, "\(size)")
        }
    }
}
