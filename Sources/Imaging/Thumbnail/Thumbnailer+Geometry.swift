/// The size math of one thumbnail: the output size, the source window each axis reads (a
/// centre crop in `fill`), and the intermediate grid between the two resampling stages.
struct ThumbnailGeometry: Equatable {
    /// One axis of the plan.
    struct Axis: Equatable {
        var source: Int
        var output: Int
        /// The source interval the output covers: `[windowStart, windowStart + windowLength)`.
        var windowStart: Double
        var windowLength: Double
        /// Samples after the area-averaging stage.
        var intermediate: Int
        /// Source → intermediate (area averaging; identity when this axis is not reduced by it).
        var area: AxisMap
        /// Intermediate → output, or nil when the area stage already gives the output.
        var resample: AxisMap?

        /// Plans an axis: `good` area-averages to twice the output when the reduction is 3x
        /// or more and leaves the rest to Lanczos-3; `fast` area-averages straight to the
        /// output. Enlarging (only `exact` enlarges) always goes through the filter stage.
        init(source: Int, output: Int, windowStart: Double, windowLength: Double, quality: Thumbnailer.Quality) {
            self.source = source
            self.output = output
            self.windowStart = windowStart
            self.windowLength = windowLength
            let window = AxisMap(inputSize: source, outputSize: output, start: windowStart, length: windowLength)
            if quality == .good, windowLength >= 3 * Double(output) {
                intermediate = 2 * output
                area = AxisMap(inputSize: source, outputSize: intermediate, start: windowStart, length: windowLength)
                resample = AxisMap(inputSize: intermediate, outputSize: output)
            } else if quality == .fast, Double(output) <= windowLength {
                intermediate = output
                area = window
                resample = nil
            } else {
                intermediate = source
                area = AxisMap(inputSize: source, outputSize: source)
                resample = window.isIdentity ? nil : window
            }
        }

        /// The filter stage's map, identity when this axis needs none.
        var resampleOrIdentity: AxisMap { resample ?? AxisMap(inputSize: intermediate, outputSize: intermediate) }
    }

    var x: Axis
    var y: Axis

    /// True when a filter stage follows area averaging on either axis.
    var needsResampler: Bool { x.resample != nil || y.resample != nil }
}

extension Thumbnailer {
    /// The size of the thumbnail of a `sourceWidth`×`sourceHeight` image, without decoding.
    ///
    /// `fit`: the largest size inside the box with the source's aspect ratio, each side
    /// rounded to nearest and at least 1 (600x400 in 128 gives 128x85, as vipsthumbnail
    /// does); an image already inside the box keeps its size. `fill`: covers the box, then the
    /// centre is cropped to it (never enlarging). `exact`: the box, stretched. Any `Int` is
    /// taken, `Int.max` included, and never traps: a source side below 1 counts as 1, and each
    /// side of the answer lies in `1...max(1, box side)` (`fit` and `fill` also within the
    /// source's side). O(1).
    public func outputSize(sourceWidth: Int, sourceHeight: Int) -> (width: Int, height: Int) {
        let g = geometry(sourceWidth: max(1, sourceWidth), sourceHeight: max(1, sourceHeight))
        return (g.x.output, g.y.output)
    }

    /// The full plan for a source size; `width` and `height` must be at least 1.
    func geometry(sourceWidth sw: Int, sourceHeight sh: Int) -> ThumbnailGeometry {
        // fit and fill never enlarge, so a box bigger than the source is the source.
        let bw = max(1, min(width, sw)), bh = max(1, min(height, sh))
        var outW = bw, outH = bh
        var startX = 0.0, startY = 0.0, lengthX = Double(sw), lengthY = Double(sh)
        switch mode {
        case .fit:
            // Products in full width (128 bits): sides up to Int.max neither overflow nor trap.
            if Self.product(bw, sh) <= Self.product(bh, sw) {
                outH = max(1, Self.roundedQuotient(Self.product(sh, bw), sw))
            } else {
                outW = max(1, Self.roundedQuotient(Self.product(sw, bh), sh))
            }
        case .fill:
            let scale = max(Double(bw) / Double(sw), Double(bh) / Double(sh))
            (outW, startX, lengthX) = Self.cover(source: sw, box: bw, scale: scale)
            (outH, startY, lengthY) = Self.cover(source: sh, box: bh, scale: scale)
        case .exact:
            outW = max(1, width)
            outH = max(1, height)
        }
        return ThumbnailGeometry(
            x: .init(source: sw, output: outW, windowStart: startX, windowLength: lengthX, quality: quality),
            y: .init(source: sh, output: outH, windowStart: startY, windowLength: lengthY, quality: quality)
        )
    }

    /// `fill` on one axis: scaled to `scale`, then cropped to the box around the centre.
    /// The scaled side is clamped to the source's before it becomes an `Int` (`scale` is at most
    /// 1, but a side past 2^53 rounds up in `Double`, and one near `Int.max` to 2^63, which no
    /// `Int` holds).
    private static func cover(source: Int, box: Int, scale: Double) -> (output: Int, start: Double, length: Double) {
        let exact = (Double(source) * scale).rounded()
        let scaled = min(source, exact < 0x1p63 ? max(1, Int(exact)) : Int.max)
        if scaled <= box { return (scaled, 0, Double(source)) }
        if scale >= 1 { return (box, Double((source - box) / 2), Double(box)) }
        let length = min(Double(source), Double(box) / scale)
        return (box, (Double(source) - length) / 2, length)
    }

    /// `a × b` of non-negative sides in full width, as (high, low) words that compare in order.
    private static func product(_ a: Int, _ b: Int) -> Wide {
        let (high, low) = a.multipliedFullWidth(by: b)
        return Wide(high: high, low: low)
    }

    /// `a / b` rounded to nearest, halves up, of a full-width `a` whose quotient fits an `Int`
    /// (the caller's `a ≤ limit × b` guarantees it); the remainder rule of the `Int` form.
    private static func roundedQuotient(_ a: Wide, _ b: Int) -> Int {
        let (quotient, remainder) = b.dividingFullWidth((high: a.high, low: a.low))
        return quotient + (remainder >= b - remainder ? 1 : 0)
    }

    /// A non-negative 128-bit product, ordered by its high then its low word.
    private struct Wide: Comparable {
        var high: Int
        var low: UInt
        static func < (a: Wide, b: Wide) -> Bool { (a.high, a.low) < (b.high, b.low) }
    }
}
