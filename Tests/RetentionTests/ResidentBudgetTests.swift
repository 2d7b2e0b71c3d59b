import SystemIO
import Testing

/// The budget bounds what the process keeps: an ImageCache scrolled over 600 distinct
/// 1200×900 photos (3 rows visible, a 32 MB decoded budget, every other setting the default)
/// in a `MemoryCheck budget-scroll` child process, alone, so other tests' memory does not leak
/// into its resident figures.
@Suite("Resident memory against the budget")
struct ResidentBudgetTests {
    /// Runs `MemoryCheck budget-scroll ARGUMENTS` (built beside the test bundle) and parses its
    /// `key value` lines.
    static func scroll(_ arguments: [String]) throws -> [String: Int] {
        let here = try #require(FileIO.executablePath, "the test bundle's path from /proc/self/exe")
        let outcome = try ChildProcess(executable: FileIO.directory(of: here) + "/MemoryCheck",
                                       arguments: ["budget-scroll", "--distinct", "2"] + arguments).run()
        let output = String(decoding: outcome.stdout, as: UTF8.self)
        #expect(outcome.exitStatus == 0, "MemoryCheck budget-scroll \(arguments): \(output)")
        var values: [String: Int] = [:]
        for line in output.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let value = Int(parts[1]) { values[String(parts[0])] = value }
        }
        return values
    }

    @Test("under the default allocator the process rises at most 1.25× the cache's logical peak + 8 MB; system rises more")
    func defaultKeepsTheBudget() throws {
        let scroll = try Self.scroll([])
        let rise = try #require(scroll["rise"]), logical = try #require(scroll["logical-peak"])
        #expect(scroll["loads"] == 600)
        // 3 visible bitmaps of 4.32 MB and a 32 MB budget: the cache holds 40 to 60 MB at its peak.
        #expect((40_000_000...64_000_000).contains(logical), "logical peak \(logical)")
        #expect(Double(rise) <= 1.25 * Double(logical) + 8_000_000, "rise \(rise) against a logical peak of \(logical)")

        // The same load with 8 decode workers, under the default and under `system`, whose
        // freed bitmaps stay in the workers' malloc arenas: the test can fail.
        let bounded = try Self.scroll(["--workers", "8", "--rows", "300"])
        let system = try Self.scroll(["--workers", "8", "--rows", "300", "--allocator", "system"])
        let boundedRise = try #require(bounded["rise"]), systemRise = try #require(system["rise"])
        let boundedLogical = try #require(bounded["logical-peak"])
        #expect(Double(boundedRise) <= 1.25 * Double(boundedLogical) + 8_000_000, "8 workers: rise \(boundedRise) against \(boundedLogical)")
        #expect(Double(systemRise) > Double(boundedRise) + 16_000_000,
                "system rose \(systemRise), the default \(boundedRise): system should keep at least 16 MB more")
    }
}
