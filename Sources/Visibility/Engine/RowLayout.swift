/// Row geometry without a per-row array: tops come from a closed form over the repeating pattern.
///
/// Elements are laid out in layout rows ("lines") of `columns` elements (1 for the stacks). Line
/// `i` covers the half-open interval `[top(i), bottom(i))`, with `bottom(i) == top(i + 1)` except
/// for the last line, whose bottom is the content height. A full line is as tall as its tallest
/// element; because element heights repeat with period `P`, line heights repeat with period
/// `P / gcd(P, columns)`, so `top(i) = (i / period) × cycleHeight + patternTops[i % period]`.
/// Memory is O(period); creating it costs O(lcm(P, columns)).
struct RowLayout: Sendable {
    /// Elements per line.
    let columns: Int
    private let elementHeights: [Double]
    /// Prefix sums of the full-line heights over one period; `count == period + 1`.
    private let patternTops: [Double]
    private let period: Int
    private let cycleHeight: Double

    /// Elements (rows of the data source) currently laid out.
    private(set) var rowCount: Int
    /// Lines needed for `rowCount` elements.
    private(set) var lineCount: Int
    /// Bottom of the last line; 0 when there are no rows.
    private(set) var contentHeight: Double

    /// Creates the layout. O(lcm(pattern count, columns)).
    ///
    /// - Precondition: every height is finite and positive; `columns > 0`; `rowCount >= 0`.
    init(height: RowHeight, columns: Int, rowCount: Int) {
        let heights = height.pattern
        precondition(!heights.isEmpty && heights.allSatisfy { $0.isFinite && $0 > 0 },
                     "row heights must be positive")
        precondition(columns > 0 && rowCount >= 0)
        self.columns = columns
        self.elementHeights = heights
        let period = heights.count / Self.gcd(heights.count, columns)
        var tops = [0.0]
        tops.reserveCapacity(period + 1)
        for line in 0..<period {
            var tallest = 0.0
            for column in 0..<columns {
                tallest = max(tallest, heights[(line * columns + column) % heights.count])
            }
            tops.append(tops[line] + tallest)
        }
        self.period = period
        self.patternTops = tops
        self.cycleHeight = tops[period]
        self.rowCount = 0
        self.lineCount = 0
        self.contentHeight = 0
        setRowCount(rowCount)
    }

    /// Changes the number of elements (rows appended). O(columns).
    mutating func setRowCount(_ count: Int) {
        rowCount = count
        lineCount = (count + columns - 1) / columns
        guard lineCount > 0 else {
            contentHeight = 0
            return
        }
        let last = lineCount - 1
        var tallest = 0.0
        for element in (last * columns)..<count {
            tallest = max(tallest, elementHeights[element % elementHeights.count])
        }
        contentHeight = fullLineTop(last) + tallest
    }

    /// Top of line `line`, for `0...lineCount` (`top(lineCount)` is the content height). O(1).
    func top(ofLine line: Int) -> Double {
        line >= lineCount ? contentHeight : fullLineTop(line)
    }

    /// Bottom of line `line` (`top(line + 1)`, or the content height for the last). O(1).
    func bottom(ofLine line: Int) -> Double {
        line + 1 >= lineCount ? contentHeight : fullLineTop(line + 1)
    }

    private func fullLineTop(_ line: Int) -> Double {
        if period == 1 { return Double(line) * cycleHeight }
        let (cycles, index) = line.quotientAndRemainder(dividingBy: period)
        return Double(cycles) * cycleHeight + patternTops[index]
    }

    /// The line holding element `row`. O(1).
    func line(ofRow row: Int) -> Int { row / columns }

    /// The elements of `lines`, clipped to `rowCount`. O(1).
    func rows(ofLines lines: Range<Int>) -> Range<Int> {
        let lower = min(lines.lowerBound * columns, rowCount)
        let upper = min(lines.upperBound * columns, rowCount)
        return lower..<max(lower, upper)
    }

    /// Lines whose interval intersects `[lower, upper)`, searched outward from `hint` (the lines of
    /// the previous frame). O(log d) for a move of d lines; never O(lineCount).
    func lines(intersecting lower: Double, _ upper: Double, hint: Range<Int>) -> Range<Int> {
        guard lineCount > 0, upper > lower else { return 0..<0 }
        let first = Self.partitionPoint(count: lineCount, hint: hint.lowerBound) {
            bottom(ofLine: $0) > lower
        }
        let end = Self.partitionPoint(count: lineCount, hint: hint.upperBound) {
            top(ofLine: $0) >= upper
        }
        return first..<max(first, end)
    }

    /// The smallest `i` in `0...count` for which the monotone `isPast(i)` holds (`count` if none),
    /// found by galloping from `hint` then bisecting. O(log |answer - hint|).
    static func partitionPoint(count: Int, hint: Int, _ isPast: (Int) -> Bool) -> Int {
        let start = min(max(hint, 0), count)
        var lower: Int
        var upper: Int
        var step = 1
        if start == count || isPast(start) {
            upper = start
            while true {
                let probe = start - step
                if probe < 0 { lower = 0; break }
                if isPast(probe) { upper = probe; step *= 2 } else { lower = probe + 1; break }
            }
        } else {
            lower = start + 1
            while true {
                let probe = start + step
                if probe >= count { upper = count; break }
                if isPast(probe) { upper = probe; break } else { lower = probe + 1; step *= 2 }
            }
        }
        while lower < upper {
            let middle = lower + (upper - lower) / 2
            if isPast(middle) { upper = middle } else { lower = middle + 1 }
        }
        return lower
    }

    private static func gcd(_ a: Int, _ b: Int) -> Int {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }
}
