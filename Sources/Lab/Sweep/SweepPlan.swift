import Imaging
import SystemIO
/// A sweep: every strategy × every value of one ``SweepKey``, each point run in fresh child
/// processes like `compare`, then summarized with its Pareto frontier and a recommendation.
public struct SweepPlan: Sendable, Hashable, Codable {
    /// One strategy at one value.
    public struct Point: Sendable, Hashable, Codable {
        /// The strategy.
        public var strategy: String
        /// The swept key's value (bytes or count).
        public var value: Int
        /// How results name the point: `decoded-lru bitmapBudget=8MB`, with the grid's
        /// setting after it (`decoded-lru bitmapBudget=8MB sourceLatencyMs.p95=800ms`).
        public var label: String
        /// The grid's key's value (``SweepPlan/grid``); nil in a sweep of one key.
        public var gridValue: Int? = nil
    }

    /// A second key and its values: a sweep over a grid of a knob (``key``) and a condition.
    public struct Axis: Sendable, Hashable, Codable {
        /// The key, a condition.
        public var key: SweepKey
        /// Its values, ascending (mildest first).
        public var values: [Int]

        /// An axis; `values` from ``SweepPlan/parseValues(_:key:)``.
        public init(key: SweepKey, values: [Int]) {
            self.key = key
            self.values = values
        }
    }

    /// The key varied.
    public var key: SweepKey
    /// Its values, ascending.
    public var values: [Int]
    /// The strategies, in the order given.
    public var strategies: [String]
    /// What each point's bitmap LRU admits of the scenario's images, by point label; filled by
    /// ``check(scenarioPath:repairTrace:)`` (empty for points whose policy keeps no bitmap LRU).
    public var admissions: [String: Admission] = [:]
    /// The condition varied across ``key``'s values, for a grid; nil for a sweep of one key.
    public var grid: Axis? = nil

    /// The most values a sweep takes.
    public static let maximumValues = 64

    /// A plan; `values` must come from ``parseValues(_:key:)`` (ascending, distinct).
    public init(key: SweepKey, values: [Int], strategies: [String]) {
        self.key = key
        self.values = values
        self.strategies = strategies
    }

    /// Every point, strategy by strategy, values ascending (for a grid, each value at every
    /// grid value, ascending). O(strategies × values × grid values).
    public var points: [Point] {
        strategies.flatMap { strategy in
            values.flatMap { value -> [Point] in
                let label = "\(strategy) \(SweepSetting(key: key, value: value))"
                guard let grid else { return [Point(strategy: strategy, value: value, label: label)] }
                return grid.values.map { Point(strategy: strategy, value: value, label: "\(label) \(SweepSetting(key: grid.key, value: $0))", gridValue: $0) }
            }
        }
    }

    /// The settings a point's run applies: the key's, and the grid's when there is one. O(1).
    public func settings(of point: Point) -> [SweepSetting] {
        [SweepSetting(key: key, value: point.value)] + (grid.flatMap { axis in point.gridValue.map { [SweepSetting(key: axis.key, value: $0)] } } ?? [])
    }

    /// True when some varied key changes the scenario, so each point states its own model. O(1).
    public var changesScenario: Bool { key.changesScenario || grid?.key.changesScenario == true }

    /// Prepares every point on the scenario at `scenarioPath` without running it, so a
    /// strategy the key cannot apply to, a bad scenario or missing images are one error before
    /// any child runs, and records what each point's LRU admits (``admissions``). Throws the
    /// first problem (`LabError.usage` for a setting that cannot apply). Costs one scenario load
    /// per strategy and one header read per image.
    public mutating func check(scenarioPath: String, repairTrace: Bool) throws {
        for name in strategies {
            let experiment = try Experiment.prepare(scenarioPath: scenarioPath, strategyName: name, repairTrace: repairTrace)
            for point in points where point.strategy == name {
                admissions[point.label] = try experiment.applying(settings(of: point)).admission()
            }
        }
    }

