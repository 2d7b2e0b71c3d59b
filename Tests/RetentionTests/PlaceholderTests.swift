import Testing
@testable import Retention

// The cache issue fills this target; the layout exists so the module's tests have a home.
@Test("the Retention module links") func retentionLinks() {
    #expect(String(describing: RetentionModule.self) == "RetentionModule")
}
