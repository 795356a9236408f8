import ControlKitCore
@testable import SwitchboardCore
import Testing

@Suite struct CommandPayloadTests {
    func parse(_ text: String) -> Result<CommandPayload, CommandPayload.Rejection> { CommandPayload.parse(Array(text.utf8)) }

    @Test func wordsInAnyCaseWithOrWithoutSpaceAroundThem() throws {
        for (text, request) in [("ON", ControlRequest.setValue(true)), ("off", .setValue(false)), ("Toggle", .toggle), ("pReSs", .press),
                                (" ON\n", .setValue(true)), ("\u{00A0}off\u{00A0}", .setValue(false)), ("\tPRESS ", .press)] {
            #expect(try parse(text).get() == CommandPayload(request: request, transaction: nil), "\(text.debugDescription)")
        }
    }

    @Test func jsonWithAValueAndATransaction() throws {
        #expect(try parse(#"{"value": true, "transaction": 7}"#).get() == CommandPayload(request: .setValue(true), transaction: .number(7)))
        #expect(try parse(#" {"value":"toggle"}"#).get() == CommandPayload(request: .toggle, transaction: nil))
    }

    @Test func whatIsNotACommandSaysWhy() {
        #expect(parse("ONN") == .failure(.unknownCommand))
        #expect(parse("O N") == .failure(.unknownCommand))
        #expect(parse("") == .failure(.unknownCommand))
        #expect(CommandPayload.parse([0x4F, 0xFF]) == .failure(.notUTF8))
        #expect(parse(#"{"value": 2}"#) == .failure(.badJSON))
        #expect(CommandPayload.parse(Array(repeating: 0x20, count: 4097)) == .failure(.tooLarge))
    }
}

@Suite struct TopicContractTests {
    let topics = TopicContract(base: "switchboard/garage-pi")

    @Test func aControlsIdIsReadFromItsCommandTopicsOnly() {
        #expect(topics.controlID(in: "switchboard/garage-pi/controls/porch/set", suffix: "set") == "porch")
        #expect(topics.controlID(in: "switchboard/garage-pi/controls/pörch-2/set", suffix: "set") == "pörch-2")
        #expect(topics.controlID(in: "switchboard/garage-pi/controls//set", suffix: "set") == nil)
        #expect(topics.controlID(in: "switchboard/garage-pi/controls/a/b/set", suffix: "set") == nil)
        #expect(topics.controlID(in: "switchboard/garage-pi/controls/porch/result", suffix: "set") == nil)
        #expect(topics.controlID(in: "switchboard/shed-pi/controls/porch/set", suffix: "set") == nil)
    }

    @Test func theNodesOwnRetainedTopicsAndNoOthers() {
        for own in ["status", "lock", "diagnostics", "controls/porch", "controls/porch/configuration", "inputs/door"] {
            #expect(topics.isOwnRetained("switchboard/garage-pi/" + own), "\(own)")
        }
        for other in ["lock/set", "controls/porch/set", "controls/porch/result", "controls/", "controls//configuration",
                      "controls/a/b/configuration", "inputs/door/x", "outcomes", "switchboard/shed-pi/status"] {
            #expect(!topics.isOwnRetained("switchboard/garage-pi/" + other), "\(other)")
        }
    }
}