    /// The point labelled `label`, if any. O(points).
    public func point(labelled label: String) -> Point? { points.first { $0.label == label } }

    /// Parses `8MB,16MB,32MB` (ascending, distinct) or `8MB...256MB` (doubling from the first
    /// to the last, which must be the first doubled some number of times); `loadOrder`'s names
    /// in any order (`priority,fifo`), run as `fifo,priority`. Throws `LabError.usage` naming
    /// what is wrong. O(values).
    public static func parseValues(_ text: String, key: SweepKey) throws(LabError) -> [Int] {
        func value(_ part: Substring) throws(LabError) -> Int {
            let trimmed = String(part.drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
            guard let parsed = key.parseValue(trimmed) else {
                throw .invalid(.values, problem: "'\(trimmed)' is not \(key.valueExpectation) (for \(key.rawValue))")
            }
            return parsed
        }
        var values: [Int] = []
        let ends = text.split(separator: "...", maxSplits: 1, omittingEmptySubsequences: false)
        if ends.count == 2 {
            let low = try value(ends[0]), high = try value(ends[1])
            guard low > 0 else { throw .invalid(.values, problem: "a doubling range cannot start at 0; list the values instead") }
            guard low <= high else { throw .invalid(.values, problem: "the range \(text) runs downward; give the smaller value first") }
            // Doubled with an overflow check: an end near Int.max must stop the range, not trap.
            var next: Int? = low
            while let current = next, current <= high && values.count <= maximumValues {
                values.append(current)
                let (doubled, overflow) = current.multipliedReportingOverflow(by: 2)
                next = overflow ? nil : doubled
            }
            guard values.last == high else {
                let last = values.last ?? low
                let (above, overflow) = last.multipliedReportingOverflow(by: 2)
                let choices = overflow ? key.format(last) : "\(key.format(last)) or \(key.format(above))"
                throw .invalid(.values, problem: "\(key.format(high)) is not \(key.format(low)) doubled; end the range at \(choices), or list the values")
            }
        } else {
            let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            guard !text.isEmpty else { throw .invalid(.values, problem: "expected a list like 8MB,16MB or a range like 8MB...256MB") }
            for part in parts { values.append(try value(part)) }
            // Names have no order of their own: `priority,fifo` runs as `fifo,priority`.
            if key == .loadOrder { values.sort() }
            for (a, b) in zip(values, values.dropFirst()) where a >= b {
                throw .invalid(.values, problem: "expected ascending, distinct values; \(key.format(b)) follows \(key.format(a))")
            }
        }
        guard values.count <= maximumValues else { throw .invalid(.values, problem: "at most \(maximumValues) values, got more") }
        return values
    }
}

extension Experiment {
    /// What this experiment's bitmap LRU admits of its images (each bitmap's size from its
    /// header: the decoded image, or the thumbnail the policy makes); nil when the policy keeps
    /// no bitmap LRU (its rows do not make bitmaps evictable on disappear). One header read per
    /// distinct image.
    public func admission() -> Admission? {
        let policy = effectivePolicy
        guard policy.onDisappear == .evictable else { return nil }
        let cap = policy.effectiveAdmissionCap.bytes
        var sizes: [Int] = []
        for path in Set(images.paths).sorted() {
            guard let info = try? ImageInfo(contentsOf: path), (try? DecodeLimits.default.check(width: info.width, height: info.height)) != nil else { continue }
            if let thumbnailer = policy.visible.thumbnailer(limits: .default) {
                let size = thumbnailer.outputSize(sourceWidth: info.width, sourceHeight: info.height)
                sizes.append(size.width * size.height * 4)
            } else {
                sizes.append(info.decodedByteCount)
            }
        }
        return Admission(capBytes: cap, admitted: sizes.filter { $0 <= cap }.count, images: sizes.count, largestBytes: sizes.max() ?? 0)
    }
}
