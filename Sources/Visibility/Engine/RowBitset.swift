/// A growable set of row indices, one bit per row: the rows built in the current container.
///
/// Memory is rowCount / 8 bytes; membership and insertion are O(1).
struct RowBitset: Sendable {
    private var words: [UInt64] = []
    /// Number of rows in the set.
    private(set) var count = 0

    /// An empty set with room for `capacity` rows. O(capacity / 64).
    init(capacity: Int) {
        words = Array(repeating: 0, count: (capacity + 63) / 64)
    }

    /// Whether `row` is in the set. O(1).
    func contains(_ row: Int) -> Bool {
        let word = row >> 6
        return word < words.count && words[word] & (1 << UInt64(row & 63)) != 0
    }

    /// Adds `row`; returns whether it was absent. O(1), amortized when the set grows.
    mutating func insert(_ row: Int) -> Bool {
        let word = row >> 6
        if word >= words.count {
            words.append(contentsOf: repeatElement(0, count: max(word + 1 - words.count, words.count)))
        }
        let bit: UInt64 = 1 << UInt64(row & 63)
        guard words[word] & bit == 0 else { return false }
        words[word] |= bit
        count += 1
        return true
    }

    /// Calls `body` for every row in ascending order. O(capacity / 64 + count).
    func forEach(_ body: (Int) -> Void) {
        for (index, word) in words.enumerated() where word != 0 {
            var bits = word
            while bits != 0 {
                body(index << 6 + bits.trailingZeroBitCount)
                bits &= bits - 1
            }
        }
    }
}
