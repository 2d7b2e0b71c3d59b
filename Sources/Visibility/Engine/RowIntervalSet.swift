/// A set of rows stored as sorted, disjoint, non-adjacent ranges: the rows currently appeared.
///
/// In a List the appeared rows are always one range (the laid-out region); in a LazyVStack that
/// disappears at the bottom only, rows left above after a jump form further ranges. Every operation
/// costs the ranges it touches plus the rows it reports, never the rows it covers.
struct RowIntervalSet: Sendable {
    /// The ranges, ascending.
    private(set) var ranges: [Range<Int>] = []

    /// Whether `row` is in the set. O(log ranges).
    func contains(_ row: Int) -> Bool {
        let index = firstIndex { $0.upperBound > row }
        return index < ranges.count && ranges[index].lowerBound <= row
    }

    /// Calls `body` for every row, ascending. O(rows).
    func forEach(_ body: (Int) -> Void) {
        for range in ranges {
            for row in range { body(row) }
        }
    }

    /// Removes every row below `bound`, reporting each, ascending. O(ranges removed + rows).
    mutating func removeAll(below bound: Int, _ removed: (Int) -> Void) {
        var dropped = 0
        for index in ranges.indices {
            let range = ranges[index]
            guard range.lowerBound < bound else { break }
            for row in range.lowerBound..<min(range.upperBound, bound) { removed(row) }
            if range.upperBound <= bound {
                dropped += 1
            } else {
                ranges[index] = bound..<range.upperBound
                break
            }
        }
        if dropped > 0 { ranges.removeFirst(dropped) }
    }

    /// Removes every row at or above `bound`, reporting each, ascending. O(ranges removed + rows).
    mutating func removeAll(from bound: Int, _ removed: (Int) -> Void) {
        var first = ranges.count
        while first > 0 && ranges[first - 1].upperBound > bound { first -= 1 }
        guard first < ranges.count else { return }
        for index in first..<ranges.count {
            for row in max(ranges[index].lowerBound, bound)..<ranges[index].upperBound { removed(row) }
        }
        let keep = ranges[first].lowerBound < bound ? ranges[first].lowerBound..<bound : nil
        ranges.removeSubrange(first...)
        if let keep { ranges.append(keep) }
    }

    /// Adds `range`, reporting each row that was absent, ascending.
    /// O(log ranges + ranges overlapped + rows added).
    mutating func insert(_ range: Range<Int>, _ added: (Int) -> Void) {
        guard !range.isEmpty else { return }
        // Ranges that overlap or touch `range` merge with it: [first, end).
        let first = firstIndex { $0.upperBound >= range.lowerBound }
        var end = first
        var cursor = range.lowerBound
        while end < ranges.count && ranges[end].lowerBound <= range.upperBound {
            let existing = ranges[end]
            for row in cursor..<max(cursor, min(existing.lowerBound, range.upperBound)) { added(row) }
            cursor = max(cursor, existing.upperBound)
            end += 1
        }
        for row in cursor..<max(cursor, range.upperBound) { added(row) }
        let lower = first < end ? min(ranges[first].lowerBound, range.lowerBound) : range.lowerBound
        let upper = first < end ? max(ranges[end - 1].upperBound, range.upperBound) : range.upperBound
        ranges.replaceSubrange(first..<end, with: CollectionOfOne(lower..<upper))
    }

    /// Empties the set. O(ranges).
    mutating func removeAll() {
        ranges.removeAll(keepingCapacity: true)
    }

    /// The first index whose range satisfies the monotone `predicate`, or `ranges.count`. O(log ranges).
    private func firstIndex(where predicate: (Range<Int>) -> Bool) -> Int {
        var lower = 0
        var upper = ranges.count
        while lower < upper {
            let middle = (lower + upper) / 2
            if predicate(ranges[middle]) { upper = middle } else { lower = middle + 1 }
        }
        return lower
    }
}
