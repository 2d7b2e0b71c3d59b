import CPNG
import Glibc

/// One axis of a resampling step: output samples `0..<outputSize` cover the input interval
/// `[start, start + length)`, which lies inside `0...inputSize` and may have fractional ends
/// (a centre crop).
struct AxisMap: Equatable {
    var inputSize: Int
    var outputSize: Int
    var start: Double
    var length: Double

    /// The whole input onto `outputSize` samples.
    init(inputSize: Int, outputSize: Int) {
        self.init(inputSize: inputSize, outputSize: outputSize, start: 0, length: Double(inputSize))
    }

    init(inputSize: Int, outputSize: Int, start: Double, length: Double) {
        self.inputSize = inputSize
        self.outputSize = outputSize
        self.start = start
        self.length = length
    }

    /// True when every output sample is exactly its input sample.
    var isIdentity: Bool { inputSize == outputSize && start == 0 && length == Double(inputSize) }
}

/// Precomputed taps for one axis: output `i` is the weighted sum of inputs
/// `first[i] ..< first[i] + count[i]` with `weights[i * stride ...]`, which sum to 1.
///
/// Built once per run; the hot loops only read it. `first` and the last tap are
/// non-decreasing in `i`, which is what lets rows stream (see `VerticalAccumulator`), with one
/// exception: enlarging with Lanczos-3 by an odd factor puts some outputs' centres on an input,
/// where every other tap weighs 0 and is trimmed, so that output's one tap can lie past its
/// neighbours' first ones (each window stays inside the rows the vertical pass keeps).
///
/// A table for a horizontal pass is `padded`: every output gets the same even number of taps
/// (`fixedCount`, the most any output needs, rounded up to even; the extra ones weigh 0 and
/// `first` moves left where they would pass the row's end), so the kernel runs one unrolled
/// loop per table, two taps per instruction, with no tail. And the longest run of outputs with
/// the same taps (at 2:1, Lanczos-3's interior) is noted with those weights as the kernel's
/// register pairs (`uniform`). Memory: `outputSize × (16 + 4 × stride)` bytes, 16 more, and at
/// most 256 for the pairs, taken from the run's `WorkingMemory`.
struct FilterTable {
    let outputSize: Int
    let stride: Int
    let first: UnsafeMutablePointer<Int32>
    let count: UnsafeMutablePointer<Int32>
    let weights: UnsafeMutablePointer<Float>
    /// For `outputs(reaching:)`: the largest end (`first + count`) of outputs `0...i`, and the
    /// smallest `first` of outputs `i...`, both non-decreasing even where the taps are not.
    private let endsSoFar: UnsafeMutablePointer<Int32>
    private let firstsFrom: UnsafeMutablePointer<Int32>
    /// The most outputs that any one input sample feeds (accumulator rows kept open).
    private(set) var maxOverlap = 1
    /// Outputs whose taps are all the same, and those taps as 8-float pairs (see `rtn_thumb_taps`).
    private(set) var uniform: Range<Int> = 0..<0
    private var uniformPairs: UnsafeMutablePointer<Float>?
    /// The taps every output has in a padded table (even, 2...16), or 0.
    private(set) var fixedCount = 0

    /// Sample weights from a continuous filter.
    enum Kernel {
        /// Box over the exact source area, fractional at the edges (area averaging).
        case area
        /// Linear interpolation, widened by the reduction factor.
        case triangle
        /// Windowed sinc with three lobes, widened by the reduction factor.
        case lanczos3
    }

