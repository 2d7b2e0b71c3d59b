import SystemIO

/// SystemIO's `Median` under the name Lab gave it before; deprecated, since a type has one
/// name: use `SystemIO.Median`. Goes in 0.3.0.
@available(*, deprecated, message: "use SystemIO's Median; Lab's name goes in 0.3.0")
public typealias Median = SystemIO.Median
