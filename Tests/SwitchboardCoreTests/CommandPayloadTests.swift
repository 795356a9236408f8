import ControlKitCore
@testable import SwitchboardCore
import SwitchboardSupport
import Testing
@testable import SwitchboardConfiguration

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
        for own in ["status", "lock", "diagnostics", "buttons", "controls/porch", "controls/porch/configuration", "inputs/door"] {
            #expect(topics.isOwnRetained("switchboard/garage-pi/" + own), "\(own)")
        }
        for other in ["lock/set", "controls/porch/set", "controls/porch/result", "controls/", "controls//configuration",
                      "controls/a/b/configuration", "inputs/door/x", "outcomes", "buttons/hall", "switchboard/shed-pi/status"] {
            #expect(!topics.isOwnRetained("switchboard/garage-pi/" + other), "\(other)")
        }
    }
}

@Suite struct StatePayloadTests {
    func settings(on: String = "ON", off: String = "OFF", key: String? = nil) -> MQTTDeviceSettings {
        MQTTDeviceSettings(stateTopic: "zigbee2mqtt/lamp", valueKey: key, onValue: on, offValue: off, commandTopic: "zigbee2mqtt/lamp/set",
                           onPayload: "ON", offPayload: "OFF", timeout: .seconds(5))
    }

    func value(_ text: String, _ settings: MQTTDeviceSettings) -> Bool? { StatePayload.value(Array(text.utf8), settings: settings) }

    @Test func aStateInAnyCaseWithOrWithoutSpaceAroundIt() {
        for (text, expected) in [("ON", true), ("on", true), (" On\n", true), ("OFF", false), ("oFf", false), ("\u{00A0}OFF", false), ("ONN", nil), ("", nil)] {
            #expect(value(text, settings()) == expected, "\(text.debugDescription)")
        }
    }

    @Test func onlyLettersFoldCaseAndOtherTextComparesAsUnicode() {
        #expect(value("@", settings(on: "`")) == nil, "0x40 and 0x60 differ only in the bit that is case for letters")
        #expect(value("[x]", settings(on: "{x}")) == nil)
        #expect(value("ÖFFNEN", settings(on: "öffnen")) == true)
        #expect(value("auf", settings(on: "AUF", off: "ZU")) == true)
        #expect(value("Zu", settings(on: "AUF", off: "ZU")) == false)
    }

    @Test func aMemberOfAJSONState() {
        let zigbee = settings(key: "state")
        #expect(value(#"{"state": "ON", "brightness": 254}"#, zigbee) == true)
        #expect(value(#"{"state": false}"#, zigbee) == false)
        #expect(value(#"{"state": 1}"#, zigbee) == true)
        #expect(value(#"{"brightness": 254}"#, zigbee) == nil)
        #expect(value("ON", zigbee) == nil)
    }
}

@Suite struct CommandLaneTests {
    func command(_ transaction: Int?) -> ArrivedCommand {
        ArrivedCommand(command: CommandPayload(request: .press, transaction: transaction.map { .number(Double($0)) }), at: OffsetInstant(offset: .zero), locked: false)
    }

    /// The lane's task takes the waiting command with every command it replaced, all older than
    /// it; one added after that waits for the next turn, never answered before the one taken.
    @Test func theWaitingCommandIsTakenWithThoseItReplacedAndNoNewer() {
        let lane = CommandLane()
        #expect(lane.take().next == nil)
        for transaction in 1...3 { #expect(lane.add(command(transaction)) == nil) }
        let turn = lane.take()
        _ = lane.add(command(4))
        #expect(turn.answers.map(\.command.transaction) == [.number(1), .number(2)])
        #expect(turn.superseded == 2 && turn.newestSuperseded?.command.transaction == .number(2))
        #expect(turn.next?.command.transaction == .number(3))
        let after = lane.take()
        #expect(after.answers.isEmpty && after.superseded == 0 && after.next?.command.transaction == .number(4))
    }

    /// Replacing commands never changes where they leave the control: a `TOGGLE` is resolved
    /// against the command it replaces. Played against a relay: performing only the last command
    /// of each run (with its resolution) ends where performing every one in turn would.
    @Test func replacedTogglesLeaveTheControlWhereAllWouldHave() throws {
        func arrived(_ request: ControlRequest) -> ArrivedCommand {
            ArrivedCommand(command: CommandPayload(request: request, transaction: nil), at: OffsetInstant(offset: .zero), locked: false)
        }
        func apply(_ request: ControlRequest, to value: Bool) -> Bool {
            switch request {
            case .setValue(let new): new
            case .toggle: !value
            case .press: value
            }
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let start = Bool.random(using: &generator)
            let requests = (0..<Int.random(in: 1...12, using: &generator)).map { _ in [ControlRequest.toggle, .toggle, .setValue(true), .setValue(false)].randomElement(using: &generator)! }
            let lane = CommandLane()
            for request in requests { _ = lane.add(arrived(request)) }
            let last = try #require(lane.take().next)
            let performed = apply(try last.request(current: start), to: start)
            let everyOne = requests.reduce(start) { apply($1, to: $0) }
            #expect(performed == everyOne, "\(requests) from \(start)")
        }
        // A thousand toggles from off: the last one keeps it off.
        let lane = CommandLane()
        for _ in 0..<1000 { _ = lane.add(arrived(.toggle)) }
        let turn = lane.take()
        #expect(turn.superseded == 999 && turn.next?.resolved == .keep)
        #expect(try turn.next?.request(current: false) == .setValue(false))
        #expect(throws: ControlError.self) { try turn.next?.request(current: nil) }
    }

    /// A flood costs a count, not a queue: replaced commands that asked for no answer are only
    /// counted, and past the lane's limit the oldest awaited answer is handed back at once.
    @Test func aFloodIsCountedAndItsAwaitedAnswersAreBounded() {
        let lane = CommandLane()
        for _ in 0..<100_000 { #expect(lane.add(command(nil)) == nil) }
        let limit = CommandLane.maximumWaitingAnswers
        var handedBack: [JSONValue?] = []
        for transaction in 0...(limit + 2) {
            if let overflow = lane.add(command(transaction)) { handedBack.append(overflow.command.transaction) }
        }
        // The first with a transaction replaced the last without one; then 0…limit+1 were replaced.
        #expect(handedBack == [.number(0), .number(1)])
        let turn = lane.take()
        #expect(turn.superseded == 100_000 + limit + 2)
        #expect(turn.answers.count == limit && turn.answers.first?.command.transaction == .number(2))
        #expect(turn.newestSuperseded?.command.transaction == .number(Double(limit + 1)))
        #expect(turn.next?.command.transaction == .number(Double(limit + 2)))
    }
}
