import SystemIO

/// A soak as a JUnit XML report (`--junit FILE`), the format CI systems show as test results:
/// one test suite holding one test case per soak. A PASS is a passing case; a FAIL or an
/// INCONCLUSIVE verdict is a `<failure>` (never a pass: an undecided soak must not turn a CI
/// job green), a failed run an `<error>`; the message attribute holds the verdict and its
/// reasons, the element's text the whole report.
package struct JUnitReport: Sendable, Equatable {
    /// One soak.
    package struct TestCase: Sendable, Equatable {
        /// The case's name: what was soaked (`exec: python3 leak.py`, `soak-growing-feed under decoded-lru`).
        package var name: String
        /// Wall seconds the soak took.
        package var seconds: Double
        /// `pass`, `growth`, `failed-run` or `inconclusive` (a `SoakOutcome`'s raw value).
        package var outcome: String
        /// The verdict's first line and its reasons, for the failure's message.
        package var message: String
        /// The whole report, for the failure's text and the case's standard output.
        package var details: String

        /// A case as given. O(1).
        package init(name: String, seconds: Double, outcome: String, message: String, details: String) {
            self.name = name
            self.seconds = seconds
            self.outcome = outcome
            self.message = message
            self.details = details
        }
    }

    /// The suite's name.
    package var suite = "retention soak"
    /// The cases, one per soak.
    package var cases: [TestCase]

    /// A report of `cases`. O(1).
    package init(cases: [TestCase]) {
        self.cases = cases
    }

    /// The XML document, UTF-8, every text and attribute escaped (``escape(_:)``). O(size).
    package var xml: String {
        let failures = cases.filter { $0.outcome == "growth" || $0.outcome == "inconclusive" }.count
        let errors = cases.filter { $0.outcome == "failed-run" }.count
        let seconds = SystemIO.NumberText.twoDecimals(cases.reduce(0) { $0 + $1.seconds })
        var lines = [
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
            "<testsuites name=\"\(Self.escape(suite))\" tests=\"\(cases.count)\" failures=\"\(failures)\" errors=\"\(errors)\" time=\"\(seconds)\">",
            "  <testsuite name=\"\(Self.escape(suite))\" tests=\"\(cases.count)\" failures=\"\(failures)\" errors=\"\(errors)\" skipped=\"0\" time=\"\(seconds)\">",
        ]
        for test in cases {
            lines.append("    <testcase classname=\"retention.soak\" name=\"\(Self.escape(test.name))\" time=\"\(SystemIO.NumberText.twoDecimals(test.seconds))\">")
            switch test.outcome {
            case "pass": break
            case "failed-run":
                lines.append("      <error type=\"failed-run\" message=\"\(Self.escape(test.message))\">\(Self.escape(test.details))</error>")
            default:
                lines.append("      <failure type=\"\(Self.escape(test.outcome))\" message=\"\(Self.escape(test.message))\">\(Self.escape(test.details))</failure>")
            }
            lines.append("      <system-out>\(Self.escape(test.details))</system-out>")
            lines.append("    </testcase>")
        }
        lines += ["  </testsuite>", "</testsuites>", ""]
        return lines.joined(separator: "\n")
    }

    /// `text` safe in XML text and in a double-quoted attribute: `&`, `<`, `>`, `"` and `'` as
    /// entities, a newline, tab or carriage return as a character reference (kept in an
    /// attribute, where a raw newline would become a space), and a character XML 1.0 forbids
    /// (other control characters, U+FFFE, U+FFFF) as U+FFFD. O(length).
    package static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&apos;"
            case "\n": escaped += "&#10;"
            case "\r": escaped += "&#13;"
            case "\t": escaped += "&#9;"
            default:
                let value = scalar.value
                let allowed = value >= 0x20 && value != 0xFFFE && value != 0xFFFF
                escaped.unicodeScalars.append(allowed ? scalar : "\u{FFFD}")
            }
        }
        return escaped
    }

    /// Writes the document to `path` atomically (a temporary file beside it, renamed over it),
    /// so a reader never sees half a report. Throws `SystemError` naming the path. O(size).
    package func write(to path: String) throws(SystemError) {
        try FileIO.replace(path, with: Array(xml.utf8))
    }
}
