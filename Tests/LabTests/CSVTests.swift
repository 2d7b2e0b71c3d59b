@testable import Lab
import Testing

@Suite("CSV: RFC 4180 quoting, one column list per file")
struct CSVTests {
    @Test("fields with commas, quotes, line breaks or edge spaces are quoted with doubled quotes")
    func quoting() {
        #expect(CSV.field("decoded-lru") == "decoded-lru")
        #expect(CSV.field("lru, 16MB \"small\"") == "\"lru, 16MB \"\"small\"\"\"")
        #expect(CSV.field("two\nlines") == "\"two\nlines\"")
        #expect(CSV.field(" padded") == "\" padded\"")
        #expect(CSV.line(["a", "b,c", ""]) == "a,\"b,c\",")
    }

    @Test("a failed run with a hostile strategy name keeps every column: as many fields as the header")
    func failedRowKeepsColumns() {
        let result = Comparison.Result(subject: "lru, 16MB \"small\"", repeatIndex: 2, report: nil,
                                       failure: "exit status 1: \"boom\", then\nmore")
        let line = ComparisonExport.csvLine(result)
        #expect(line.hasPrefix("\"lru, 16MB \"\"small\"\"\",2,failed,"))
        let fields = Self.parse(line)
        #expect(fields.count == ComparisonExport.csvColumns.count)
        #expect(fields[ComparisonExport.csvColumns.firstIndex(of: "failure")!] == "exit status 1: \"boom\", then\nmore")
        #expect(fields.suffix(8).allSatisfy { $0.isEmpty }, "no source or disk figures for a failed run")
        #expect(Self.parse(ComparisonExport.csvHeader) == ComparisonExport.csvColumns)
    }

    @Test("the soak CSV's header and lines come from one column list")
    func csvColumns() {
        #expect(SoakSample.csvHeader == "iteration,warmup,elapsedSeconds,residentBytes,anonymousBytes,retainedBytes,logicalBytes,rowHeldBytes,evictableBytes,entries,heapInUseBytes,heapFreeHeldBytes,decodes,hitches,rowsInList,useSeconds,rowStateBytes,diskBytes")
        let sample = SoakSample(iteration: 3, warmup: true, elapsedSeconds: 1.23456, residentBytes: 4, anonymousBytes: 5, logicalBytes: 6,
                                rowHeldBytes: 7, evictableBytes: 8, entries: 9, heapInUseBytes: 10, heapFreeHeldBytes: 11, decodes: 12,
                                hitches: 13, rowsInList: 14, useSeconds: 5.5, rowStateBytes: 15, diskBytes: 16)
        #expect(sample.csvLine == "3,true,1.235,4,5,0,6,7,8,9,10,11,12,13,14,5.5,15,16", "retained: 5 anonymous less 11 free-held, never below 0")
    }

    /// A minimal RFC 4180 reader for one record, to count fields the way a spreadsheet would.
    static func parse(_ line: String) -> [String] {
        var fields: [String] = [], field = "", quoted = false
        var chars = Array(line)[...]
        while let c = chars.popFirst() {
            if quoted {
                if c == "\"" {
                    if chars.first == "\"" { field.append("\""); chars.removeFirst() } else { quoted = false }
                } else { field.append(c) }
            } else if c == "\"" { quoted = true }
            else if c == "," { fields.append(field); field = "" }
            else { field.append(c) }
        }
        fields.append(field)
        return fields
    }
}
