/// The measured series itself, kept so the verdict can look at its shape (a fill that stops, a
/// step): each measured iteration's number and figure, in bounded memory. Up to ``capacity``
/// points are kept as they came; when full, each pair of neighbours is merged into its mean
/// (x and y), so a soak of any length keeps at most ``capacity`` points, the later ones
/// standing for two, four, … iterations. A merged point keeps the series' shape and its slope;
/// a fit of merged points reads about the same interval (half the points, each with half the
/// variance). Appending is O(1) amortised.
public struct RetainedSeries: Sendable, Hashable {
    /// One point: an iteration's number (or the mean of those merged) and its figure in bytes.
    public struct Point: Sendable, Hashable {
        /// The iteration (from the soak's numbering), or the mean of those merged into it.
        public var x: Double
        /// The figure, bytes (or the mean of those merged).
        public var y: Double
    }

    /// The most points kept: 1,024 (16 KiB).
    public static let capacity = 1_024

    /// The points kept, oldest first.
    public private(set) var points: [Point] = []
    /// Iterations each new point stands for (1, then 2, 4, … after each merge).
    private var stride = 1
    /// Iterations waiting to be merged into the next point once ``stride`` is above 1.
    private var pendingX = 0.0, pendingY = 0.0, pendingCount = 0

    /// An empty series. O(1).
    public init() {}

    /// Appends the figure `y` of iteration `x`. O(1) amortised (a merge of the whole series
    /// every ``capacity`` ÷ 2 × stride points).
    public mutating func append(x: Double, y: Double) {
        pendingX += x
        pendingY += y
        pendingCount += 1
        guard pendingCount >= stride else { return }
        points.append(Point(x: pendingX / Double(pendingCount), y: pendingY / Double(pendingCount)))
        (pendingX, pendingY, pendingCount) = (0, 0, 0)
        guard points.count >= Self.capacity else { return }
        points = Swift.stride(from: 0, to: points.count - 1, by: 2).map {
            Point(x: (points[$0].x + points[$0 + 1].x) / 2, y: (points[$0].y + points[$0 + 1].y) / 2)
        }
        stride *= 2
    }

    /// The widest a slope fitted to `points[range]` can be moved by figures read in steps of
    /// `resolution` bytes (each off by up to half a step): resolution ÷ 2 × Σ|x − x̄| ÷ Σ(x − x̄)²,
    /// in bytes per iteration; 0 for fewer than two distinct x. For evenly spaced points about
    /// 1.5 × resolution ÷ n. O(range).
    public func resolutionHalfWidth(_ range: Range<Int>, resolution: Double) -> Double {
        guard resolution > 0, range.count >= 2 else { return 0 }
        let mean = range.reduce(0.0) { $0 + points[$1].x } / Double(range.count)
        var absolute = 0.0, squares = 0.0
        for index in range {
            let d = points[index].x - mean
            absolute += abs(d)
            squares += d * d
        }
        return squares > 0 ? resolution / 2 * absolute / squares : 0
    }

    /// The least-squares fit of `points[range]`. O(range).
    public func fit(_ range: Range<Int>) -> LinearFit {
        var fit = LinearFit()
        for index in range { fit.add(points[index].y, at: points[index].x) }
        return fit
    }
}
