import SoakProbe

/// The running least-squares fit moved to SoakProbe, the one verdict engine the lab's soak,
/// `retention soak --exec` and the library share, as `LinearFit` (same members, same JSON).
@available(*, deprecated, renamed: "LinearFit", message: "moved to SoakProbe as LinearFit, the one fit every soak uses")
public typealias SlopeFit = LinearFit
