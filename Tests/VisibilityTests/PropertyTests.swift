import AssetGen
import Testing
@testable import Visibility

/// Random configurations and scripts (seeded SplitMix64), checked frame by frame by
/// `LifecycleChecker`: the appeared set equals the rows intersecting viewport ± prefetch (list),
/// nothing appears before it is initialized, nothing is released twice, and every initialized row
/// is released exactly once by destroy.
@Suite("Properties")
struct PropertyTests {
    @Test("random scripts keep every lifecycle invariant", arguments: 0..<48)
    func randomScripts(seed: Int) {
        var random = SplitMix64(seed: UInt64(seed) &* 0x9E37_79B9 &+ 17)
        for _ in 0..<6 {
            let configuration = Self.randomConfiguration(&random)
            var simulator = VisibilitySimulator(configuration: configuration)
            var checker = LifecycleChecker(configuration: configuration)
            // Several runs on one simulator: resuming must keep every invariant too.
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let script = (0..<Int.random(in: 1...12, using: &random)).map { _ in
                    Self.randomStep(&random, rowCount: configuration.rows.count, depth: 0)
                }
                simulator.run(script: script, onEvent: { checker.handle($0) }, onFrameEnd: { checker.frameEnded($0) })
            }
            simulator.run(script: [.destroyContainer], onEvent: { checker.handle($0) },
                          onFrameEnd: { checker.frameEnded($0) })
            #expect(checker.failures.isEmpty, "\(configuration): \(checker.failures)")
            #expect(checker.framesChecked == simulator.frame + 1)
        }
    }

    static func randomConfiguration(_ random: inout SplitMix64) -> SimulationConfiguration {
        let edges: DisappearEdges = Bool.random(using: &random) ? .bottom : .both
        let kinds: [ContainerKind] = [
            .list, .lazyVStack(disappearEdges: edges),
            .lazyVGrid(columns: Int.random(in: 1...4, using: &random), disappearEdges: edges), .vStack,
        ]
        let height: RowHeight = Bool.random(using: &random)
            ? .fixed(Double(Int.random(in: 20...200, using: &random)))
            : .cycled((0..<Int.random(in: 1...5, using: &random)).map { _ in
                Double(Int.random(in: 10...250, using: &random))
            })
        let loadMore = Int.random(in: 0..<3, using: &random) == 0
            ? LoadMore(
                threshold: Int.random(in: 1...10, using: &random),
                batch: Int.random(in: 1...20, using: &random),
                delayFrames: Int.random(in: 1...10, using: &random))
            : nil
        return SimulationConfiguration(
            container: ContainerConfiguration(
                kind: kinds.randomElement(using: &random)!, prefetchRows: Int.random(in: 0...3, using: &random)),
            rows: RowsConfiguration(
                count: Int.random(in: 0...60, using: &random), height: height,
                explicitID: Bool.random(using: &random), variableViewsPerElement: Bool.random(using: &random),
                destination: DestinationKind.allCases.randomElement(using: &random)!, loadMore: loadMore),
            viewport: Viewport(width: 390, height: Double(Int.random(in: 50...800, using: &random))),
            frameRate: Bool.random(using: &random) ? .hz60 : .hz120)
    }

    static func randomStep(_ random: inout SplitMix64, rowCount: Int, depth: Int) -> ScriptStep {
        let row = Int.random(in: 0...max(0, rowCount + 5), using: &random)
        switch Int.random(in: 0..<20, using: &random) {
        case 0..<6:
            return .scroll(by: Double(Int.random(in: -3000...3000, using: &random)),
                           frames: Int.random(in: 1...10, using: &random))
        case 6..<8:
            return .fling(velocity: Double(Int.random(in: -5000...5000, using: &random)),
                          deceleration: [0.99, 0.995, 0.998].randomElement(using: &random)!)
        case 8..<11:
            return .scrollTo(row: row, anchor: ScrollAnchor.allCases.randomElement(using: &random)!)
        case 11: return .pause(frames: Int.random(in: 0...4, using: &random))
        case 12: return .navigate(row: row)
        case 13: return .back
        case 14: return .memoryWarning
        case 15: return .destroyContainer
        case 16: return .recreateContainer
        case 17: return .checkpoint(name: "c\(row)")
        default:
            guard depth < 2 else { return .pause(frames: 1) }
            return .repeat(
                times: Int.random(in: 0...2, using: &random),
                steps: (0..<Int.random(in: 1...3, using: &random)).map { _ in
                    randomStep(&random, rowCount: rowCount, depth: depth + 1)
                })
        }
    }
}