    /// The taps of `kernel` over `map`. An identity map gets one tap of weight 1 per output.
    /// `padded`: for a horizontal pass (see above), when the row has room for the padded taps.
    init(_ map: AxisMap, kernel: Kernel, padded: Bool = false, memory: WorkingMemory) throws(ImagingError) {
        let scale = map.length / Double(map.outputSize)  // input samples per output sample
        let widen = max(1, scale)
        let radius: Double
        switch kernel {
        case .area: radius = scale / 2
        case .triangle: radius = widen
        case .lanczos3: radius = 3 * widen
        }
        outputSize = map.outputSize
        stride = map.isIdentity ? 1 : Int((2 * radius).rounded(.up)) + 2
        first = try memory.allocate(Int32.self, count: outputSize)
        count = try memory.allocate(Int32.self, count: outputSize)
        endsSoFar = try memory.allocate(Int32.self, count: outputSize)
        firstsFrom = try memory.allocate(Int32.self, count: outputSize)
        weights = try memory.allocate(Float.self, count: outputSize * stride + 4)  // the kernel reads weights four at a time
        var taps = [Double](repeating: 0, count: stride)  // once per table, not per sample
        let sinc = kernel == .lanczos3 ? LanczosSteps(step: 1 / widen) : nil
        // An output whose window lies inside the input at the same offset from its first input
        // as the previous such output's has the same taps: at 2:1, every output but the edges'.
        var previous: (offset: Double, count: Int, total: Double)?
        for i in 0..<outputSize {
            if map.isIdentity {
                first[i] = Int32(i)
                count[i] = 1
                weights[i] = 1
                continue
            }
            let low: Double, high: Double
            if kernel == .area {
                low = map.start + Double(i) * scale
                high = map.start + Double(i + 1) * scale
            } else {
                let center = map.start + (Double(i) + 0.5) * scale
                low = center - radius
                high = center + radius
            }
            let from = max(0, Int(low.rounded(.down)))
            let to = min(map.inputSize, Int(high.rounded(.up)))  // exclusive
            var total = 0.0
            switch kernel {
            case .area:
                for k in from..<to {
                    taps[k - from] = (min(Double(k + 1), high) - max(Double(k), low)) / scale
                    total += taps[k - from]
                }
            case .triangle:
                for k in from..<to {
                    taps[k - from] = Self.triangle((Double(k) + 0.5 - (low + radius)) / widen)
                    total += taps[k - from]
                }
            case .lanczos3:
                let offset = Double(from) - (low + radius), inside = low >= 0 && high <= Double(map.inputSize)
                if inside, let last = previous, last.offset == offset, last.count == to - from {
                    total = last.total  // taps[0..<count] still hold that output's weights
                } else {
                    total = sinc!.fill(&taps, count: to - from) { t in (Double(from + t) + 0.5 - (low + radius)) / widen }
                    previous = inside ? (offset, to - from, total) : nil
                }
            }
            // Trim taps that carry (almost) nothing from both ends, then normalize.
            var lo = 0, hi = to - from
            while hi - lo > 1, abs(taps[lo]) < 1e-9 { lo += 1 }
            while hi - lo > 1, abs(taps[hi - 1]) < 1e-9 { hi -= 1 }
            if total == 0 { total = 1 }
            first[i] = Int32(from + lo)
            count[i] = Int32(hi - lo)
            for t in lo..<hi { weights[i * stride + t - lo] = Float(taps[t] / total) }
        }
        if padded { pad(inputSize: map.inputSize) }
        maxOverlap = computeMaxOverlap(inputSize: map.inputSize)
        try findUniform(inputSize: map.inputSize, memory: memory)
        for i in 0..<outputSize { endsSoFar[i] = max(i > 0 ? endsSoFar[i - 1] : 0, first[i] + count[i]) }
        for i in (0..<outputSize).reversed() { firstsFrom[i] = min(i + 1 < outputSize ? firstsFrom[i + 1] : .max, first[i]) }
    }

    /// Gives every output `fixedCount` taps within `stride` (see above), when that count is at
    /// most 16 and the row is at least that long. O(outputs × stride).
    private mutating func pad(inputSize: Int) {
        var most = 0
        for i in 0..<outputSize { most = max(most, Int(count[i])) }
        let fixed = (most + 1) / 2 * 2
        guard fixed <= min(16, stride, inputSize) else { return }
        for i in 0..<outputSize {
            let n = Int(count[i]), row = weights + i * stride
            let start = min(Int(first[i]), inputSize - fixed), shift = Int(first[i]) - start
            if shift > 0 {
                for k in (0..<n).reversed() { row[k + shift] = row[k] }
                for k in 0..<shift { row[k] = 0 }
            }
            for k in (n + shift)..<fixed { row[k] = 0 }
            first[i] = Int32(start)
            count[i] = Int32(fixed)
        }
        fixedCount = fixed
    }

    /// A run of outputs that holds every output whose taps reach some input in `inputs`
    /// (non-empty): the only ones that can be nonzero when every other input is zero. Where the
    /// taps are ordered (all but odd-factor Lanczos enlargements), exactly those outputs. Two
    /// binary searches over the running end and first. O(log outputs).
    func outputs(reaching inputs: Range<Int>) -> Range<Int> {
        // From the first output before which no output's taps end past inputs.lowerBound …
        var lo = 0, hi = outputSize
        while lo < hi {
            let mid = (lo + hi) / 2
            if Int(endsSoFar[mid]) <= inputs.lowerBound { lo = mid + 1 } else { hi = mid }
        }
        let from = lo
        // … to the first from which every output's taps start at or past inputs.upperBound.
        hi = outputSize
        while lo < hi {
            let mid = (lo + hi) / 2
            if Int(firstsFrom[mid]) < inputs.upperBound { lo = mid + 1 } else { hi = mid }
        }
        return from..<max(from, lo)
    }

