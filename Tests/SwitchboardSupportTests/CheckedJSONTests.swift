import Foundation
import SwitchboardSupport
import Testing

/// JSON from outside is checked for raw control characters before JSONDecoder sees it (Swift 6.0's
/// Foundation traps on one inside a string).
@Suite struct CheckedJSONTests {
    struct Key: Decodable { var a: Int? }

    @Test(arguments: [#"{"\#u{0}a":1}"#, "{\"a\u{1f}\":1}", "{\"a\":\"x\ny\"}", "{\"a\":1}\u{0}", "\u{7}{}",
                      #"{"\l":1}"#, #"{"a":"\x"}"#, #"{"a":"\u12"}"#, #"{"a":"\uD800"}"#, #"{"a":"\uDC00x"}"#, #"{"a":"\"#])
    func controlCharactersAreRefusedNotATrap(_ text: String) {
        #expect(CheckedJSON.controlCharacterOffset(in: Array(text.utf8)) != nil)
        #expect(throws: DecodingError.self) { try CheckedJSON.decode(Key.self, from: Data(text.utf8)) }
    }

    @Test func bytesThatAreNotUTF8AreRefusedNotATrap() {
        let bytes: [UInt8] = Array(#"{"a":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)
        #expect(throws: DecodingError.self) { try CheckedJSON.decode(Key.self, from: Data(bytes)) }
    }

    @Test func whiteSpaceBetweenValuesAndEscapesAreJSON() throws {
        let text = "{\n\t\"a\" :\r\n 1, \"b\": \"tab\\t quote\\\" slash\\\\\"}"
        #expect(CheckedJSON.controlCharacterOffset(in: Array(text.utf8)) == nil)
        #expect(try CheckedJSON.decode(Key.self, from: Data(text.utf8)).a == 1)
        #expect(CheckedJSON.controlCharacterOffset(in: Array(#"{"a":"\u0001"}"#.utf8)) == nil, "an escaped control character is fine")
        #expect(CheckedJSON.controlCharacterOffset(in: Array(#"{"a":"\uD83D\uDCA1 \/ \b\f\n\r\t"}"#.utf8)) == nil, "a surrogate pair and every escape")
    }
}
