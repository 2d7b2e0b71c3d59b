import Foundation
import Testing
@testable import Imaging

/// The resampling tables: Lanczos-3 weights carried by angle addition, and the uniform run the
/// horizontal kernel keeps in registers.
@Suite("Filter tables")
struct FilterTableTests {
    @Test("Lanczos-3 weights carried from tap to tap equal the direct formula")
    func lanczosSteps() throws {
        for (input, output) in [(512, 256), (1000, 333), (37, 100), (90, 7)] {
            let memory = WorkingMemory()
            let map = AxisMap(inputSize: input, outputSize: output)
            let table = try FilterTable(map, kernel: .lanczos3, memory: memory)
            let scale = Double(input) / Double(output), widen = max(1, scale), radius = 3 * widen
            for i in 0..<output {
                let center = (Double(i) + 0.5) * scale
                let from = max(0, Int((center - radius).rounded(.down)))
                let to = min(input, Int((center + radius).rounded(.up)))
                let direct = (from..<to).map { FilterTable.lanczos3((Double($0) + 0.5 - center) / widen) }
                let total = direct.reduce(0, +)
                for k in 0..<Int(table.count[i]) {
                    let expected = direct[Int(table.first[i]) - from + k] / total
                    #expect(abs(Double(table.weights[i * table.stride + k]) - expected) < 1e-6, "\(input)→\(output) output \(i) tap \(k)")
                }
            }
        }
    }

    @Test("a padded table gives every output the same even count, inside the row, with the same sums")
    func padded() throws {
        for (input, output, kernel) in [(1100, 512, FilterTable.Kernel.area), (512, 256, .lanczos3), (1000, 333, .lanczos3), (17, 5, .area),
                                        (90, 7, .triangle), (7, 3, .lanczos3)] {
            let memory = WorkingMemory()
            let map = AxisMap(inputSize: input, outputSize: output)
            let plain = try FilterTable(map, kernel: kernel, memory: memory)
            let padded = try FilterTable(map, kernel: kernel, padded: true, memory: memory)
            let most = (0..<output).map { Int(plain.count[$0]) }.max()!
            if (most + 1) / 2 * 2 > min(input, 16) {
                #expect(padded.fixedCount == 0, "\(input)→\(output): no room, or over 16 taps")
                continue
            }
            #expect(padded.fixedCount == (most + 1) / 2 * 2 && padded.fixedCount % 2 == 0)
            for i in 0..<output {
                #expect(Int(padded.count[i]) == padded.fixedCount && Int(padded.first[i]) + padded.fixedCount <= input)
                // The same input gets the same weight; every other tap weighs 0.
                for k in 0..<padded.fixedCount {
                    let x = Int(padded.first[i]) + k, t = x - Int(plain.first[i])
                    let expected = (0..<Int(plain.count[i])).contains(t) ? plain.weights[i * plain.stride + t] : 0
                    #expect(padded.weights[i * padded.stride + k] == expected, "\(input)→\(output) \(kernel) output \(i) input \(x)")
                }
            }
        }
    }

    @Test("a 2:1 Lanczos-3 table is uniform but for a few outputs at each edge; an uneven area table is not")
    func uniformRun() throws {
        let memory = WorkingMemory()
        let lanczos = try FilterTable(AxisMap(inputSize: 512, outputSize: 256), kernel: .lanczos3, memory: memory)
        #expect(lanczos.uniform.lowerBound <= 3 && lanczos.uniform.upperBound >= 253, "\(lanczos.uniform)")
        #expect(lanczos.taps.uniform_count == 12)
        for i in lanczos.uniform {
            #expect(Int(lanczos.first[i]) + 12 <= 512)
        }
        let area = try FilterTable(AxisMap(inputSize: 1100, outputSize: 512), kernel: .area, memory: memory)
        #expect(area.uniform.count < 4)
        let exactHalf = try FilterTable(AxisMap(inputSize: 1024, outputSize: 512), kernel: .area, memory: memory)
        #expect(exactHalf.uniform == 0..<512, "2:1 boxes: every output")
        let third = try FilterTable(AxisMap(inputSize: 1536, outputSize: 512), kernel: .area, memory: memory)
        #expect(third.uniform == 0..<511, "3:1 boxes: all but the last, whose padded pair would read past the row")
    }

    @Test("outputs(reaching:) holds every output with a nonzero weight in the span; on an ordered table, exactly those whose taps reach it")
    func outputsReaching() throws {
        // 10→30, 3→7, 16→48 Lanczos-3: enlarging by an odd factor puts some outputs' centres on an
        // input, where every other tap is 0 and is trimmed away, so `first` jumps ahead and back.
        for (input, output, kernel, padded) in [(1100, 512, FilterTable.Kernel.area, true), (512, 256, .lanczos3, true), (1000, 333, .lanczos3, false),
                                                (17, 5, .area, false), (90, 7, .triangle, true), (7, 3, .lanczos3, true), (40, 100, .lanczos3, true),
                                                (10, 30, .lanczos3, true), (3, 7, .lanczos3, false), (16, 48, .lanczos3, true), (75, 125, .lanczos3, true)] {
            let memory = WorkingMemory()
            let table = try FilterTable(AxisMap(inputSize: input, outputSize: output), kernel: kernel, padded: padded, memory: memory)
            let ordered = (1..<output).allSatisfy { table.first[$0] >= table.first[$0 - 1] && table.first[$0] + table.count[$0] >= table.first[$0 - 1] + table.count[$0 - 1] }
            for (lo, hi) in [(0, 1), (0, input), (input - 1, input), (input / 3, input / 3 + 1), (input / 4, 3 * input / 4), (5, 9), (1, 2)] where lo < hi && hi <= input {
                let found = table.outputs(reaching: lo..<hi)
                let weighted = (0..<output).filter { i in
                    (0..<Int(table.count[i])).contains { k in (lo..<hi).contains(Int(table.first[i]) + k) && table.weights[i * table.stride + k] != 0 }
                }
                #expect(weighted.allSatisfy(found.contains), "\(input)→\(output) \(kernel) padded \(padded): inputs \(lo)..<\(hi) give \(found), missing some of \(weighted)")
                if ordered {
                    let reaching = (0..<output).filter { i in Int(table.first[i]) < hi && Int(table.first[i] + table.count[i]) > lo }
                    #expect(Array(found) == reaching, "\(input)→\(output) \(kernel) padded \(padded): inputs \(lo)..<\(hi)")
                }
            }
        }
    }
}
