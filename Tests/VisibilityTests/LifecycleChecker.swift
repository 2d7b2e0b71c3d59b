@testable import Visibility

/// Checks a simulation against the rules independently of the engine: event legality per row, and
/// at every frame end the appeared set against a brute-force layout of the rows.
struct LifecycleChecker {
    let configuration: SimulationConfiguration
    /// Failure messages, kept in a box so `require` can read the checker while recording.
    private final class Log {
        var messages: [String] = []
    }

    private let log = Log()
    var failures: [String] { log.messages }
    private(set) var framesChecked = 0
    private var rowCount: Int
    private var alive = false
    private var built: Set<Int> = []
    private var appeared: Set<Int> = []
    private var released: Set<Int> = []
    private var destinations: Set<Int> = []
    private var lastFrame = 0

    init(configuration: SimulationConfiguration) {
        self.configuration = configuration
        self.rowCount = configuration.rows.count
    }

    private func require(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition && log.messages.count < 20 { log.messages.append(message()) }
    }

    mutating func handle(_ event: VisibilityEvent) {
        require(event.frame >= lastFrame, "frame went back at \(event)")
        lastFrame = event.frame
        switch event.kind {
        case .containerCreated:
            require(!alive, "created while alive at \(event)")
            alive = true
            built = []; appeared = []; released = []; destinations = []
            return
        case .rowsAppended(let count):
            rowCount += count
            return
        case .memoryWarning, .checkpoint:
            return
        default:
            break
        }
        require(alive, "\(event) without a container")
        switch event.kind {
        case .initialized(let row):
            require(row >= 0 && row < rowCount, "\(event): no such row")
            let isNew = built.insert(row).inserted
            require(isNew, "\(event): initialized twice")
        case .appeared(let row):
            require(built.contains(row), "\(event): appeared before initialized")
            let isNew = appeared.insert(row).inserted
            require(isNew, "\(event): appeared twice")
        case .disappeared(let row):
            let wasIn = appeared.remove(row) != nil
            require(wasIn, "\(event): disappeared without appearing")
        case .released(let row):
            require(built.contains(row), "\(event): released but never built")
            require(!appeared.contains(row), "\(event): released while appeared")
            let isNew = released.insert(row).inserted
            require(isNew, "\(event): released twice")
        case .destinationInitialized(let row):
            require(configuration.rows.destination != .none, "\(event): no destinations configured")
            if configuration.rows.destination == .eager {
                require(built.contains(row), "\(event): eager destination of an unbuilt row")
            }
            let isNew = destinations.insert(row).inserted
            require(isNew, "\(event): destination built twice")
        case .destinationReleased(let row):
            let wasIn = destinations.remove(row) != nil
            require(wasIn, "\(event): destination released twice")
        case .containerDestroyed:
            require(released == built, "\(event): released \(released.count) of \(built.count) built rows")
            require(appeared.isEmpty && destinations.isEmpty, "\(event): rows or destinations left")
            alive = false
        default:
            break
        }
    }

    mutating func frameEnded(_ report: FrameReport) {
        framesChecked += 1
        require(report.rowCount == rowCount, "frame \(report.frame): row count \(report.rowCount) != \(rowCount)")
        require(report.isContainerAlive == alive, "frame \(report.frame): alive mismatch")
        guard alive else {
            require(report.visibleRows.isEmpty, "frame \(report.frame): visible rows without a container")
            return
        }
        let (visible, region, content) = expectedRegion(offset: report.offset)
        let height = configuration.viewport.height
        require(report.offset >= 0 && report.offset <= max(0, content - height),
                "frame \(report.frame): offset \(report.offset) outside the content")
        require(report.visibleRows == visible, "frame \(report.frame): visible \(report.visibleRows) != \(visible)")
        require(report.laidOutRows == region, "frame \(report.frame): laid out \(report.laidOutRows) != \(region)")
        let kind = configuration.container.kind
        if kind.isLazy && kind.disappearEdges == .bottom {
            require(Set(region).isSubset(of: appeared), "frame \(report.frame): region rows not appeared")
            require(appeared.allSatisfy { $0 < region.upperBound },
                    "frame \(report.frame): appeared rows below the region")
        } else {
            require(appeared == Set(region),
                    "frame \(report.frame): appeared \(appeared.sorted()) != region \(region)")
        }
    }

    /// Rows intersecting the viewport, and the laid-out region, by summing line heights one by one.
    private func expectedRegion(offset: Double) -> (visible: Range<Int>, region: Range<Int>, content: Double) {
        let columns = configuration.container.kind.columns
        let lineCount = (rowCount + columns - 1) / columns
        var tops: [Double] = [0]
        for line in 0..<lineCount {
            let cells = (line * columns)..<min((line + 1) * columns, rowCount)
            tops.append(tops[line] + cells.map { configuration.rows.height.height(ofRow: $0) }.max()!)
        }
        let lower = offset
        let upper = offset + configuration.viewport.height
        let lines = (0..<lineCount).filter { tops[$0] < upper && tops[$0 + 1] > lower }
        let rows = { (lines: Range<Int>) in
            min(lines.lowerBound * columns, rowCount)..<min(lines.upperBound * columns, rowCount)
        }
        guard let first = lines.first, let last = lines.last else { return (0..<0, 0..<0, tops.last!) }
        let visibleLines = first..<(last + 1)
        let prefetch = configuration.container.prefetchRows
        let regionLines = configuration.container.kind.isLazy
            ? max(0, first - prefetch)..<min(lineCount, last + 1 + prefetch)
            : 0..<lineCount
        return (rows(visibleLines), rows(regionLines), tops.last!)
    }
}