    /// Filters `row` into `out` (`outputSize` samples) for `outputs` only and sets the others to
    /// +0: what they sum to when every input outside the span `outputs` came from is zero (up
    /// to the sign of a zero, which no later stage turns into a different byte). Costs the taps
    /// of `outputs` and a clear of the rest.
    func filter(_ row: UnsafePointer<Float>, outputs: Range<Int>, into out: UnsafeMutablePointer<Float>) {
        out.clearSamples(outside: outputs, width: outputSize)
        if !outputs.isEmpty { rtn_thumb_filter_row(row, taps, outputs.lowerBound, outputs.upperBound, out) }
    }

    /// The table as the C kernels take it (pointers into this table's memory). O(1).
    var taps: rtn_thumb_taps {
        rtn_thumb_taps(first: first, count: count, weights: weights, stride: stride, outputs: outputSize,
                       fixed_count: Int32(fixedCount), uniform_pairs: uniformPairs, uniform_from: uniform.lowerBound,
                       uniform_to: uniform.upperBound, uniform_count: uniform.isEmpty ? 0 : count[uniform.lowerBound])
    }

    /// The longest run of outputs whose taps equal their neighbour's (count and weights, bit for
    /// bit), kept when it has at least two outputs, at most 16 taps and, for an odd count, one
    /// more input inside the row (the pairs read it with weight 0). O(outputs × stride).
    private mutating func findUniform(inputSize: Int, memory: WorkingMemory) throws(ImagingError) {
        func same(_ a: Int, _ b: Int) -> Bool {
            count[a] == count[b] && (0..<Int(count[a])).allSatisfy { weights[a * stride + $0] == weights[b * stride + $0] }
        }
        var best = 0..<0, start = 0
        for i in 1...outputSize {
            if i < outputSize, same(i, start) { continue }
            if i - start > best.count { best = start..<i }
            start = i
        }
        guard best.count >= 2 else { return }
        let taps = Int(count[best.lowerBound]), pairs = (taps + 1) / 2
        guard pairs <= 8 else { return }
        var end = best.upperBound
        while end > best.lowerBound, Int(first[end - 1]) + 2 * pairs > inputSize { end -= 1 }
        guard end - best.lowerBound >= 2 else { return }
        let packed = try memory.allocate(Float.self, count: 8 * pairs)  // zeroed: the tap past an odd count
        for t in 0..<taps {
            for lane in 0..<4 { packed[8 * (t / 2) + 4 * (t % 2) + lane] = weights[best.lowerBound * stride + t] }
        }
        uniformPairs = packed
        uniform = best.lowerBound..<end
    }

    /// The most outputs whose taps include one input, by a two-pointer sweep. O(input + output).
    private func computeMaxOverlap(inputSize: Int) -> Int {
        var open = 0, closed = 0, most = 1
        for y in 0..<inputSize {
            while open < outputSize, Int(first[open]) <= y { open += 1 }
            while closed < open, Int(first[closed] + count[closed]) <= y { closed += 1 }
            most = max(most, open - closed)
        }
        return most
    }

    static func triangle(_ x: Double) -> Double { max(0, 1 - abs(x)) }

    static func lanczos3(_ x: Double) -> Double {
        if x == 0 { return 1 }
        guard abs(x) < 3 else { return 0 }
        let px = Double.pi * x
        return 3 * sin(px) * sin(px / 3) / (px * px)
    }
}

/// Lanczos-3 at evenly spaced points: sin(πx) and sin(πx/3) are carried from one tap to the
/// next by the angle-addition formulas, so a whole output costs four sines and cosines, not two
/// sines per tap (the tables' build time was a tenth of a flat image's thumbnail).
struct LanczosSteps {
    private let step: (sin: Double, cos: Double)
    private let third: (sin: Double, cos: Double)

    /// For points `step` apart.
    init(step: Double) {
        self.step = (sin(.pi * step), cos(.pi * step))
        third = (sin(.pi * step / 3), cos(.pi * step / 3))
    }

