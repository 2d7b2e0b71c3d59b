import Testing
@testable import Visibility

@Test("the Visibility module links") func visibilityLinks() {
    #expect(String(describing: VisibilityModule.self) == "VisibilityModule")
}
