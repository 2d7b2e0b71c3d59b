import AssetGen
import Testing
@testable import Visibility

/// The engine's data structures against brute force.
@Suite("Engine structures")
struct EngineStructureTests {
    @Test("RowIntervalSet matches a Set<Int> under random operations", arguments: 0..<8)
    func intervalSet(seed: Int) {
        var random = SplitMix64(seed: UInt64(seed) + 1)
        var set = RowIntervalSet()
        var reference: Set<Int> = []
        for _ in 0..<400 {
            var reported: [Int] = []
            let bound = Int.random(in: 0...60, using: &random)
            switch Int.random(in: 0..<3, using: &random) {
            case 0:
                let range = bound..<(bound + Int.random(in: 0...12, using: &random))
                set.insert(range) { reported.append($0) }
                #expect(reported == range.filter { !reference.contains($0) })
                reference.formUnion(range)
            case 1:
                set.removeAll(below: bound) { reported.append($0) }
                #expect(reported == reference.filter { $0 < bound }.sorted())
                reference = reference.filter { $0 >= bound }
            default:
                set.removeAll(from: bound) { reported.append($0) }
                #expect(reported == reference.filter { $0 >= bound }.sorted())
                reference = reference.filter { $0 < bound }
            }
            var all: [Int] = []
            set.forEach { all.append($0) }
            #expect(all == reference.sorted())
            #expect(zip(set.ranges, set.ranges.dropFirst()).allSatisfy { $0.upperBound < $1.lowerBound })
            let probe = Int.random(in: 0...70, using: &random)
            #expect(set.contains(probe) == reference.contains(probe))
        }
    }

    @Test("RowBitset inserts, grows and iterates in order")
    func bitset() {
        var bits = RowBitset(capacity: 10)
        #expect(bits.insert(3) && bits.insert(200) && bits.insert(64) && !bits.insert(3))
        var rows: [Int] = []
        bits.forEach { rows.append($0) }
        #expect(rows == [3, 64, 200] && bits.count == 3 && bits.contains(200) && !bits.contains(199))
    }

    @Test("RowLayout tops match summed line heights, for cycled heights and grids", arguments: 1...4)
    func layout(columns: Int) {
        let heights: [Double] = [30, 70, 50, 120, 10]
        for count in [0, 1, 7, 23, 60] {
            var layout = RowLayout(height: .cycled(heights), columns: columns, rowCount: count)
            var top = 0.0
            let lines = (count + columns - 1) / columns
            #expect(layout.lineCount == lines)
            for line in 0..<lines {
                #expect(layout.top(ofLine: line) == top)
                let cells = (line * columns)..<min((line + 1) * columns, count)
                top += cells.map { heights[$0 % heights.count] }.max()!
                #expect(layout.bottom(ofLine: line) == top)
            }
            #expect(layout.contentHeight == top)
            layout.setRowCount(count + 5)
            #expect(layout.rowCount == count + 5)
        }
    }

    @Test("partitionPoint finds the first index from any hint")
    func partitionPoint() {
        for count in [0, 1, 2, 17, 100] {
            for answer in 0...count {
                for hint in [-3, 0, answer, count / 2, count, count + 4] {
                    #expect(RowLayout.partitionPoint(count: count, hint: hint) { $0 >= answer } == answer)
                }
            }
        }
    }
}