    /// Sets `taps[t] = lanczos3(x(t))` for `t < count`, where `x(t)` is the first point plus `t`
    /// steps (computed by `x`, so the zero and the window's edges are those of `lanczos3`), and
    /// returns their sum. O(count).
    func fill(_ taps: inout [Double], count: Int, x: (Int) -> Double) -> Double {
        guard count > 0 else { return 0 }
        let x0 = x(0)
        var a = (sin: sin(.pi * x0), cos: cos(.pi * x0))
        var b = (sin: sin(.pi * x0 / 3), cos: cos(.pi * x0 / 3))
        var total = 0.0
        for t in 0..<count {
            let xt = x(t)
            let w: Double
            if xt == 0 {
                w = 1
            } else if abs(xt) < 3 {
                let px = Double.pi * xt
                w = 3 * a.sin * b.sin / (px * px)
            } else {
                w = 0
            }
            taps[t] = w
            total += w
            a = (a.sin * step.cos + a.cos * step.sin, a.cos * step.cos - a.sin * step.sin)
            b = (b.sin * third.cos + b.cos * third.sin, b.cos * third.cos - b.sin * third.sin)
        }
        return total
    }
}

/// The vertical half of area averaging, fed one source row at a time (push model).
///
/// Each incoming row is added with its weight to every output row whose taps include it (in
/// whatever form the caller's `add` reads it); an output row is handed on as soon as its last
/// input row has arrived. The first input an output row takes is stored rather than added, so
/// no row is cleared before it, and a row that ends one output row and starts the next reaches both
/// in one kernel call (its samples made once). Only `maxOverlap` accumulator rows exist at once
/// (2 for area averaging), so memory is a few rows whatever the height. Samples are
/// premultiplied RGBA, 4 floats each. Each accumulator row keeps the span outside which it
/// holds zeros (the kernels report each input row's; a fully transparent row's is empty), so a
/// stored row clears only what of the old span it does not cover, and each output row goes on
/// with its span.
struct VerticalAccumulator {
    let table: FilterTable
    let width: Int
    private let slots: Int
    private let rows: UnsafeMutablePointer<Float>
    /// Each slot's span, outside which it holds zeros.
    private let spans: SpanSlots
    /// The lowest output row not yet handed on.
    private(set) var nextOutput = 0
    /// False: the kernels are not told the spans, so a stored row clears everything outside
    /// its own, as if any accumulator row could hold anything (the tests compare the two).
    var tellsSpans = true

    init(table: FilterTable, width: Int, memory: WorkingMemory) throws(ImagingError) {
        self.table = table
        self.width = width
        self.slots = table.maxOverlap
        self.rows = try memory.allocate(Float.self, count: slots * width * 4)
        self.spans = try SpanSlots(count: slots, memory: memory)
    }

    /// True when input row `y` feeds some output row still open (rows cropped away do not).
    func needs(_ y: Int) -> Bool {
        nextOutput < table.outputSize && Int(table.first[nextOutput]) <= y
    }

    /// Adds input row `y` (inputs must arrive in order) and hands every completed output row
    /// to `emit`, in order, with the span outside which it is zero: `add(&target)` puts the row
    /// into the accumulator rows the target names (`width` samples each; see
    /// `rtn_thumb_target`) and sets the row's span, once or twice per input row.
    mutating func push(inputRow y: Int, add: (inout rtn_thumb_target) -> Void, emit: (UnsafePointer<Float>, _ span: Range<Int>) -> Void) {
        var pending: (target: rtn_thumb_target, output: Int, next: Int?)?
        var j = nextOutput
        while j < table.outputSize, Int(table.first[j]) <= y {
            let tap = y - Int(table.first[j])
            if tap < Int(table.count[j]) {
                let weight = table.weights[j * table.stride + tap]
                if var open = pending, open.next == nil, tap == 0 {
                    open.target.next = accumulator(j)  // the row also starts output j: one call for both
                    open.target.next_weight = weight
                    (open.target.next_lo, open.target.next_hi) = (spans[j % slots].lowerBound, spans[j % slots].upperBound)
                    open.next = j
                    put(open, add)
                    pending = nil
                } else {
                    if let open = pending { put(open, add) }
                    var target = rtn_thumb_target()
                    (target.acc, target.weight, target.fresh, target.known) = (accumulator(j), weight, tap == 0 ? 1 : 0, tellsSpans ? 1 : 0)
                    (target.acc_lo, target.acc_hi) = (spans[j % slots].lowerBound, spans[j % slots].upperBound)
                    pending = (target, j, nil)
                }
            }
            j += 1
        }
        if let open = pending { put(open, add) }
        while nextOutput < table.outputSize, Int(table.first[nextOutput] + table.count[nextOutput]) <= y + 1 {
            emit(accumulator(nextOutput), spans[nextOutput % slots])
            nextOutput += 1
        }
    }

