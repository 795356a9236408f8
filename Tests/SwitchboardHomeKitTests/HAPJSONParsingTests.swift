import SwitchboardHomeKit
import Testing

/// A controller's JSON bodies (a PUT of characteristics) parse to a value or to nil, never a trap:
/// the Foundation of Swift 6.0 (Debian 13's) traps inside `JSONDecoder` on a raw control
/// character in a string or a lone surrogate escape, which a paired controller could send.
struct HAPJSONParsingTests {
    @Test(arguments: [
        #"{"characteristics":[{"aid":2,"iid":9,"value":"a\#u{01}b"}]}"#,
        "{\"characteristics\":[{\"aid\":2,\"iid\":9,\"value\":\"tab\there\"}]}",
        #"{"characteristics":[{"aid":2,"iid":9,"value":"\ud800"}]}"#,
        #"{"characteristics":[{"aid":2,"iid":9,"value":"\q"}]}"#,
        #"{"\#u{0}a":1}"#, "{\"a\u{1f}\":1}", "{\"a\":\"x\ny\"}", "{\"a\":1}\u{0}", "\u{7}{}",
        #"{"\l":1}"#, #"{"a":"\x"}"#, #"{"a":"\u12"}"#, #"{"a":"\uD800"}"#, #"{"a":"\uDC00x"}"#, #"{"a":"\"#,
    ])
    func textThatIsNotJSONIsNil(_ text: String) {
        #expect(HAPJSON(parsing: Array(text.utf8)) == nil)
    }

    @Test func aPutBodyParses() {
        let body = HAPJSON(parsing: Array(#"{"characteristics":[{"aid":2,"iid":9,"value":true,"ev":false}]}"#.utf8))
        #expect(body == .object(["characteristics": .array([.object(["aid": .int(2), "iid": .int(9), "value": .bool(true), "ev": .bool(false)])])]))
    }
}
