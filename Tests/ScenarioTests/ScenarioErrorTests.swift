import FoundationEssentials
import Testing
@testable import Scenario

/// Every kind of bad input, checked against its exact one-line message.
@Suite("Scenario errors")
struct ScenarioErrorTests {
    // MARK: - Wrong values

    @Test("a wrong type names the path, what was expected and what was found")
    func wrongType() {
        #expect(errorMessage(document(rows: #"{"count": "ten", "height": 200}"#))
            == #"rows.count: expected a non-negative integer, found "ten""#)
        #expect(errorMessage(document(rows: #"{"count": 10, "height": 200, "explicitID": "yes"}"#))
            == #"rows.explicitID: expected true or false, found "yes""#)
        #expect(errorMessage(document(viewport: "[390, 844]"))
            == "viewport: expected an object, found an array")
        #expect(errorMessage(document(script: #"{"scroll": {}}"#))
            == "script: expected an array, found an object")
    }

    @Test("numbers that validation once let through to an arithmetic trap are out of range, with the path")
    func arithmeticTraps() {
        #expect(errorMessage(document(container: #"{"kind": "list", "prefetchRows": 9223372036854775807}"#))
            == "container.prefetchRows: expected an integer from 0 to 1000, found 9.223372036854776e+18")
        #expect(errorMessage(document(container: #"{"kind": "lazyVGrid", "columns": 1000000000000}"#))
            == "container.columns: expected an integer from 1 to 1000, found 1000000000000")
        #expect(errorMessage(document(rows: #"{"count": 10, "height": 200, "stateBytes": 1e12}"#))
            == "rows.stateBytes: expected a byte count from 0 to 67108864, found 1000000000000")
        let nested = #"[{"repeat": {"times": 1000000000, "steps": [{"repeat": {"times": 1000000000, "steps": [{"pause": {"frames": 1}}]}}]}}]"#
        #expect(errorMessage(document(script: nested))
            == "script: the script runs 1000000000000000000 frames, over the limit of 10000000 (about 46 hours at 60 fps)")
        let overflowing = #"[{"repeat": {"times": 9000000000000000000, "steps": [{"pause": {"frames": 9000000000000000000}}]}}]"#
        #expect(errorMessage(document(script: overflowing))
            == "script: the script runs more than 9.2e18 frames, over the limit of 10000000 (about 46 hours at 60 fps)")
    }

    @Test("a negative count is rejected with the value found")
    func negativeCount() {
        #expect(errorMessage(document(rows: #"{"count": -5, "height": 200}"#))
            == "rows.count: expected a non-negative integer, found -5")
        #expect(errorMessage(document(rows: #"{"count": 2.5, "height": 200}"#))
            == "rows.count: expected a non-negative integer, found 2.5")
    }

    @Test("bad heights name the element")
    func badHeights() {
        #expect(errorMessage(document(rows: #"{"count": 10, "height": [100, 0]}"#))
            == "rows.height[1]: expected a positive number, found 0")
        #expect(errorMessage(document(rows: #"{"count": 10, "height": []}"#))
            == "rows.height: expected a positive number or a non-empty array of positive numbers, found an array")
    }

    @Test("an unknown container kind lists the kinds")
    func badKind() {
        #expect(errorMessage(document(container: #"{"kind": "grid"}"#))
            == #"container.kind: expected one of list, lazyVStack, lazyVGrid, vStack, found "grid""#)
        #expect(errorMessage(document(container: #"{"kind": "lazyVGrid"}"#))
            == "container.columns: required key is missing (expected an integer from 1 to 1000)")
        #expect(errorMessage(document(container: #"{"kind": "lazyVStack", "disappearEdges": "top"}"#))
            == #"container.disappearEdges: expected one of bottom, both, found "top""#)
    }

    @Test("frame rate and fling deceleration ranges")
    func ranges() {
        #expect(errorMessage(document(extra: #", "frameRate": 90"#)) != nil)
        #expect(errorMessage(#"{"frameRate": 90, "viewport": {"width": 1, "height": 1}, "container": {"kind": "list"}, "rows": {"count": 1, "height": 1}}"#)
            == "frameRate: expected 60 or 120, found 90")
        #expect(errorMessage(document(script: #"[{"fling": {"velocity": 100, "deceleration": 1.5}}]"#))
            == "script[0].fling.deceleration: expected a number from 0.5 to 0.9999, found 1.5")
        #expect(errorMessage(document(script: #"[{"scroll": {"by": 100, "frames": 0}}]"#))
            == "script[0].scroll.frames: expected a positive integer, found 0")
        // A load-more delay past the script's most frames once overflowed frame + delay in the simulator.
        #expect(errorMessage(#"{"viewport": {"width": 1, "height": 1}, "container": {"kind": "list"}, "rows": {"count": 1, "height": 1, "loadMore": {"delayFrames": 9223372036854775807}}}"#)
            == "rows.loadMore.delayFrames: expected 1 to 10000000, found 9.223372036854776e+18")
    }

    // MARK: - Keys

    @Test("a trace replaces the script: both is an error, and the list's shape becomes optional")
    func traceKey() throws {
        #expect(errorMessage(document(script: #"[{"pause": {"frames": 1}}]"#, extra: #", "trace": "t.jsonl""#))
            == "script: a scenario has a script or a trace, not both")
        #expect(errorMessage(#"{"trace": ""}"#) == "trace: expected a path to a trace file, found \"\"")
        #expect(errorMessage(#"{"trace": "t.jsonl"}"#) == nil)
        #expect(errorMessage(#"{"script": []}"#)?.hasSuffix("required key is missing (expected an object)") == true)
    }

    @Test("unknown keys are rejected with the keys that are accepted")
    func unknownKeys() {
        #expect(errorMessage(document(rows: #"{"count": 10, "hieght": 200}"#))
            == "rows.hieght: unknown key (expected one of count, height, explicitID, variableViewsPerElement, destination, loadMore, stateBytes, destinationBytes)")
        #expect(errorMessage(document(extra: #", "strategy": []"#))
            == "strategy: unknown key (expected one of name, frameRate, viewport, container, rows, script, images, display, strategies, decodeWorkers, sourceLatencyMs, fetchLimit, loadOrder, trace, diskLatencyMs, sessions, diskFolder)")
        #expect(errorMessage(document(extra: #", "sessions": 2.5"#)) == "sessions: expected an integer from 1 to 8, found 2.5")
        #expect(errorMessage(document(extra: #", "diskLatencyMs": 60001"#)) == "diskLatencyMs: expected a number of milliseconds from 0 to 60000, found 60001")
        #expect(errorMessage(document(container: #"{"kind": "list", "columns": 3}"#))
            == "container.columns: unknown key for kind list (expected one of kind, prefetchRows)")
        #expect(errorMessage(document(script: #"[{"pause": {"frames": 1, "seconds": 2}}]"#))
            == "script[0].pause.seconds: unknown key for step pause (expected one of frames)")
    }

    @Test("a missing required key names it")
    func missingKey() {
        #expect(errorMessage(document(rows: #"{"height": 200}"#))
            == "rows.count: required key is missing (expected a non-negative integer)")
        #expect(errorMessage(#"{"container": {"kind": "list"}, "rows": {"count": 1, "height": 1}}"#)
            == "viewport: required key is missing (expected an object)")
    }

    @Test("script steps: unknown names and objects with more than one key")
    func badSteps() {
        #expect(errorMessage(document(script: #"[{"pause": {"frames": 1}}, {"scrol": {"by": 1}}]"#))
            == "script[1].scrol: unknown step (expected one of scroll, fling, scrollTo, pause, navigate, back, memoryWarning, destroyContainer, recreateContainer, repeat, checkpoint)")
        #expect(errorMessage(document(script: #"[{"back": {}, "pause": {"frames": 1}}]"#))
            == "script[0]: expected an object with exactly one key, one of scroll, fling, scrollTo, pause, navigate, back, memoryWarning, destroyContainer, recreateContainer, repeat, checkpoint, found an object")
        #expect(errorMessage(document(script: #"[{"back": true}]"#))
            == "script[0].back: expected an empty object, found true")
    }

    // MARK: - Whole-scenario checks

    @Test("a scrollTo past the end names the step, also inside repeat")
    func scrollToPastTheEnd() {
        let steps = #"[{"pause": {"frames": 1}}, {"pause": {"frames": 1}}, {"pause": {"frames": 1}}, {"scrollTo": {"row": 250}}]"#
        #expect(errorMessage(document(script: steps)) == "script[3].scrollTo.row: row 250 is past the end (100 rows)")
        let nested = #"[{"repeat": {"times": 2, "steps": [{"back": {}}, {"navigate": {"row": 100}}]}}]"#
        #expect(errorMessage(document(script: nested))
            == "script[0].repeat.steps[1].navigate.row: row 100 is past the end (100 rows)")
    }

    @Test("a checkpoint name with a newline, tab or other control character is refused with its path")
    func checkpointControlCharacters() {
        #expect(errorMessage(document(script: #"[{"checkpoint": {"name": "all\nloaded"}}]"#))
            == #"script[0].checkpoint.name: expected a name without control characters, found "all\nloaded" (holds U+000A)"#)
        let nested = #"[{"pause": {"frames": 1}}, {"repeat": {"times": 2, "steps": [{"checkpoint": {"name": "a\tb"}}]}}]"#
        #expect(errorMessage(document(script: nested))
            == #"script[1].repeat.steps[0].checkpoint.name: expected a name without control characters, found "a\tb" (holds U+0009)"#)
        #expect(errorMessage(document(script: #"[{"checkpoint": {"name": "x\u0085y"}}]"#))?.hasSuffix("(holds U+0085)") == true)
        #expect(errorMessage(document(script: #"[{"checkpoint": {"name": "all-loaded ✓"}}]"#)) == nil)
    }

    // MARK: - Files and syntax

    @Test("malformed JSON reports line and column")
    func malformedJSON() {
        let json = """
            {"viewport": {"width": 390, "height": 844},
              "container": {"kind": "list"}
              "rows": {"count": 100, "height": 100}}
            """
        #expect(errorMessage(json) == "malformed JSON at line 3, column 3: expected ',' or '}' after an object member")
        #expect(errorMessage("") == "malformed JSON at line 1, column 1: unexpected end of input, expected a value")
        #expect(errorMessage(#"{"a": 1, "a": 2}"#) == #"malformed JSON at line 1, column 10: duplicate key "a""#)
        // One parse covers the whole document, a strategy's policy object too.
        #expect(errorMessage(document(extra: #", "strategies": [{"name": "p", "decodedBudget": "1MB", "decodedBudget": "2MB"}]"#))?
            .hasPrefix("malformed JSON at line 2, column") == true)
        #expect(errorMessage(document(extra: #", "display": "sync","#))?.hasPrefix("malformed JSON at line 2") == true)
        #expect(errorMessage(#"{"a": tru}"#) == "malformed JSON at line 1, column 10: invalid literal, expected true")
        #expect(errorMessage("[1] x") == "malformed JSON at line 1, column 5: unexpected content after the JSON value")
        #expect(errorMessage("[1]") == "(top level): expected an object, found an array")
    }

    @Test("bytes that are not UTF-8 are named with their line and column, not as a wrong type")
    func invalidUTF8() {
        func message(_ bytes: [UInt8]) -> String? {
            do {
                _ = try Scenario.decode(Data(bytes), source: "test.json")
                return nil
            } catch {
                return error.description
            }
        }
        // A Latin-1 "é" (0xE9) in a name, on line 2 after 14 characters: it used to be reported
        // as "expected an object, found an object".
        let latin1 = Array("{\n  \"name\": \"caf".utf8) + [0xE9] + Array("\"}".utf8)
        #expect(message(latin1) == "invalid UTF-8 at line 2, column 15")
        // Columns count characters: "é" in UTF-8 before the bad byte is one column.
        #expect(message(Array("[\"é".utf8) + [0xFF, 0x22, 0x5D]) == "invalid UTF-8 at line 1, column 4")
        // An overlong "/" (0xC0 0xAF), a UTF-16 surrogate (0xED 0xA0 0x80), a cut sequence at the end.
        #expect(message(Array("{\"a\": \"".utf8) + [0xC0, 0xAF, 0x22, 0x7D]) == "invalid UTF-8 at line 1, column 8")
        #expect(message(Array("[\"".utf8) + [0xED, 0xA0, 0x80, 0x22, 0x5D]) == "invalid UTF-8 at line 1, column 3")
        #expect(message(Array("[1]".utf8) + [0xE2, 0x82]) == "invalid UTF-8 at line 1, column 4")
        #expect(ScenarioError.invalidUTF8(source: "s.json", line: 1, column: 1).source == "s.json")
    }

    @Test("a missing file names the path and the reason")
    func missingFile() {
        #expect(throws: ScenarioError.unreadable(path: "/nonexistent/x.json", reason: "No such file or directory")) {
            try Scenario.load(contentsOf: "/nonexistent/x.json")
        }
        #expect(ScenarioError.unreadable(path: "/nonexistent/x.json", reason: "No such file or directory").description
            == "cannot read scenario file /nonexistent/x.json: No such file or directory")
    }
}
