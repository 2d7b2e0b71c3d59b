import Testing
import StrictJSON

/// The one JSON policy: every document a user gives is read strictly and every problem is one
/// line with its place.
@Suite("JSONDocument: strict reading, one-line errors")
struct JSONDocumentTests {
    struct Table: Decodable, Equatable {
        var repeats: Int
        var images: [Entry]
        struct Entry: Decodable, Equatable { var file: String; var decodeMs: Double }
    }

    func error(_ text: String) -> String? {
        do {
            _ = try JSONDocument.decode(Table.self, from: Array(text.utf8), source: "t.json")
            return nil
        } catch {
            return error.description
        }
    }

    @Test("duplicate keys, trailing commas and invalid UTF-8 are refused with line and column")
    func syntax() {
        #expect(error(#"{"repeats": 1, "repeats": 2, "images": []}"#) == #"t.json: malformed JSON at line 1, column 16: duplicate key "repeats""#)
        #expect(error("{\"repeats\": 1,\n \"images\": [],\n}") == "t.json: malformed JSON at line 3, column 1: expected a string key")
        do {
            _ = try JSONDocument.parse([0x7B, 0x0A, 0x20, 0xFF, 0x7D], source: "t.json")
            Issue.record("invalid UTF-8 was accepted")
        } catch {
            #expect(error.description == "t.json: invalid UTF-8 at line 2, column 2")
        }
    }

    @Test("a document that stops early says so, with where it stopped")
    func truncated() {
        #expect(error(#"{"repeats": 1, "images": [{"file": "a.png", "decodeMs""#)
                == "t.json: malformed JSON at line 1, column 55: unexpected end of input (the JSON stops early), expected ':' after an object key")
        #expect(error(#"{"repeats": 1"#) == "t.json: malformed JSON at line 1, column 14: unexpected end of input (the JSON stops early), expected ',' or '}' after an object member")
        #expect(error("") == "t.json: malformed JSON at line 1, column 1: unexpected end of input, expected a value")
    }

    @Test("a value of the wrong type names its JSON path and what was found; a member decodes from its place")
    func paths() throws {
        #expect(error(#"{"repeats": 1, "images": [{"file": "a.png", "decodeMs": "fast"}]}"#)?.hasPrefix("t.json: images[0].decodeMs: ") == true)
        #expect(error(#"{"images": []}"#) == "t.json: repeats: required key is missing")
        let tree = try JSONDocument.parse(Array(#"{"costs": {"repeats": 2, "images": []}}"#.utf8), source: "x")
        #expect(try JSONDocument.decode(Table.self, from: tree, member: "costs", source: "x") == Table(repeats: 2, images: []))
        let nested = try JSONDocument.parse(Array(#"{"costs": {"repeats": "two", "images": []}}"#.utf8), source: "x")
        #expect(throws: JSONDocumentError.self) { try JSONDocument.decode(Table.self, from: nested, member: "costs", source: "x") }
        do { _ = try JSONDocument.decode(Table.self, from: nested, member: "costs", source: "x") } catch {
            #expect(error.description.hasPrefix("x: costs.repeats: "))
        }
    }

    @Test("encode sorts keys and leaves slashes alone")
    func encode() {
        struct Doc: Encodable { var b = 1; var a = "x/y" }
        #expect(JSONDocument.encode(Doc()) == #"{"a":"x/y","b":1}"#)
    }

    @Test("a figure JSON cannot hold (NaN, an infinity) is written as a string; the rest of the document stays")
    func nonConformingNumbers() {
        struct Figures: Encodable { var median: Double; var peak: Double; var name: String }
        let text = JSONDocument.encode(Figures(median: .nan, peak: .infinity, name: "run"))
        #expect(text == #"{"median":"NaN","name":"run","peak":"Infinity"}"#)
    }
}
