import StrictJSON
import Visibility

extension Scenario {
    /// Checks what decoding cannot see alone: every `scrollTo` and `navigate` row exists among the
    /// initial `rows.count` rows (rows a `loadMore` may append later are not counted), no
    /// checkpoint name holds a control character (a newline or tab would split a line of
    /// `simulate --trace` or a report), inside `repeat` too; and the script stays within
    /// ``maximumFrames``, ``maximumSteps`` and ``maximumCheckpoints``. Throws
    /// `ScenarioError.invalid` naming the step's path. O(script steps + name lengths).
    public func validate(source: String = "scenario") throws(ScenarioError) {
        try Self.checkSteps(in: script, path: "script", rowCount: rows.count, source: source)
        let frames = ScriptStep.estimatedFrames(script)
        if frames > Self.maximumFrames {
            throw .invalid(source: source, path: "script",
                           message: "the script runs \(Self.count(frames)) frames, over the limit of \(Self.maximumFrames) (about 46 hours at 60 fps)")
        }
        let steps = ScriptStep.performedSteps(script)
        if steps > Self.maximumSteps {
            throw .invalid(source: source, path: "script",
                           message: "the script performs \(Self.count(steps)) steps (a repeat counts its steps × times, and at least one per pass), over the limit of \(Self.maximumSteps)")
        }
        let checkpoints = ScriptStep.checkpointCount(script)
        if checkpoints > Self.maximumCheckpoints {
            throw .invalid(source: source, path: "script",
                           message: "the script records \(Self.count(checkpoints)) checkpoints, over the limit of \(Self.maximumCheckpoints) (each is a line of every report)")
        }
    }

    /// Checkpoint names the lab records itself around a run, which a script may not use:
    /// `startup` (after the first frame), `end`, `after-destroy`, `after-trim`, and
    /// `resident-limit` (a run stopped by `--max-resident`). `all-loaded` is the one the
    /// comparison table reads from the script.
    public static let reservedCheckpoints = ["startup", "end", "after-destroy", "after-trim", "resident-limit"]

    /// The most steps a script may perform: 10 million, as many as frames, so a `repeat` of
    /// steps that take no frame (checkpoints, or none) cannot loop without end.
    public static let maximumSteps = 10_000_000

    /// The most checkpoints a script (or a trace) may record: 1,000, so a run's report, and a
    /// comparison's export of many runs, stay small.
    public static let maximumCheckpoints = 1_000

    private static func count(_ value: Int) -> String { value == Int.max ? "more than 9.2e18" : "\(value)" }

    /// The most frames a script may take (counting `repeat` and flings as `ScriptStep.estimatedFrames(_:)`
    /// does): 10 million, about 46 hours at 60 fps. A soak repeats the script, so it is not bound by this.
    public static let maximumFrames = 10_000_000

    private static func checkSteps(
        in steps: [ScriptStep], path: String, rowCount: Int, source: String
    ) throws(ScenarioError) {
        for (index, step) in steps.enumerated() {
            let stepPath = "\(path)[\(index)].\(step.name)"
            switch step {
            case .scrollTo(let row, _), .navigate(let row):
                guard row < rowCount else {
                    throw .invalid(
                        source: source, path: stepPath + ".row",
                        message: "row \(row) is past the end (\(rowCount) rows)")
                }
            case .checkpoint(let name):
                if reservedCheckpoints.contains(name) {
                    throw .invalid(
                        source: source, path: stepPath + ".name",
                        message: "\(JSONValue.string(name).summary) is a name the lab records itself (\(reservedCheckpoints.joined(separator: ", "))); choose another")
                }
                if let control = name.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
                    let code = String(control.value, radix: 16, uppercase: true)
                    throw .invalid(
                        source: source, path: stepPath + ".name",
                        message: "expected a name without control characters, found \(JSONValue.string(name).summary) (holds U+\(String(repeating: "0", count: max(0, 4 - code.count)) + code))")
                }
            case .repeat(_, let inner):
                try checkSteps(in: inner, path: stepPath + ".steps", rowCount: rowCount, source: source)
            default:
                continue
            }
        }
    }
}
