import CPNG
import Testing

/// The thumbnailer's C kernels against plain scalar references on random inputs, on every
/// dispatch path this machine has (the baseline always; AVX2 where the CPU has it). Both paths
/// must give the same bits, and each must match the reference to float rounding.
@Suite("Thumbnail kernels")
struct KernelTests {
    /// A small xorshift generator: the same inputs every run.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
        mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next() >> 24) }
        mutating func unit() -> Float { Float(next() >> 40) / Float(1 << 24) }
    }

    static var paths: [(name: String, kernels: rtn_thumb_kernel_set)] {
        var found = [("baseline", rtn_thumb_kernels(0)!.pointee)]
        if let avx2 = rtn_thumb_kernels(1) { found.append(("avx2", avx2.pointee)) }
        return found
    }

    static func close(_ a: [Float], _ b: [Double], _ what: String) {
        #expect(a.count == b.count)
        for i in a.indices where abs(Double(a[i]) - b[i]) > 1e-3 + 1e-5 * abs(b[i]) {
            Issue.record("\(what): sample \(i) is \(a[i]), the reference \(b[i])")
            return
        }
    }

    /// RGBA8 → premultiplied sample, in Double.
    static func sample(_ p: ArraySlice<UInt8>, _ kind: rtn_thumb_pixels, _ toLinear: [Float]) -> [Double] {
        let v = p.map(Double.init)
        let a = v[3] / 255
        switch kind {
        case RTN_THUMB_OPAQUE: return v
        case RTN_THUMB_PREMULTIPLY: return [v[0] * a, v[1] * a, v[2] * a, v[3]]
        default: return [Double(toLinear[Int(v[0])]) * a, Double(toLinear[Int(v[1])]) * a, Double(toLinear[Int(v[2])]) * a, v[3]]
        }
    }

    @Test("accumulate_rgba8 and accumulate_indexed add each pixel times the weight, on every path")
    func accumulateRows() {
        var random = Random(state: 0x9E37_79B9_7F4A_7C15)
        let toLinear = (0..<256).map { Float($0) * Float($0) / 255 }
        for width in [1, 2, 3, 8, 33, 257] {
            let row = (0..<width * 4).map { _ in random.byte() }
            let indices = (0..<width).map { _ in random.byte() }
            let palette = (0..<1024).map { _ in random.byte() }
            let start = (0..<width * 4).map { _ in random.unit() * 100 }
            let weight = random.unit()
            for kind in [RTN_THUMB_OPAQUE, RTN_THUMB_PREMULTIPLY, RTN_THUMB_LINEAR] {
                var reference: [Double] = [], indexedReference: [Double] = []
                for x in 0..<width {
                    let s = Self.sample(row[x * 4 ..< x * 4 + 4], kind, toLinear)
                    let i = Int(indices[x])
                    let t = Self.sample(palette[i * 4 ..< i * 4 + 4], kind, toLinear)
                    for c in 0..<4 {
                        reference.append(Double(start[x * 4 + c]) + s[c] * Double(weight))
                        indexedReference.append(Double(start[x * 4 + c]) + t[c] * Double(weight))
                    }
                }
                var results: [[Float]] = []
                for (name, kernels) in Self.paths {
                    var acc = start
                    acc.withUnsafeMutableBufferPointer { a in kernels.accumulate_rgba8(a.baseAddress, row, width, weight, kind, toLinear) }
                    Self.close(acc, reference, "\(name) rgba8 width \(width) kind \(kind.rawValue)")
                    // The table is made by the RGBA8 kernel, as the thumbnailer makes it.
                    var table = [Float](repeating: 0, count: 1024)
                    table.withUnsafeMutableBufferPointer { t in kernels.accumulate_rgba8(t.baseAddress, palette, 256, 1, kind, toLinear) }
                    var indexed = start
                    indexed.withUnsafeMutableBufferPointer { a in kernels.accumulate_indexed(a.baseAddress, indices, width, weight, table) }
                    Self.close(indexed, indexedReference, "\(name) indexed width \(width) kind \(kind.rawValue)")
                    // Indexing through the table gives the same bits as expanding the row first.
                    let expanded = indices.flatMap { palette[Int($0) * 4 ..< Int($0) * 4 + 4] }
                    var direct = start
                    direct.withUnsafeMutableBufferPointer { a in kernels.accumulate_rgba8(a.baseAddress, expanded, width, weight, kind, toLinear) }
                    #expect(direct == indexed, "\(name) indexed = expanded, width \(width) kind \(kind.rawValue)")
                    results.append(acc + indexed)
                }
                #expect(results.allSatisfy { $0 == results[0] }, "every path gives the same bits")
            }
        }
    }

    @Test("filter_row and accumulate match a scalar reference, on every path")
    func filterAndAccumulate() {
        var random = Random(state: 12345)
        for (inputs, outputs, taps) in [(10, 3, 1), (40, 7, 2), (100, 9, 13), (64, 64, 3), (5, 2, 5)] {
            let row = (0..<inputs * 4).map { _ in random.unit() * 255 }
            var first = [Int32](), count = [Int32](), weights = [Float]()
            for i in 0..<outputs {
                let n = min(taps, inputs)
                first.append(Int32((i * (inputs - n)) / max(1, outputs - 1)))
                count.append(Int32(n - i % 2 * (n > 1 ? 1 : 0)))
                for _ in 0..<taps { weights.append(random.unit() - 0.2) }
            }
            var reference = [Double]()
            for i in 0..<outputs {
                for c in 0..<4 {
                    var sum = 0.0
                    for k in 0..<Int(count[i]) { sum += Double(row[(Int(first[i]) + k) * 4 + c]) * Double(weights[i * taps + k]) }
                    reference.append(sum)
                }
            }
            let start = (0..<outputs * 4).map { _ in random.unit() }
            let weight = random.unit()
            let accumulated = (0..<outputs * 4).map { Double(start[$0]) + Double(row[$0]) * Double(weight) }
            var results: [[Float]] = []
            for (name, kernels) in Self.paths {
                var out = [Float](repeating: 0, count: outputs * 4)
                first.withUnsafeBufferPointer { f in count.withUnsafeBufferPointer { n in weights.withUnsafeBufferPointer { w in
                    let table = rtn_thumb_taps(first: f.baseAddress, count: n.baseAddress, weights: w.baseAddress, stride: taps, outputs: outputs)
                    out.withUnsafeMutableBufferPointer { kernels.filter_row(row, table, $0.baseAddress) }
                } } }
                Self.close(out, reference, "\(name) filter_row \(inputs)→\(outputs), \(taps) taps")
                var acc = start
                acc.withUnsafeMutableBufferPointer { kernels.accumulate($0.baseAddress, row, weight, outputs) }
                Self.close(acc, accumulated, "\(name) accumulate \(outputs)")
                results.append(out + acc)
            }
            #expect(results.allSatisfy { $0 == results[0] }, "every path gives the same bits")
        }
        // The path the public functions use is one of them.
        let best = rtn_thumb_kernels(2)!
        #expect(Self.paths.contains { unsafeBitCast($0.kernels.accumulate, to: UnsafeRawPointer.self) == unsafeBitCast(best.pointee.accumulate, to: UnsafeRawPointer.self) })
    }
}
