import SystemIO

/// The package's one number formatter: SystemIO's, named here as before for the lab's code and
/// clients.
public typealias NumberText = SystemIO.NumberText
