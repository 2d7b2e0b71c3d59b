import Scenario
import Visibility

/// Sentences a comparison prints under its table when the scenario makes a figure easy to
/// misread.
public enum ComparisonHints {
    /// The hints for `scenario`: what a cache entry stands for when rows share images; a lazy stack or grid whose rows disappear only at the bottom
    /// edge (the default, as SwiftUI's LazyVStack) never releases rows scrolled off the top, so
    /// release-on-disappear strategies keep them; a trace scenario, whose container is what the
    /// trace says. O(1).
    public static func lines(for scenario: Scenario) -> [String] {
        var lines: [String] = []
        if scenario.settings.images?.identity == .image {
            lines.append("images: identity image: rows that show the same file share one cache entry and one load, as a cache keyed by URL does (\"identity\": \"row\", the default, makes every row its own content)")
        }
        guard scenario.trace == nil else { return lines }
        switch scenario.container.kind {
        case .lazyVStack(.bottom), .lazyVGrid(_, .bottom):
            let kind = scenario.container.kind.name == "lazyVGrid" ? "LazyVGrid" : "LazyVStack"
            lines.append("hint: rows leaving this \(kind) at the top never get onDisappear (\"disappearEdges\": \"bottom\", the default, as SwiftUI does), so strategies that release on disappear keep them until the container goes; \"disappearEdges\": \"both\" models a list that releases them")
        default:
            break
        }
        return lines
    }
}
