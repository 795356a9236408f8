import ControlKitCore
import SwitchboardCore
import SwitchboardSupport
import SwitchboardTesting
import Testing
@testable import SwitchboardConfiguration

/// What goes out on every command is written without `JSONEncoder`, byte for byte as it writes it:
/// checked against `JSONEncoder` on thousands of generated presentations and results, with quotes,
/// backslashes, control characters, slashes, non-ASCII text and keys that sort unlike words.
struct JSONTextTests {
    static let pieces = ["", "Porch Light", "a\"b", "back\\slash", "line\nbreak", "tab\t", "\r", "\u{8}\u{c}", "\u{1}\u{1f}", "\u{7f}",
                         "a/b", "Küche", "😀", "\u{2028}", "On", "Hold to Turn On"]

    static func text(_ random: inout SeededRandom) -> String {
        (0..<Int.random(in: 0...3, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
    }

    static func maybe<T>(_ value: T, _ random: inout SeededRandom) -> T? { Bool.random(using: &random) ? value : nil }

    @Test func presentationsAreWrittenAsTheEncoderWritesThem() {
        var random = SeededRandom(seed: 0x75)
        for _ in 0..<2_000 {
            let presentation = ControlPresentation(
                id: Self.maybe(Self.text(&random), &random), kind: Self.text(&random),
                template: Self.maybe(ControlTemplateKind.allCases.randomElement(using: &random)!, &random),
                space: ControlSpace.allCases.randomElement(using: &random)!,
                size: Self.maybe(ControlSize.allCases.randomElement(using: &random)!, &random),
                displayName: Self.text(&random), title: Self.maybe(Self.text(&random), &random),
                value: Self.maybe(Bool.random(using: &random), &random), valueText: Self.maybe(Self.text(&random), &random),
                symbol: Self.maybe(Self.text(&random), &random),
                tint: Self.maybe(Color.system.randomElement(using: &random)!, &random),
                status: Self.maybe(Self.text(&random), &random), actionHint: Self.maybe(Self.text(&random), &random),
                stale: Bool.random(using: &random), needsConfiguration: Bool.random(using: &random),
                redacted: Bool.random(using: &random), disabled: Bool.random(using: &random)
            )
            #expect(presentation.jsonLine == ControlLineProtocol.encodeLine(presentation))
        }
        let custom = ControlPresentation(id: "p", kind: "k", template: .toggle, space: .controlCenter, size: .small, displayName: "d", title: nil,
                                         value: true, valueText: nil, symbol: nil, tint: Color(red: 0.1, green: 0.5, blue: 1), status: nil, actionHint: nil)
        #expect(custom.jsonLine == ControlLineProtocol.encodeLine(custom))
    }

    static func value(_ random: inout SeededRandom, depth: Int) -> JSONValue {
        let keys = ["transaction", "outcome", "valueText", "value", "B", "a", "b10", "b9", "a_b", "aB", "é", "e", "event_type", "", "x\"y"]
        switch Int.random(in: 0...(depth > 2 ? 3 : 5), using: &random) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2: return .number(Double(Int.random(in: -1_000_000...1_000_000, using: &random)))
        case 3: return .string(Self.text(&random))
        case 4: return .array((0..<Int.random(in: 0...3, using: &random)).map { _ in value(&random, depth: depth + 1) })
        default:
            var seen = Set<String>()
            let members = (0..<Int.random(in: 0...5, using: &random)).compactMap { _ -> (key: String, value: JSONValue)? in
                let key = keys.randomElement(using: &random)!
                return seen.insert(key).inserted ? (key, value(&random, depth: depth + 1)) : nil
            }
            return .object(members)
        }
    }

    @Test func resultsAreWrittenAsTheEncoderWritesThem() {
        var random = SeededRandom(seed: 0x76)
        for _ in 0..<2_000 {
            let value = Self.value(&random, depth: 0)
            #expect(value.jsonLine == ControlLineProtocol.encodeLine(value))
        }
        let result = JSONValue.object([("transaction", .string("k1")), ("outcome", .string("performed")), ("valueText", .string("On")), ("value", .bool(true))])
        #expect(result.jsonLine == #"{"outcome":"performed","transaction":"k1","value":true,"valueText":"On"}"#)
        let fraction = JSONValue.object([("level", .number(0.5))])
        #expect(fraction.jsonLine == ControlLineProtocol.encodeLine(fraction))
    }
}
