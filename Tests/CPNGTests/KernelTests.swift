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

    /// Runs `kernel` with a target over `acc` (and `next`, stored, when given); `spans`, when
    /// given, are the (acc, next) spans outside which the two hold zeros. Returns the span the
    /// kernel reported for the row.
    @discardableResult
    static func into(_ acc: inout [Float], weight: Float, fresh: Bool = false, next: UnsafeMutablePointer<[Float]>? = nil,
                     nextWeight: Float = 0, spans: (acc: Range<Int>, next: Range<Int>)? = nil,
                     _ kernel: (UnsafeMutablePointer<rtn_thumb_target>) -> Void) -> Range<Int> {
        var target = rtn_thumb_target()
        (target.weight, target.fresh, target.next_weight) = (weight, fresh ? 1 : 0, nextWeight)
        if let spans {
            (target.known, target.acc_lo, target.acc_hi) = (1, spans.acc.lowerBound, spans.acc.upperBound)
            (target.next_lo, target.next_hi) = (spans.next.lowerBound, spans.next.upperBound)
        }
        acc.withUnsafeMutableBufferPointer { a in
            target.acc = a.baseAddress
            if let next {
                next.pointee.withUnsafeMutableBufferPointer { n in
                    target.next = n.baseAddress
                    kernel(&target)
                }
            } else {
                kernel(&target)
            }
        }
        return target.row_lo ..< target.row_hi
    }

    /// RGBA8 → premultiplied sample, in Double.
    static func sample(_ p: ArraySlice<UInt8>, _ kind: rtn_thumb_pixels, _ toLinear: [Float]) -> [Double] {
        let v = p.map(Double.init)
        let a = v[3] / 255
        switch kind {
        case RTN_THUMB_OPAQUE: return v
        case RTN_THUMB_PREMULTIPLY, RTN_THUMB_PREMULTIPLY_WEIGHTED: return [v[0] * a, v[1] * a, v[2] * a, v[3]]
        default: return [Double(toLinear[Int(v[0])]) * a, Double(toLinear[Int(v[1])]) * a, Double(toLinear[Int(v[2])]) * a, v[3]]
        }
    }

    @Test("accumulate_rgba8 and accumulate_indexed add each pixel times the weight, on every path")
    func accumulateRows() {
        var random = Random(state: 0x9E37_79B9_7F4A_7C15)
        let toLinear = (0..<256).map { Float($0) * Float($0) / 255 }
        for width in [1, 2, 3, 8, 33, 257] {
            let row = (0..<width * 4).map { _ in random.byte() }
            // Runs of one index, 16 long, between random stretches (the kernel takes eight equal
            // indices at a time its own way: the sums must not change).
            let indices = (0..<width).map { x in (x / 16) % 2 == 0 ? UInt8(truncatingIfNeeded: x / 16 * 37) : random.byte() }
            let palette = (0..<1024).map { _ in random.byte() }
            let start = (0..<width * 4).map { _ in random.unit() * 100 }
            let weight = random.unit()
            for kind in [RTN_THUMB_OPAQUE, RTN_THUMB_PREMULTIPLY, RTN_THUMB_LINEAR, RTN_THUMB_PREMULTIPLY_WEIGHTED] {
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
                    Self.into(&acc, weight: weight) { kernels.accumulate_rgba8($0, row, width, kind, toLinear) }
                    Self.close(acc, reference, "\(name) rgba8 width \(width) kind \(kind.rawValue)")
                    // The table is made by the RGBA8 kernel, as the thumbnailer makes it.
                    var table = [Float](repeating: .nan, count: 1024)
                    Self.into(&table, weight: 1, fresh: true) { kernels.accumulate_rgba8($0, palette, 256, kind, toLinear) }
                    var indexed = start
                    Self.into(&indexed, weight: weight) { kernels.accumulate_indexed($0, indices, width, table) }
                    Self.close(indexed, indexedReference, "\(name) indexed width \(width) kind \(kind.rawValue)")
                    // Indexing through the table gives the same bits as expanding the row first.
                    let expanded = indices.flatMap { palette[Int($0) * 4 ..< Int($0) * 4 + 4] }
                    var direct = start
                    Self.into(&direct, weight: weight) { kernels.accumulate_rgba8($0, expanded, width, kind, toLinear) }
                    // (The weighted products round differently: palettes never use them.)
                    #expect(kind == RTN_THUMB_PREMULTIPLY_WEIGHTED || direct == indexed, "\(name) indexed = expanded, width \(width) kind \(kind.rawValue)")
                    // A fresh row is stored, not added to (its old contents never count), and a
                    // second row that starts there gets the same samples times its own weight.
                    var fresh = [Float](repeating: .nan, count: width * 4), second = [Float](repeating: .nan, count: width * 4)
                    Self.into(&fresh, weight: weight, fresh: true, next: &second, nextWeight: 1 - weight) {
                        kernels.accumulate_rgba8($0, row, width, kind, toLinear)
                    }
                    var alone = [Float](repeating: 0, count: width * 4), secondAlone = [Float](repeating: 0, count: width * 4)
                    Self.into(&alone, weight: weight) { kernels.accumulate_rgba8($0, row, width, kind, toLinear) }
                    Self.into(&secondAlone, weight: 1 - weight) { kernels.accumulate_rgba8($0, row, width, kind, toLinear) }
                    #expect(fresh == alone && second == secondAlone, "\(name) fresh and next, width \(width) kind \(kind.rawValue)")
                    // The same through the table: stored and started as the expanded row is.
                    var freshIndexed = [Float](repeating: .nan, count: width * 4), secondIndexed = [Float](repeating: .nan, count: width * 4)
                    Self.into(&freshIndexed, weight: weight, fresh: true, next: &secondIndexed, nextWeight: 1 - weight) {
                        kernels.accumulate_indexed($0, indices, width, table)
                    }
                    var freshExpanded = [Float](repeating: .nan, count: width * 4), secondExpanded = [Float](repeating: .nan, count: width * 4)
                    Self.into(&freshExpanded, weight: weight, fresh: true, next: &secondExpanded, nextWeight: 1 - weight) {
                        kernels.accumulate_rgba8($0, expanded, width, kind, toLinear)
                    }
                    #expect(kind == RTN_THUMB_PREMULTIPLY_WEIGHTED || (freshIndexed == freshExpanded && secondIndexed == secondExpanded),
                            "\(name) indexed fresh and next = expanded, width \(width) kind \(kind.rawValue)")
                    results.append(acc + indexed + fresh + second + freshIndexed + secondIndexed)
                }
                #expect(results.allSatisfy { $0 == results[0] }, "every path gives the same bits")
            }
            // RGB rows (three bytes a pixel) give the bits of the same rows with alpha 255 added.
            let rgb = (0..<width * 3).map { _ in random.byte() }
            let withAlpha = (0..<width).flatMap { rgb[$0 * 3 ..< $0 * 3 + 3] + [255] }
            for (name, kernels) in Self.paths {
                for fresh in [false, true] {
                    var a = start, b = start, nextA = start, nextB = start
                    Self.into(&a, weight: weight, fresh: fresh, next: &nextA, nextWeight: 0.25) { kernels.accumulate_rgba8($0, rgb, width, RTN_THUMB_RGB, nil) }
                    Self.into(&b, weight: weight, fresh: fresh, next: &nextB, nextWeight: 0.25) { kernels.accumulate_rgba8($0, withAlpha, width, RTN_THUMB_OPAQUE, nil) }
                    #expect(a == b && nextA == nextB, "\(name) RGB rows, width \(width), fresh \(fresh)")
                }
            }
        }
    }

    @Test("transparent runs add nothing and a fresh row still gets its zeros, on every path")
    func transparentRuns() {
        var random = Random(state: 4242)
        for width in [7, 8, 9, 17, 40, 64] {
            // Transparent pixels (alpha 0, any color) in runs, opaque and translucent ones between.
            let row = (0..<width).flatMap { x -> [UInt8] in
                let alpha: UInt8 = (x / 8) % 2 == 0 || x % 5 == 0 ? 0 : (x % 3 == 0 ? 255 : random.byte())
                return [random.byte(), random.byte(), random.byte(), alpha]
            }
            let start = (0..<width * 4).map { _ in random.unit() * 50 }
            let opaque = (0..<width).filter { row[$0 * 4 + 3] != 0 }
            let expected = opaque.isEmpty ? 0..<0 : opaque.first! ..< opaque.last! + 1
            for (name, kernels) in Self.paths {
                var added = start, fresh = [Float](repeating: .nan, count: width * 4), next = [Float](repeating: .nan, count: width * 4)
                let span = Self.into(&added, weight: 0.4) { kernels.accumulate_rgba8($0, row, width, RTN_THUMB_PREMULTIPLY_WEIGHTED, nil) }
                #expect(span == expected, "\(name) width \(width): the span between the transparent ends")
                var other = start
                #expect(Self.into(&other, weight: 0.4) { kernels.accumulate_rgba8($0, row, width, RTN_THUMB_PREMULTIPLY, nil) } == 0..<width,
                        "\(name): a kind that does not look for transparent ends reports the whole row")
                Self.into(&fresh, weight: 0.4, fresh: true, next: &next, nextWeight: 0.6) {
                    kernels.accumulate_rgba8($0, row, width, RTN_THUMB_PREMULTIPLY_WEIGHTED, nil)
                }
                for x in 0..<width {
                    let s = Self.sample(row[x * 4 ..< x * 4 + 4], RTN_THUMB_PREMULTIPLY, [])
                    for c in 0..<4 {
                        let i = x * 4 + c
                        if row[x * 4 + 3] == 0 {
                            #expect(added[i] == start[i] && fresh[i] == 0 && next[i] == 0, "\(name) width \(width) pixel \(x)")
                        } else {
                            #expect(abs(Double(added[i]) - (Double(start[i]) + s[c] * 0.4)) < 1e-3, "\(name) width \(width) pixel \(x)")
                            #expect(abs(Double(fresh[i]) - s[c] * 0.4) < 1e-3 && abs(Double(next[i]) - s[c] * 0.6) < 1e-3, "\(name) width \(width) pixel \(x)")
                        }
                    }
                }
            }
        }
    }

    @Test("a stored row clears only what of the old spans lies outside its own, an added row adds only its own, and a transparent row stores nothing new")
    func knownSpans() {
        var random = Random(state: 777)
        let width = 53
        // Rows zero outside lo..<hi (transparent ends), one fully transparent.
        for (lo, hi) in [(10, 30), (0, 53), (20, 21), (0, 0), (40, 53)] {
            let row = (0..<width).flatMap { x -> [UInt8] in
                [random.byte(), random.byte(), random.byte(), (lo..<hi).contains(x) ? max(1, random.byte()) : 0]
            }
            let span = lo < hi ? lo..<hi : 0..<0
            // Garbage (NaN) inside a destination's old span, zeros outside: what the spans promise.
            func dirty(_ old: Range<Int>) -> [Float] { (0..<width * 4).map { old.contains($0 / 4) ? Float.nan : 0 } }
            for (oldAcc, oldNext) in [(5..<45, 25..<53), (0..<0, 0..<53), (25..<53, 0..<0), (0..<53, 12..<13)] {
                for (name, kernels) in Self.paths {
                    var acc = dirty(oldAcc), next = dirty(oldNext), alone = dirty(oldNext)
                    let reported = Self.into(&acc, weight: 0.5, fresh: true, next: &next, nextWeight: 0.5, spans: (oldAcc, oldNext)) {
                        kernels.accumulate_rgba8($0, row, width, RTN_THUMB_PREMULTIPLY_WEIGHTED, nil)
                    }
                    Self.into(&alone, weight: 0.5, fresh: true, spans: (oldNext, 0..<0)) {
                        kernels.accumulate_rgba8($0, row, width, RTN_THUMB_PREMULTIPLY_WEIGHTED, nil)
                    }
                    #expect(reported == span, "\(name) row \(lo)..<\(hi)")
                    for i in 0..<width * 4 {
                        let what = "\(name) row \(lo)..<\(hi), old \(oldAcc) and \(oldNext): sample \(i / 4)"
                        if span.contains(i / 4) {
                            #expect(!acc[i].isNaN && acc[i] == next[i] && next[i] == alone[i], "\(what) stored")
                        } else {
                            #expect(acc[i] == 0 && next[i] == 0 && alone[i] == 0, "\(what) cleared")
                        }
                    }
                    // Added (not fresh) into a row with its own span: only the row's span changes.
                    let base = (0..<width * 4).map { Float($0 % 7) }
                    var added = base
                    Self.into(&added, weight: 0.5, spans: (0..<width, 0..<0)) {
                        kernels.accumulate_rgba8($0, row, width, RTN_THUMB_PREMULTIPLY_WEIGHTED, nil)
                    }
                    for i in 0..<width * 4 where !span.contains(i / 4) {
                        #expect(added[i] == base[i], "\(name) row \(lo)..<\(hi): sample \(i / 4) outside the span untouched by an add")
                    }
                    for i in 0..<width * 4 where span.contains(i / 4) {
                        #expect(added[i] == base[i] + acc[i], "\(name) row \(lo)..<\(hi): sample \(i / 4) added")
                    }
                }
            }
        }
    }

    @Test("filter_row and gather match a scalar reference, on every path")
    func filterAndAccumulate() {
        var random = Random(state: 12345)
        // (inputs, outputs, taps, uniform outputs, every output with `taps` taps): the uniform
        // range's taps are all made equal; a fixed count must be even.
        for (inputs, outputs, taps, uniform, fixed) in [(10, 3, 1, 0..<0, false), (40, 7, 2, 0..<0, false), (100, 9, 13, 0..<0, false),
                                                        (64, 64, 3, 0..<0, false), (5, 2, 5, 0..<0, false), (100, 40, 12, 3..<36, false),
                                                        (50, 20, 5, 0..<20, false), (300, 100, 16, 10..<90, false), (30, 20, 1, 2..<19, false),
                                                        (100, 40, 4, 0..<0, true), (64, 30, 12, 5..<25, true), (20, 10, 2, 0..<0, true),
                                                        (200, 50, 16, 0..<0, true), (90, 30, 6, 0..<30, true)] {
            let row = (0..<inputs * 4).map { _ in random.unit() * 255 }
            var first = [Int32](), count = [Int32](), weights = [Float]()
            let shared = (0..<taps).map { _ in random.unit() - 0.2 }
            for i in 0..<outputs {
                let n = min(taps, inputs)
                if uniform.contains(i) || fixed {
                    first.append(Int32(i * (inputs - 2 * ((n + 1) / 2)) / max(1, outputs - 1)))
                    count.append(Int32(n))
                    weights += uniform.contains(i) ? shared : (0..<taps).map { _ in random.unit() - 0.2 }
                    continue
                }
                if uniform.contains(i) {
                    first.append(Int32(i * (inputs - 2 * ((n + 1) / 2)) / max(1, outputs - 1)))
                    count.append(Int32(n))
                    weights += shared
                    continue
                }
                first.append(Int32((i * (inputs - n)) / max(1, outputs - 1)))
                count.append(Int32(n - i % 2 * (n > 1 ? 1 : 0)))
                for _ in 0..<taps { weights.append(random.unit() - 0.2) }
            }
            weights += [0, 0, 0, 0]  // the 4 floats a fixed-count table has to spare
            var pairs = [Float](repeating: 0, count: 8 * ((taps + 1) / 2))
            for t in 0..<taps { for lane in 0..<4 { pairs[8 * (t / 2) + 4 * (t % 2) + lane] = shared[t] } }
            var reference = [Double]()
            for i in 0..<outputs {
                for c in 0..<4 {
                    var sum = 0.0
                    for k in 0..<Int(count[i]) { sum += Double(row[(Int(first[i]) + k) * 4 + c]) * Double(weights[i * taps + k]) }
                    reference.append(sum)
                }
            }
            // A vertical pass: `count` input rows of `outputs` samples gathered into one.
            let rowCount = [1, 5, 12, 16, 17, 20][outputs % 6]
            let inputs: [[Float]] = (0..<rowCount).map { _ in (0..<outputs * 4).map { _ in random.unit() * 255 } }
            let rowWeights: [Float] = (0..<rowCount).map { _ in random.unit() - 0.2 }
            var gathered = [Double](repeating: 0, count: outputs * 4)
            for k in 0..<rowCount {
                for i in gathered.indices { gathered[i] += Double(inputs[k][i]) * Double(rowWeights[k]) }
            }
            var results: [[Float]] = []
            for (name, kernels) in Self.paths {
                var out = [Float](repeating: 0, count: outputs * 4)
                first.withUnsafeBufferPointer { f in count.withUnsafeBufferPointer { n in weights.withUnsafeBufferPointer { w in pairs.withUnsafeBufferPointer { p in
                    let table = rtn_thumb_taps(first: f.baseAddress, count: n.baseAddress, weights: w.baseAddress, stride: taps, outputs: outputs,
                                               fixed_count: fixed ? Int32(taps) : 0, uniform_pairs: p.baseAddress, uniform_from: uniform.lowerBound,
                                               uniform_to: uniform.upperBound, uniform_count: Int32(taps))
                    out.withUnsafeMutableBufferPointer { kernels.filter_row(row, table, 0, outputs, $0.baseAddress) }
                    // Outputs lo..<hi alone: the same bits there, nothing written elsewhere.
                    for (lo, hi) in [(0, 1), (1, outputs), (outputs / 3, 2 * outputs / 3 + 1), (outputs - 1, outputs), (2, 2)] where lo <= hi && hi <= outputs {
                        var part = [Float](repeating: .nan, count: outputs * 4)
                        part.withUnsafeMutableBufferPointer { kernels.filter_row(row, table, lo, hi, $0.baseAddress) }
                        #expect((0..<outputs * 4).allSatisfy { (lo * 4..<hi * 4).contains($0) ? part[$0] == out[$0] : part[$0].isNaN },
                                "\(name) filter_row outputs \(lo)..<\(hi) of \(outputs), uniform \(uniform), fixed \(fixed)")
                    }
                } } } }
                Self.close(out, reference, "\(name) filter_row \(inputs)→\(outputs), \(taps) taps, uniform \(uniform), fixed \(fixed)")
                var acc = [Float](repeating: .nan, count: outputs * 4)
                let pointers = inputs.map { UnsafeMutablePointer<Float>.allocate(capacity: $0.count) }
                defer { pointers.forEach { $0.deallocate() } }
                for (k, input) in inputs.enumerated() { pointers[k].initialize(from: input, count: input.count) }
                let rows: [UnsafePointer<Float>?] = pointers.map { UnsafePointer($0) }
                rows.withUnsafeBufferPointer { r in rowWeights.withUnsafeBufferPointer { w in acc.withUnsafeMutableBufferPointer { a in
                    kernels.gather(r.baseAddress, w.baseAddress, rowCount, outputs, a.baseAddress)
                } } }
                Self.close(acc, gathered, "\(name) gather \(rowCount) rows of \(outputs)")
                results.append(out + acc)
            }
            #expect(results.allSatisfy { $0 == results[0] }, "every path gives the same bits")
        }
        // The path the public functions use is one of them.
        let best = rtn_thumb_kernels(2)!
        #expect(Self.paths.contains { unsafeBitCast($0.kernels.gather, to: UnsafeRawPointer.self) == unsafeBitCast(best.pointee.gather, to: UnsafeRawPointer.self) })
    }

    /// PNG's unfilter, byte by byte as the specification writes it.
    static func unfiltered(_ type: Int, _ input: [UInt8], _ prev: [UInt8], bpp: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: input.count)
        for i in 0..<input.count {
            let a = i >= bpp ? Int(out[i - bpp]) : 0, b = Int(prev[i]), c = i >= bpp ? Int(prev[i - bpp]) : 0
            let p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
            let predictor = [0, a, b, (a + b) / 2, pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)][type]
            out[i] = UInt8(truncatingIfNeeded: Int(input[i]) + predictor)
        }
        return out
    }

    @Test("unfilter_row inverts every filter type at 1-4 bytes a pixel, in place and moved left, on every path; types above 4 are refused")
    func unfilterRow() {
        var random = Random(state: 38)
        for (name, kernels) in Self.paths {
            for bpp in 1...4 {
                for pixels in [1, 2, 7, 8, 9, 31, 33, 100] {
                    let length = pixels * bpp
                    let prev = (0..<length).map { _ in random.byte() }
                    let original = (0..<length).map { _ in random.byte() }
                    for type in 0...4 {
                        let input = (0..<length).map { _ in random.byte() }
                        let expected = Self.unfiltered(type, input, prev, bpp: bpp)
                        var out = [UInt8](repeating: 0xAA, count: length)
                        #expect(kernels.png_unfilter_row(Int32(type), input, prev, length, bpp, &out) == 0)
                        #expect(out == expected, "\(name) type \(type) bpp \(bpp) length \(length)")
                        // In place, and moved 1 and 5 bytes toward the start of one buffer.
                        for shift in [0, 1, 5] {
                            var buffer = [UInt8](repeating: 0x55, count: shift) + input
                            buffer.withUnsafeMutableBufferPointer { all in
                                _ = kernels.png_unfilter_row(Int32(type), all.baseAddress! + shift, prev, length, bpp, all.baseAddress!)
                            }
                            #expect(Array(buffer.prefix(length)) == expected, "\(name) type \(type) bpp \(bpp) moved \(shift)")
                        }
                        // The encoder's filter and this one are inverses.
                        var filtered = [UInt8](repeating: 0, count: length + 1)
                        _ = kernels.png_filter_row(original, prev, length, bpp, 1 << UInt32(type), &filtered)
                        var back = [UInt8](repeating: 0, count: length)
                        _ = kernels.png_unfilter_row(Int32(filtered[0]), Array(filtered.dropFirst()), prev, length, bpp, &back)
                        #expect(back == original, "\(name) round trip type \(type) bpp \(bpp)")
                    }
                    var untouched = [UInt8](repeating: 7, count: length)
                    #expect(kernels.png_unfilter_row(5, prev, prev, length, bpp, &untouched) == -1)
                    #expect(untouched == [UInt8](repeating: 7, count: length))
                }
            }
        }
        // The public symbol (the loader's choice of path) gives the same bytes.
        var out = [UInt8](repeating: 0, count: 3)
        #expect(rtn_png_unfilter_row(2, [1, 2, 3], [10, 20, 30], 3, 1, &out) == 0 && out == [11, 22, 33])
    }

    @Test("unfilter_rows gives two rows the bytes of two unfilter_row calls, for every pair of filter types at 1-4 bytes a pixel, on every path, with the first in place; types above 4 are refused")
    func unfilterRows() {
        var random = Random(state: 47)
        for (name, kernels) in Self.paths {
            for bpp in 1...4 {
                for pixels in [1, 2, 7, 33, 100] {
                    let length = pixels * bpp
                    let prev = (0..<length).map { _ in random.byte() }
                    for type0 in 0...4 {
                        for type1 in 0...4 {
                            let in0 = (0..<length).map { _ in random.byte() }, in1 = (0..<length).map { _ in random.byte() }
                            let expected0 = Self.unfiltered(type0, in0, prev, bpp: bpp)
                            let expected1 = Self.unfiltered(type1, in1, expected0, bpp: bpp)
                            var out0 = [UInt8](repeating: 0xAA, count: length), out1 = out0
                            #expect(kernels.png_unfilter_rows(Int32(type0), in0, Int32(type1), in1, prev, length, bpp, &out0, &out1) == 0)
                            #expect(out0 == expected0 && out1 == expected1, "\(name) types \(type0) \(type1) bpp \(bpp) length \(length)")
                            // The first row in place, moved 3 bytes toward the start of its buffer.
                            var buffer = [UInt8](repeating: 0x55, count: 3) + in0
                            var second = [UInt8](repeating: 0, count: length)
                            buffer.withUnsafeMutableBufferPointer { all in
                                _ = kernels.png_unfilter_rows(Int32(type0), all.baseAddress! + 3, Int32(type1), in1, prev, length, bpp, all.baseAddress!, &second)
                            }
                            #expect(Array(buffer.prefix(length)) == expected0 && second == expected1, "\(name) in place types \(type0) \(type1) bpp \(bpp)")
                        }
                    }
                    var untouched = [UInt8](repeating: 7, count: length), alsoUntouched = untouched
                    #expect(kernels.png_unfilter_rows(1, prev, 5, prev, prev, length, bpp, &untouched, &alsoUntouched) == -1)
                    #expect(kernels.png_unfilter_rows(5, prev, 1, prev, prev, length, bpp, &untouched, &alsoUntouched) == -1)
                    #expect(untouched == [UInt8](repeating: 7, count: length) && alsoUntouched == untouched)
                }
            }
        }
        var out0 = [UInt8](repeating: 0, count: 3), out1 = out0
        #expect(rtn_png_unfilter_rows(2, [1, 2, 3], 2, [1, 1, 1], [10, 20, 30], 3, 1, &out0, &out1) == 0 && out0 == [11, 22, 33] && out1 == [12, 23, 34])
    }

    @Test("expand_indexed gives table[row[x]] for every pixel of rows 0...70 wide, in runs and mixed, on every path, and writes nothing past the row")
    func expandIndexed() {
        var random = Random(state: 57)
        let table = (0..<256).map { _ in UInt32(truncatingIfNeeded: random.next()) }
        for (name, kernels) in Self.paths {
            for width in 0...70 {
                for mixed in [false, true] {
                    // Runs of 1...20 indices, or a new index every pixel.
                    var row: [UInt8] = []
                    while row.count < width {
                        row += [UInt8](repeating: random.byte(), count: mixed ? 1 : Int(random.next() % 20) + 1)
                    }
                    row = Array(row.prefix(width))
                    let expected = row.flatMap { index in withUnsafeBytes(of: table[Int(index)].littleEndian) { Array($0) } }
                    var out = [UInt8](repeating: 0xAA, count: 4 * width + 4)
                    kernels.png_expand_indexed(row, width, table, &out)
                    #expect(Array(out.prefix(4 * width)) == expected, "\(name) width \(width) mixed \(mixed)")
                    #expect(out.suffix(4) == [0xAA, 0xAA, 0xAA, 0xAA], "\(name) width \(width): wrote past the row")
                }
            }
        }
        var out = [UInt8](repeating: 0, count: 8)
        rtn_png_expand_indexed([1, 0], 2, table, &out)
        #expect(out == withUnsafeBytes(of: table[1].littleEndian) { Array($0) } + withUnsafeBytes(of: table[0].littleEndian) { Array($0) })
    }

    @Test("nonzero_span finds the first and last sample with a bit set, and 0..<0 for a zero row")
    func nonzeroSpan() {
        for width in [0, 1, 3, 4, 5, 8, 17, 64, 101] {
            #expect(Self.span(of: [Float](repeating: 0, count: 4 * width)) == 0..<0, "zero row of \(width)")
            for first in [0, 1, 4, width / 2, width - 1] where width > 0 && first < width {
                for last in Set([first, first + 3, width - 1]) where last < width {
                    for (channel, value) in [(0, Float(1)), (3, Float(0.001)), (1, Float(-0.0)), (2, Float.leastNonzeroMagnitude)] {
                        var row = [Float](repeating: 0, count: 4 * width)
                        row[4 * first + channel] = value
                        row[4 * last + (channel + 1) % 4] = value
                        #expect(Self.span(of: row) == first..<last + 1, "width \(width): samples \(first) and \(last) set to \(value)")
                    }
                }
            }
        }
    }

    static func span(of row: [Float]) -> Range<Int> {
        var first = -1, end = -1
        row.withUnsafeBufferPointer { rtn_thumb_nonzero_span($0.baseAddress, row.count / 4, &first, &end) }
        return first..<end
    }
}
