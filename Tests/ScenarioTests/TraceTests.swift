import Testing
import Visibility
@testable import Scenario

/// The trace format and its lifecycle rules, line by line.
@Suite("Trace format and rules")
struct TraceTests {
    static func record(_ line: String, unit: TraceHeader.TimeUnit = .frames) throws(TraceError.Problem) -> TraceRecord {
        let result = Array(line.utf8).withUnsafeBytes { bytes in
            Result { () throws(TraceError.Problem) in try TraceRecord(line: bytes, unit: unit) }
        }
        return try result.get()
    }

    static func header(_ line: String) throws(TraceError.Problem) -> TraceHeader {
        let result = Array(line.utf8).withUnsafeBytes { bytes in
            Result { () throws(TraceError.Problem) in try TraceHeader(line: bytes) }
        }
        return try result.get()
    }

    /// Replays `lines` (event lines, numbered from 2) and returns the events, the frame ends and
    /// the replayer, or the first problem's text with its line.
    static func replay(_ lines: [String], unit: TraceHeader.TimeUnit = .frames, repair: Bool = false)
        -> (events: [String], frames: [Int], replayer: TraceReplayer, error: String?)
    {
        var replayer = TraceReplayer(header: TraceHeader(time: unit), frameRate: .hz60, repair: repair)
        var events: [String] = [], frames: [Int] = []
        let sink: (TraceReplayer.Output) -> Void = { output in
            switch output {
            case .event(let event): events.append("\(event.frame) \(event.kind.name) \(event.traceArgument)")
            case .frameEnded(let report, _): frames.append(report.frame)
            case .rowAttributes: break
            }
        }
        for (index, line) in lines.enumerated() {
            do {
                try replayer.replay(try record(line, unit: unit), line: index + 2, sink)
            } catch {
                return (events, frames, replayer, "line \(index + 2): \(error.reason)")
            }
        }
        replayer.endPass(sink)
        return (events, frames, replayer, nil)
    }

