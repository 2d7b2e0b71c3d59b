import Testing
@testable import StrictJSON

/// The tree decoder every scenario value goes through.
@Suite("JSONValueDecoder")
struct JSONValueDecoderTests {
    struct Sample: Decodable, Equatable {
        var count: Int
        var ratio: Double
        var name: String
        var flag: Bool
        var list: [UInt8]
        var nested: [String: Int]
        var missing: Int?
    }

    func tree(_ text: String) throws -> JSONValue {
        try JSONParser.parse(Array(text.utf8))
    }

    @Test("scalars, arrays, dictionaries and optionals decode as JSONDecoder has them")
    func decodesEverything() throws {
        let value = try tree(#"{"count": 1e2, "ratio": 0.5, "name": "a", "flag": true, "list": [1, 255], "nested": {"x": -3}}"#)
        let sample = try JSONValueDecoder.decode(Sample.self, from: value)
        #expect(sample == Sample(count: 100, ratio: 0.5, name: "a", flag: true, list: [1, 255], nested: ["x": -3], missing: nil))
    }

    @Test("an integer that is fractional or out of range is refused at its full path", arguments: [
        (#"{"count": 1.5}"#, "count"), (#"{"count": 9223372036854775807}"#, "count"), (#"{"list": [1, 256]}"#, "list.1"),
    ])
    func integers(text: String, path: String) throws {
        struct Partial: Decodable { var count: Int?; var list: [UInt8]? }
        do {
            _ = try JSONValueDecoder.decode(Partial.self, from: tree(text))
            Issue.record("accepted \(text)")
        } catch let DecodingError.dataCorrupted(context) {
            #expect(context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".") == path)
        }
    }

    @Test("a node of the wrong kind is a typeMismatch naming what was found, under the caller's path")
    func mismatch() throws {
        do {
            _ = try JSONValueDecoder.decode([Int].self, from: tree(#"{"a": 1}"#), codingPath: [JSONKey("strategies")])
            Issue.record("accepted an object as an array")
        } catch let DecodingError.typeMismatch(_, context) {
            #expect(context.codingPath.map(\.stringValue) == ["strategies"])
            #expect(context.debugDescription.contains("found an object"))
        }
    }

    @Test("a JSONValue is handed over as it is")
    func rawValue() throws {
        let value = try tree(#"{"k": [null, "s", 2]}"#)
        #expect(try JSONValueDecoder.decode(JSONValue.self, from: value) == value)
    }
}
