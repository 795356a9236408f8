import Foundation
import SwitchboardSupport
import Testing

/// JSON from outside is checked for raw control characters before JSONDecoder sees it (Swift 6.0's
/// Foundation traps on one inside a string).
@Suite struct CheckedJSONTests {
    struct Key: Decodable { var a: Int? }

    @Test(arguments: [#"{"\#u{0}a":1}"#, "{\"a\u{1f}\":1}", "{\"a\":\"x\ny\"}", "{\"a\":1}\u{0}", "\u{7}{}"])
    func controlCharactersAreRefusedNotATrap(_ text: String) {
        #expect(CheckedJSON.controlCharacterOffset(in: Array(text.utf8)) != nil)
        #expect(throws: DecodingError.self) { try CheckedJSON.decode(Key.self, from: Data(text.utf8)) }
    }

    @Test func whiteSpaceBetweenValuesAndEscapesAreJSON() throws {
        let text = "{\n\t\"a\" :\r\n 1, \"b\": \"tab\\t quote\\\" slash\\\\\"}"
        #expect(CheckedJSON.controlCharacterOffset(in: Array(text.utf8)) == nil)
        #expect(try CheckedJSON.decode(Key.self, from: Data(text.utf8)).a == 1)
        #expect(CheckedJSON.controlCharacterOffset(in: Array(#"{"a":"\u0001"}"#.utf8)) == nil, "an escaped control character is fine")
    }
}
