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
/// non-decreasing in `i`, which is what lets rows stream (see `VerticalAccumulator`).
/// Memory: `outputSize × (8 + 4 × stride)` bytes, taken from the run's `WorkingMemory`.
struct FilterTable {
    let outputSize: Int
    let stride: Int
    let first: UnsafeMutablePointer<Int32>
    let count: UnsafeMutablePointer<Int32>
    let weights: UnsafeMutablePointer<Float>
    /// The most outputs that any one input sample feeds (accumulator rows kept open).
    private(set) var maxOverlap = 1

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
    init(_ map: AxisMap, kernel: Kernel, memory: WorkingMemory) throws(ImagingError) {
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
        weights = try memory.allocate(Float.self, count: outputSize * stride)
        var taps = [Double](repeating: 0, count: stride)  // once per table, not per sample
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
            for k in from..<to {
                let w: Double
                switch kernel {
                case .area:
                    w = (min(Double(k + 1), high) - max(Double(k), low)) / scale
                case .triangle:
                    w = Self.triangle((Double(k) + 0.5 - (low + radius)) / widen)
                case .lanczos3:
                    w = Self.lanczos3((Double(k) + 0.5 - (low + radius)) / widen)
                }
                taps[k - from] = w
                total += w
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
        maxOverlap = computeMaxOverlap(inputSize: map.inputSize)
    }

    /// The table as the C kernels take it (pointers into this table's memory). O(1).
    var taps: rtn_thumb_taps {
        rtn_thumb_taps(first: first, count: count, weights: weights, stride: stride, outputs: outputSize)
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

/// The vertical half of a separable resampling step, fed one row at a time (push model).
///
/// Each incoming row, already resampled horizontally to `width` samples, is added with its
/// weight to every output row whose taps include it (`rtn_thumb_accumulate`); an output row is
/// handed on as soon as its last input row has arrived. Only `maxOverlap` accumulator rows
/// exist at once (2 for area averaging, about 7 for Lanczos-3 at 2:1), so memory is a few rows
/// whatever the height. Samples are premultiplied RGBA, 4 floats each.
struct VerticalAccumulator {
    let table: FilterTable
    let width: Int
    private let slots: Int
    private let rows: UnsafeMutablePointer<Float>
    /// The lowest output row not yet handed on.
    private(set) var nextOutput = 0

    init(table: FilterTable, width: Int, memory: WorkingMemory) throws(ImagingError) {
        self.table = table
        self.width = width
        self.slots = table.maxOverlap
        self.rows = try memory.allocate(Float.self, count: slots * width * 4)
    }

    /// True when input row `y` feeds some output row still open (rows cropped away do not).
    func needs(_ y: Int) -> Bool {
        nextOutput < table.outputSize && Int(table.first[nextOutput]) <= y
    }

    /// Adds input row `y` (inputs must arrive in order) and hands every completed output row
    /// to `emit`, in order. Costs `width` multiply-adds per output row the input feeds.
    mutating func push(_ row: UnsafePointer<Float>, inputRow y: Int, emit: (UnsafePointer<Float>) -> Void) {
        let width = self.width
        push(inputRow: y, add: { acc, weight in rtn_thumb_accumulate(acc, row, weight, width) }, emit: emit)
    }

    /// As `push(_:inputRow:emit:)` for an input row in another form: `add(acc, weight)` adds
    /// the row times `weight` into the accumulator row `acc` (`width` samples), once for every
    /// output row the input feeds.
    mutating func push(inputRow y: Int, add: (UnsafeMutablePointer<Float>, Float) -> Void, emit: (UnsafePointer<Float>) -> Void) {
        var j = nextOutput
        while j < table.outputSize, Int(table.first[j]) <= y {
            let tap = y - Int(table.first[j])
            if tap < Int(table.count[j]) {
                add(accumulator(j), table.weights[j * table.stride + tap])
            }
            j += 1
        }
        while nextOutput < table.outputSize, Int(table.first[nextOutput] + table.count[nextOutput]) <= y + 1 {
            let acc = accumulator(nextOutput)
            emit(acc)
            memset(acc, 0, width * 4 * MemoryLayout<Float>.stride)
            nextOutput += 1
        }
    }

    /// The accumulator row of output row `j`.
    private func accumulator(_ j: Int) -> UnsafeMutablePointer<Float> {
        rows + (j % slots) * width * 4
    }
}
