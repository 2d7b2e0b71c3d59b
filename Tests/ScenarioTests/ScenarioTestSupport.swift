import RetentionTestSupport
import FoundationEssentials
@testable import Scenario

/// The package's root folder.
let packageRoot = TestPaths.packageRoot

/// A valid scenario document with `replacing` spliced over its parts, for error tests.
func document(
    viewport: String = #"{"width": 390, "height": 844, "scale": 3}"#,
    container: String = #"{"kind": "list", "prefetchRows": 2}"#,
    rows: String = #"{"count": 100, "height": 200}"#,
    script: String = "[]",
    extra: String = ""
) -> String {
    """
    {"name": "test", "frameRate": 60, "viewport": \(viewport),
     "container": \(container), "rows": \(rows), "script": \(script)\(extra)}
    """
}

/// The one-line message `Scenario.decode` throws for `json`, or nil if it decodes.
func errorMessage(_ json: String) -> String? {
    do {
        _ = try Scenario.decode(Data(json.utf8), source: "test.json")
        return nil
    } catch {
        return error.description
    }
}
