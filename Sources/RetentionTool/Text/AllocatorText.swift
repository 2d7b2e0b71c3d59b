import Lab
import SystemIO

/// What a comparison's reports say of the bitmap allocators: which one each strategy ran
/// (a model line), and which strategies the process held much more than the cache for.
package enum AllocatorText {
    /// The share of the logical peak a strategy's peak resident memory may exceed it by before
    /// a report names the allocator: a quarter.
    package static let residentSlack = 0.25

    /// `model: bitmap allocators bounded (decoded-lru, tiered), system (lru-24mb)`, or with one
    /// allocator for every strategy `model: bitmap allocator bounded (every strategy)`, in the
    /// order of `strategies`; nil when no run reported. O(runs log runs).
    package static func modelLine(_ runs: [ComparisonDocument.Run], strategies order: [String]) -> String? {
        // Strategies in the order asked for, whatever order their runs finished in.
        let rank = Dictionary(order.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        let runs = runs.sorted { (rank[$0.strategy] ?? .max, $0.repeatIndex) < (rank[$1.strategy] ?? .max, $1.repeatIndex) }
        var order: [String] = []
        var strategies: [String: [String]] = [:]
        var seen = Set<String>()
        for run in runs {
            guard let report = run.report, seen.insert(run.strategy).inserted else { continue }
            if strategies[report.allocator] == nil { order.append(report.allocator) }
            strategies[report.allocator, default: []].append(run.strategy)
        }
        guard !order.isEmpty else { return nil }
        if order.count == 1 { return "model: bitmap allocator \(order[0]) (every strategy)" }
        return "model: bitmap allocators " + order.map { "\($0) (\(strategies[$0]!.joined(separator: ", ")))" }.joined(separator: ", ")
    }

    /// A note for each strategy whose median rise of resident memory (its peak less its
    /// resident memory at startup, before the cache held anything: the process's own floor is
    /// not the cache's) exceeds its median logical peak by more than ``residentSlack``, naming
    /// what its allocator held freed at the worst checkpoint: `note: lru-24mb's resident memory
    /// rose 89.4 MB over startup, 1.43× its logical peak of 62.5 MB: its allocator (system) held
    /// 27.0 MB freed (malloc's arenas 27.0 MB, its pool 0.0 KB)`. In the order of `strategies`.
    /// O(runs × checkpoints).
    package static func residentNotes(_ runs: [ComparisonDocument.Run], strategies: [String]) -> [String] {
        var reports: [String: [RunReport]] = [:]
        for run in runs {
            guard let report = run.report else { continue }
            reports[run.strategy, default: []].append(report)
        }
        // In the order asked for; a strategy missing from it (none, in practice) after them.
        let order = strategies.filter { reports[$0] != nil } + reports.keys.filter { !strategies.contains($0) }.sorted()
        return order.compactMap { strategy in
            let all = reports[strategy]!
            return residentNote(strategy: strategy, allocator: all[0].allocator,
                                rise: SystemIO.Median.of(all.map { report in
                                    let startup = report.checkpoints.first { $0.name == "startup" } ?? report.checkpoints.first
                                    return report.peakResidentBytes - (startup?.residentBytes ?? 0)
                                }),
                                logicalPeak: SystemIO.Median.of(all.map(\.peakLogicalBytes)),
                                heapFreeHeld: SystemIO.Median.of(all.map { $0.checkpoints.map(\.heapFreeHeldBytes).max() ?? 0 }),
                                poolHeld: SystemIO.Median.of(all.map { $0.checkpoints.map(\.poolBytes).max() ?? 0 }))
        }
    }

    /// The note for one strategy's medians, or nil when its rise of resident memory is within
    /// ``residentSlack`` of its logical peak (or the logical peak is 0). O(1).
    package static func residentNote(strategy: String, allocator: String, rise: Int, logicalPeak: Int,
                                     heapFreeHeld: Int, poolHeld: Int) -> String? {
        guard logicalPeak > 0, Double(rise) > Double(logicalPeak) * (1 + residentSlack) else { return nil }
        let ratio = SystemIO.NumberText.twoDecimals(Double(rise) / Double(logicalPeak))
        return "note: \(strategy)'s resident memory rose \(SystemIO.NumberText.size(rise)) over startup, \(ratio)× its logical peak of "
            + "\(SystemIO.NumberText.size(logicalPeak)): its allocator (\(allocator)) held \(SystemIO.NumberText.size(heapFreeHeld + poolHeld)) freed "
            + "(malloc's arenas \(SystemIO.NumberText.size(heapFreeHeld)), its pool \(SystemIO.NumberText.size(poolHeld)))"
    }
}
