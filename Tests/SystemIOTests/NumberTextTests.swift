import Testing
@testable import SystemIO

/// The one number formatter's cells.
@Suite("Number text")
struct NumberTextTests {
    @Test("hitches and placeholders show their min–max when runs differ; MB keeps its sign")
    func cells() {
        #expect(NumberText.count(3, [1, 7]) == "3 (1–7)")
        #expect(NumberText.count(3, [3, 3]) == "3")
        #expect(NumberText.mb(-500_000) == "-0.5")
        #expect(NumberText.mb(-400_000) == "-0.4")
        #expect(NumberText.mb(-40_000) == "0.0")
        #expect(NumberText.mb(12_345_678) == "12.3")
        #expect(NumberText.megabytes(1_234_567) == "1.2 MB")
        #expect(NumberText.mb(-400_000.0) == "-0.4")
        #expect(NumberText.twoDecimals(-0.07) == "-0.07")
        #expect(NumberText.twoDecimals(12.5) == "12.50")
    }

    @Test("sizes print in the largest decimal unit they reach, KB to EB, either sign")
    func sizes() {
        #expect(NumberText.size(27_900) == "27.9 KB")
        #expect(NumberText.size(-400_000) == "-400.0 KB")
        #expect(NumberText.size(1_234_567) == "1.2 MB")
        #expect(NumberText.size(999_999_999) == "1.0 GB")
        #expect(NumberText.size(1_500_000_000_000) == "1.5 TB")
        #expect(NumberText.size(2_000_000_000_000_000) == "2.0 PB")
        #expect(NumberText.size(1_000_000_000_000_000_000) == "1.0 EB")
        #expect(NumberText.size(Double(Int.max)) == "9.2 EB")
        #expect(NumberText.size(-400) == "-0.4 KB")
        #expect(NumberText.size(999_949) == "999.9 KB")
        #expect(NumberText.size(999_950) == "1.0 MB")
        #expect(NumberText.size(999_949_999) == "999.9 MB")
        #expect(NumberText.size(41_971_800_000) == "42.0 GB")
        #expect(NumberText.size(-2_500_000_000) == "-2.5 GB")
    }

    @Test("a crash's signal has its name")
    func signalNames() {
        #expect(StopSignals.name(11) == "SIGSEGV")
        #expect(StopSignals.name(6) == "SIGABRT")
        #expect(StopSignals.name(9) == "SIGKILL")
        #expect(StopSignals.name(15) == "SIGTERM")
        #expect(StopSignals.name(10) == "signal 10")
    }
}
