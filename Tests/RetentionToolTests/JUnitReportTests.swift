import RetentionTool
import Testing

@Suite("JUnit report")
struct JUnitReportTests {
    @Test("text and attributes are escaped: markup, quotes, line breaks kept in attributes, forbidden characters replaced")
    func escaping() {
        #expect(JUnitReport.escape("a<b & \"c\" 'd'>") == "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;")
        #expect(JUnitReport.escape("line 1\nline 2\ttab\r") == "line 1&#10;line 2&#9;tab&#13;")
        #expect(JUnitReport.escape("bell\u{07} nul\u{00} \u{FFFE} é ✓") == "bell\u{FFFD} nul\u{FFFD} \u{FFFD} é ✓")
    }

    @Test("a PASS is a plain case, a FAIL or INCONCLUSIVE a failure, a failed run an error; the counts add up")
    func cases() {
        let report = JUnitReport(cases: [
            .init(name: "a", seconds: 1, outcome: "pass", message: "PASS", details: "verdict: PASS"),
            .init(name: "b <leak>", seconds: 2.5, outcome: "growth", message: "FAIL (growth); grows", details: "verdict: FAIL (growth)\nreason: grows"),
            .init(name: "c", seconds: 0, outcome: "inconclusive", message: "INCONCLUSIVE", details: ""),
            .init(name: "d", seconds: 0, outcome: "failed-run", message: "FAIL (run failed)", details: ""),
        ])
        let xml = report.xml
        #expect(xml.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"retention soak\" tests=\"4\" failures=\"2\" errors=\"1\" time=\"3.50\">\n"))
        #expect(xml.contains("<testcase classname=\"retention.soak\" name=\"b &lt;leak&gt;\" time=\"2.50\">\n      <failure type=\"growth\" message=\"FAIL (growth); grows\">verdict: FAIL (growth)&#10;reason: grows</failure>"))
        #expect(xml.contains("<failure type=\"inconclusive\" message=\"INCONCLUSIVE\">"))
        #expect(xml.contains("<error type=\"failed-run\" message=\"FAIL (run failed)\">"))
        #expect(!xml.contains("name=\"a\" time=\"1.00\">\n      <failure"))
        #expect(xml.hasSuffix("  </testsuite>\n</testsuites>\n"))
    }
}
