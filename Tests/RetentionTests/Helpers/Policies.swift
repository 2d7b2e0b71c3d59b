@testable import Retention

extension RetentionPolicy {
    /// This policy renamed and changed by `change`.
    func with(_ change: (inout RetentionPolicy) -> Void) -> RetentionPolicy {
        var copy = self
        copy.name += "-test"
        change(&copy)
        return copy
    }
}