    /// Runs `add` on a target and records the spans it leaves: a stored row's own, an added
    /// row's joined to the old one.
    private func put(_ open: (target: rtn_thumb_target, output: Int, next: Int?), _ add: (inout rtn_thumb_target) -> Void) {
        var target = open.target
        add(&target)
        let row = target.row_lo ..< max(target.row_lo, target.row_hi)
        let old = spans[open.output % slots]
        if target.fresh != 0 || old.isEmpty {
            spans[open.output % slots] = row
        } else if !row.isEmpty {
            spans[open.output % slots] = min(old.lowerBound, row.lowerBound) ..< max(old.upperBound, row.upperBound)
        }
        if let next = open.next { spans[next % slots] = row }
    }

    /// The accumulator row of output row `j`.
    private func accumulator(_ j: Int) -> UnsafeMutablePointer<Float> {
        rows + (j % slots) * width * 4
    }
}

/// The vertical half of the filter stage, fed one row at a time: the last rows an output row
/// can take are kept (as many as its most taps), and each output row is made, when its last
/// input has arrived, in one pass over its inputs (`rtn_thumb_gather`, the weights in
/// registers) rather than by adding each input into every output row it feeds: a load and a
/// multiply-add per tap and two samples, no accumulator read back. The sums are the same bits
/// as adding the rows in turn. Each input row comes with the span outside which it is zero; an
/// output row is made over the union of its inputs' spans only (zero elsewhere), and one whose
/// inputs are all zero rows is handed on as a zero row without the pass. Memory: the most taps
/// (12 at 2:1 Lanczos-3) rows of `width`, and two more.
struct VerticalWindow {
    let table: FilterTable
    let width: Int
    private let slots: Int
    private let rows: UnsafeMutablePointer<Float>
    private let inputs: UnsafeMutablePointer<UnsafePointer<Float>?>
    private let output: UnsafeMutablePointer<Float>
    /// Each slot's span, outside which it is zero.
    private let spans: SpanSlots
    /// An output row of zeros, never written: what a zero output row is handed on as.
    private let zeroOutput: UnsafeMutablePointer<Float>
    /// The lowest output row not yet handed on.
    private(set) var nextOutput = 0

    init(table: FilterTable, width: Int, memory: WorkingMemory) throws(ImagingError) {
        self.table = table
        self.width = width
        var most = 1
        for j in 0..<table.outputSize { most = max(most, Int(table.count[j])) }
        slots = most
        rows = try memory.allocate(Float.self, count: slots * width * 4)
        inputs = try memory.allocate(UnsafePointer<Float>?.self, count: slots)
        output = try memory.allocate(Float.self, count: width * 4)
        spans = try SpanSlots(count: slots, memory: memory)
        zeroOutput = try memory.allocate(Float.self, count: width * 4)
    }

    /// True when input row `y` feeds some output row still open (rows cropped away do not).
    func needs(_ y: Int) -> Bool {
        nextOutput < table.outputSize && Int(table.first[nextOutput]) <= y
    }

    /// Where input row `y` goes (`width` samples): the slot of the row `slots` before it, which
    /// no open output row takes any more.
    func slot(for y: Int) -> UnsafeMutablePointer<Float> {
        rows + (y % slots) * width * 4
    }

    /// Input row `y` is in its slot, zero outside `nonzero` (inputs in order): hands every output
    /// row whose inputs have all arrived to `emit`, in order, each with its span.
    mutating func arrived(_ y: Int, nonzero: Range<Int>, emit: (UnsafePointer<Float>, _ nonzero: Range<Int>) -> Void) {
        spans[y % slots] = nonzero
        while nextOutput < table.outputSize, Int(table.first[nextOutput] + table.count[nextOutput]) <= y + 1 {
            let first = Int(table.first[nextOutput]), count = Int(table.count[nextOutput])
            var lo = width, hi = 0
            for k in 0..<count where !spans[(first + k) % slots].isEmpty {
                (lo, hi) = (min(lo, spans[(first + k) % slots].lowerBound), max(hi, spans[(first + k) % slots].upperBound))
            }
            if lo >= hi {
                emit(zeroOutput, 0..<0)
            } else {
                for k in 0..<count { inputs[k] = UnsafePointer(slot(for: first + k) + 4 * lo) }
                output.clearSamples(outside: lo..<hi, width: width)
                rtn_thumb_gather(inputs, table.weights + nextOutput * table.stride, count, hi - lo, output + 4 * lo)
                emit(output, lo..<hi)
            }
            nextOutput += 1
        }
    }
}
