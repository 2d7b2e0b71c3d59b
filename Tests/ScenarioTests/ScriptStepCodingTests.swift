import FoundationEssentials
import Testing
import Visibility
@testable import Scenario
import StrictJSON

/// Script steps in scenario files.
@Suite("Script step coding")
struct ScriptStepCodingTests {
    @Test("steps encode in the shapes they decode from")
    func stepShapes() throws {
        let steps: [ScriptStep] = [
            .scroll(by: 100, frames: 2), .fling(velocity: 500, deceleration: 0.99),
            .scrollTo(row: 3, anchor: .bottom), .pause(frames: 1), .navigate(row: 2), .back, .memoryWarning,
            .destroyContainer, .recreateContainer, .checkpoint(name: "x"),
            .repeat(times: 2, steps: [.back]),
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = String(decoding: try encoder.encode(steps), as: UTF8.self)
        #expect(text == #"[{"scroll":{"by":100,"frames":2}},{"fling":{"deceleration":0.99,"velocity":500}},"#
            + #"{"scrollTo":{"anchor":"bottom","row":3}},{"pause":{"frames":1}},{"navigate":{"row":2}},"#
            + #"{"back":{}},{"memoryWarning":{}},{"destroyContainer":{}},{"recreateContainer":{}},"#
            + #"{"checkpoint":{"name":"x"}},{"repeat":{"steps":[{"back":{}}],"times":2}}]"#)
        #expect(try JSONValueDecoder.decode([ScriptStep].self, from: JSONParser.parse(Array(text.utf8))) == steps)
    }
}
