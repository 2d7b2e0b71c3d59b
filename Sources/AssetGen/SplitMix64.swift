/// A small, fast, seedable random generator (SplitMix64: a 64-bit counter stepped by the golden
/// ratio and mixed by two multiply-xorshift rounds), so generated assets, property tests, walks
/// and fuzzing draw the same sequence from the same seed on every run and machine. Not
/// cryptographic; 8 bytes of state. O(1) per value, no allocation.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose sequence is fixed by `seed`. O(1).
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits. O(1).
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform value in [0, 1) with 24 bits of precision. O(1).
    public mutating func unit() -> Float {
        Float(next() >> 40) * (1.0 / 16_777_216.0)
    }
}
