import SystemIO

/// SystemIO's `NumberText` under the name Lab gave it before; deprecated, since a type has one
/// name: use `SystemIO.NumberText`. Goes in 0.3.0.
@available(*, deprecated, message: "use SystemIO's NumberText; Lab's name goes in 0.3.0")
public typealias NumberText = SystemIO.NumberText