    /// Expects each event line to be refused with a reason that contains its text.
    static func expectRejected(_ cases: [(line: String, expected: String)], sourceLocation: SourceLocation = #_sourceLocation) {
        for (line, expected) in cases {
            do {
                _ = try record(line)
                Issue.record("accepted \(line)", sourceLocation: sourceLocation)
            } catch {
                #expect(error.reason.contains(expected), "\(line): \(error.reason)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test("a header names the format, the version and the time unit")
    func headers() throws {
        #expect(try Self.header(#"{"format":"retention-trace","version":1,"time":"seconds","note":"iPhone 15"}"#) == TraceHeader(time: .seconds, note: "iPhone 15"))
        let cases: [(String, String)] = [
            (#"{"frame":0,"event":"containerCreated"}"#, "unknown header key \"frame\""),
            (#"{"format":"retention-trace","version":2,"time":"frames"}"#, "version 2 is not supported"),
            (#"{"format":"retention-trace","version":1}"#, "the header has no \"time\""),
            (#"{"format":"retention-trace","version":1,"time":"ticks"}"#, "\"time\" must be \"frames\" or \"seconds\""),
            (#"{"format":"other","version":1,"time":"frames"}"#, "the first line must be a header"),
            ("not json", "expected '{'"),
        ]
        for (line, expected) in cases {
            do {
                _ = try Self.header(line)
                Issue.record("accepted \(line)")
            } catch {
                #expect(error.reason.hasPrefix("bad header: "), "\(error.reason)")
                #expect(error.reason.contains(expected), "\(line): \(error.reason)")
            }
        }
        #expect(TraceHeader(time: .frames).jsonLine == #"{"format":"retention-trace","version":1,"time":"frames"}"#)
    }

    @Test("event lines: fields, types and unknown names are one-line errors")
    func malformedLines() throws {
        let good = try Self.record(#"{"frame":12,"event":"initialized","row":"photo-7","image":"img/a.png","stateBytes":4096}"#)
        #expect(good.time == 12 && good.event == .initialized && good.image == .path("img/a.png") && good.stateBytes == 4096)
        #expect(good.row == TraceRecord.rowID(forString: "photo-7"))
        #expect(try Self.record(#"{"seconds":1.5,"event":"appeared","row":3}"#, unit: .seconds).time == 1.5)
        #expect(try Self.record(#"{"frame":3,"event":"visibleRows","from":2,"to":6}"#).visible == 2..<6)
        let cases: [(String, String)] = [
            (#"{"frame":1,"event":"scrolled","row":3}"#, "unknown event \"scrolled\" (expected one of containerCreated, initialized"),
            (#"{"frame":1,"event":"appeared"}"#, "appeared needs a \"row\""),
            (#"{"frame":1,"event":"appeared","row":-2}"#, "\"row\": expected a row id (an integer, 0 or more, or a non-empty string), found -2"),
            (#"{"frame":1.5,"event":"appeared","row":2}"#, "\"frame\": expected a frame number"),
            (#"{"seconds":1,"event":"appeared","row":2}"#, "\"seconds\" in a trace whose header says \"time\":\"frames\" (use \"frame\")"),
            (#"{"frame":1,"event":"appeared","row":2,"colour":"red"}"#, "unknown key \"colour\""),
            (#"{"frame":1,"event":"appeared","row":2"#, "column 38: expected ',' or '}'"),
            (#"{"frame":1,"event":"checkpoint","name":"a\nb"}"#, "\"name\": expected a name without control characters"),
            (#"{"frame":1,"event":"appeared","row":[2]}"#, "nested objects and arrays are not allowed"),
            (#"{"frame":1,"row":2}"#, "the line has no \"event\""),
            (#"{"event":"appeared","row":2}"#, "the line has no \"frame\""),
            (#"{"frame":1,"event":"visibleRows","from":6,"to":2}"#, "visibleRows needs \"from\" and \"to\" with from <= to"),
        ]
        Self.expectRejected(cases)
    }

    @Test("a key given twice in a trace line is refused with its column, as in scenario files")
    func duplicateKeys() throws {
        let cases: [(String, String)] = [
            (#"{"frame":1,"event":"appeared","row":2,"row":3}"#, "column 39: duplicate key \"row\""),
            (#"{"frame":1,"frame":2,"event":"appeared","row":2}"#, "column 12: duplicate key \"frame\""),
            (#"{"frame":1,"event":"initialized","event":"appeared","row":2}"#, "column 34: duplicate key \"event\""),
            (#"{"frame":1,"event":"visibleRows","from":1,"to":3,"to":4}"#, "column 50: duplicate key \"to\""),
            (#"{"frame":1,"event":"appeared","\u0072ow":2,"row":3}"#, "column 44: duplicate key \"row\""),
        ]
        for (line, expected) in cases {
            do {
                _ = try Self.record(line)
                Issue.record("accepted \(line)")
            } catch {
                #expect(error.reason == expected, "\(line)")
                // As a trace file reports it: the file, the line and one line of text.
                let text = TraceError(source: "feed.jsonl", line: 7, problem: error).description
                #expect(text == "feed.jsonl:7: " + expected)
                #expect(!text.contains("\n"))
            }
        }
        #expect(throws: TraceError.Problem.header("column 57: duplicate key \"time\"")) {
            try Self.header(#"{"format":"retention-trace","version":1,"time":"frames","time":"seconds"}"#)
        }
        // Different keys that share a prefix are not duplicates.
        #expect(try Self.record(#"{"frame":1,"event":"visibleRows","from":1,"to":3}"#).visible == 1..<3)
    }

    @Test("a UTF-8 byte order mark is accepted before the header, as scenario files accept one, and nowhere else")
    func byteOrderMark() throws {
        let bom = "\u{FEFF}"
        #expect(try Self.header(bom + #"{"format":"retention-trace","version":1,"time":"frames"}"#) == TraceHeader(time: .frames))
        // Columns still count the mark's three bytes.
        #expect(throws: TraceError.Problem.header("column 6: expected a string key")) { try Self.header(bom + "{ 1}") }
        #expect(throws: TraceError.Problem.malformed("column 1: expected '{' to begin the object")) {
            try Self.record(bom + #"{"frame":1,"event":"containerCreated"}"#)
        }
    }

    @Test("strings and numbers are read exactly: escapes, UTF-8, long integers, fractions")
    func valuesReadExactly() throws {
        #expect(try Self.record(#"{"frame":1,"event":"initialized","row":"caf\u00e9"}"#).row == TraceRecord.rowID(forString: "café"))
        #expect(try Self.record(#"{"frame":1,"event":"initialized","row":"café"}"#).row == TraceRecord.rowID(forString: "café"))
        #expect(try Self.record(#"{"frame":1,"event":"checkpoint","name":"a \"b\""}"#).name == "a \"b\"")
        #expect(try Self.record(#"{"fr\u0061me":999999999999,"event":"containerCreated"}"#).time == 999_999_999_999)
        #expect(try Self.record(#"{"frame":1,"event":"rowsAppended","count":100000000}"#).count == 100_000_000)
        #expect(try Self.record(#"{"seconds":12.25,"event":"back"}"#, unit: .seconds).time == 12.25)
        #expect(try Self.record(#"{"seconds":-0,"event":"back"}"#, unit: .seconds).time == 0)
        let bad: [(String, String)] = [
            (#"{"frame":1,"event":"rowsAppended","count":92233720368547758070}"#, "\"count\": expected a count (an integer, 0 to 100000000), found 9.223372036854776e+19"),
            // Past a list's most rows: two such counts once summed past Int.max and trapped.
            (#"{"frame":1,"event":"rowsAppended","count":9223372036854775807}"#, "\"count\": expected a count (an integer, 0 to 100000000), found 9223372036854775807"),
            (#"{"frame":1,"event":"appe\u0061red"}"#, "appeared needs a \"row\""),
            (#"{"frame":1,"event":"appeared","row":""}"#, "found \"\""),
            (#"{"frame":01,"event":"appeared","row":1}"#, "column 11: expected ',' or '}'"),
        ]
        Self.expectRejected(bad)
    }

    @Test("impossible events name their line; --repair drops and counts them")
    func impossibleEvents() {
        let created = #"{"frame":0,"event":"containerCreated"}"#
        let cases: [([String], String)] = [
            ([created, #"{"frame":5,"event":"initialized","row":1}"#, #"{"frame":4,"event":"appeared","row":1}"#],
             "line 4: time goes backwards: frame 4 after frame 5"),
            ([created, #"{"frame":1,"event":"appeared","row":7}"#], "line 3: row 7 appeared but was never initialized"),
            ([created, #"{"frame":1,"event":"containerDestroyed"}"#, #"{"frame":2,"event":"initialized","row":1}"#],
             "line 4: initialized after containerDestroyed, with no containerCreated since"),
            ([#"{"frame":0,"event":"initialized","row":1}"#], "line 2: initialized before containerCreated"),
            ([created, #"{"frame":1,"event":"disappeared","row":1}"#], "line 3: row 1 disappeared but had not appeared"),
            ([created, #"{"frame":1,"event":"back"}"#], "line 3: back with no navigate to return from"),
            ([created, created], "line 3: containerCreated while a container is alive"),
            ([created, #"{"frame":1,"event":"checkpoint","name":"x"}"#, #"{"frame":1,"event":"initialized","row":1}"#],
             "line 4: initialized on frame 1 after that frame's checkpoint"),
        ]
        for (lines, expected) in cases {
            #expect(Self.replay(lines).error == expected, "\(lines)")
            let repaired = Self.replay(lines, repair: true)
            #expect(repaired.error == nil)
            #expect(repaired.replayer.repairs.total == 1, "\(lines)")
        }
        let summary = Self.replay([created, #"{"frame":1,"event":"appeared","row":7}"#, #"{"frame":2,"event":"appeared","row":8}"#], repair: true)
            .replayer.repairs.summary
        #expect(summary == "dropped 2 impossible events: 2 rows appearing before initialized (first at line 3: row 7 appeared but was never initialized)")
    }

    @Test("frames: gaps end empty frames, seconds map at the frame rate, a checkpoint ends its frame")
    func frames() {
        let run = Self.replay([
            #"{"seconds":100.0,"event":"containerCreated"}"#,
            #"{"seconds":100.05,"event":"initialized","row":4}"#,
            #"{"seconds":100.05,"event":"appeared","row":4}"#,
            #"{"seconds":100.1,"event":"checkpoint","name":"a"}"#,
        ], unit: .seconds)
        #expect(run.error == nil)
        // 100 s is frame 0; 0.05 s later is frame 3; 0.1 s later frame 6, ended by its checkpoint.
        #expect(run.events == ["0 containerCreated -", "3 initialized 4", "3 appeared 4", "6 checkpoint a"])
        #expect(run.frames == [0, 1, 2, 3, 4, 5, 6])
    }

    @Test("containerDestroyed releases what is still built, in the simulator's order")
    func destroyReleases() {
        let run = Self.replay([
            #"{"frame":0,"event":"containerCreated"}"#,
            #"{"frame":0,"event":"initialized","row":2}"#,
            #"{"frame":0,"event":"initialized","row":1}"#,
            #"{"frame":0,"event":"appeared","row":2}"#,
            #"{"frame":1,"event":"navigate","row":2}"#,
            #"{"frame":2,"event":"containerDestroyed"}"#,
        ])
        #expect(run.error == nil)
        #expect(run.events.suffix(5) == ["2 disappeared 2", "2 destinationReleased 2", "2 released 1", "2 released 2", "2 containerDestroyed -"])
        #expect(run.replayer.builtRowCount == 0 && !run.replayer.isContainerAlive)
    }

    @Test("string row ids are stable integers")
    func stringIDs() {
        #expect(TraceRecord.rowID(forString: "a") == TraceRecord.rowID(forString: "a"))
        #expect(TraceRecord.rowID(forString: "a") != TraceRecord.rowID(forString: "b"))
        #expect(TraceRecord.rowID(forString: "a") >= 0)
    }
}
