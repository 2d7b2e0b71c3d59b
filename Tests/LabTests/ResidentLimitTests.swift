import Testing
@testable import Lab

@Suite("The default resident-memory limit")
struct ResidentLimitTests {
    @Test("the default is 75 % of the memory the process may take, shared among parallel runs")
    func defaultShare() throws {
        let one = try #require(ResidentLimit.defaultBytes())
        let two = try #require(ResidentLimit.defaultBytes(sharedBy: 2))
        #expect(one > 100_000_000)
        #expect(abs(2 * two - one) <= 1)
        #expect(ResidentLimitReached.message(residentBytes: 70_260_000, frame: 12, limitBytes: 64_000_000)
            == "resident memory reached 70.3 MB at frame 12 (limit 64.0 MB)")
    }
}
