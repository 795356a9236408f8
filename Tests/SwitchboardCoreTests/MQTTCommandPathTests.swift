import ControlKit
import Foundation
import SwitchboardCore
import SwitchboardMQTT
import SwitchboardTesting
import Testing

/// Commands over MQTT as other home systems send them: a command to a device of another system
/// completes on that system's state message, and no command holds up another control's.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct MQTTCommandPathTests {
    static let base = MQTTEndToEndTests.base

    @Test func commandToAnotherSystemsDeviceCompletesOnItsStateAndHoldsUpNothing() async throws {
        let broker = try MosquittoBroker()
        let bulb = try await StandInDevice(port: broker.port, stateTopic: "zigbee2mqtt/kitchen_light", delay: .milliseconds(15))
        let observer = try await MQTTObserver(port: broker.port, filter: "switchboard/#")
        let daemon = try DaemonHarness(configuration: MQTTEndToEndTests().configuration(port: broker.port, timeout: "5s"))
        try daemon.start()
        #expect(await observer.waitFor("\(Self.base)/status") { $0.text == "online" } != nil)

        observer.publish("\(Self.base)/controls/kitchen/set", #"{"value": true, "transaction": "k1"}"#)
        observer.publish("\(Self.base)/controls/porch/set", #"{"value": true, "transaction": "p1"}"#)
        let kitchen = await observer.waitFor("\(Self.base)/controls/kitchen/result", timeout: .seconds(4))
        #expect(kitchen?.text == #"{"outcome":"performed","transaction":"k1","valueText":"On"}"#, "confirmed by the bulb's state, well before the 5 s timeout")
        #expect(await observer.waitFor("\(Self.base)/controls/porch/result")?.text == #"{"outcome":"performed","transaction":"p1","valueText":"On"}"#)
        #expect(bulb.commands.value == [#"{"state":"ON"}"#])
        let results = observer.messages.filter { $0.topic.hasSuffix("/result") }.compactMap(\.text)
        #expect(results.first?.contains(#""transaction":"p1""#) == true, "the porch did not wait for the kitchen light's confirmation: \(results)")

        observer.publish("\(Self.base)/controls/kitchen/set", #"{"value": false, "transaction": "k2"}"#)
        #expect(await observer.waitFor("\(Self.base)/controls/kitchen/result", timeout: .seconds(4)) { $0.text?.contains("k2") == true }?.text
            == #"{"outcome":"performed","transaction":"k2","valueText":"Off"}"#)
        #expect(daemon.cli(["status"]).stdout.contains("kitchen"))
    }

    @Test func whileTheBrokerIsAwayACommandToAnotherSystemIsRefusedAtOnceAndNeverSentLate() async throws {
        let broker = try MosquittoBroker()
        let bulb = try await StandInDevice(port: broker.port, stateTopic: "zigbee2mqtt/kitchen_light")
        let daemon = try DaemonHarness(configuration: MQTTEndToEndTests().configuration(port: broker.port, timeout: "5s"))
        try daemon.start()
        #expect(daemon.waitUntil { daemon.log.contains("mqtt: connected") })
        broker.kill()
        #expect(daemon.waitUntil { daemon.log.contains("mqtt: disconnected") })

        let refused = daemon.cli(["on", "kitchen"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("Kitchen Light lives in another system and Switchboard is not connected to the MQTT broker since "), "\(refused.stderr)")
        #expect(refused.stderr.contains("; nothing was sent"))

        try broker.start()
        #expect(daemon.waitUntil { daemon.log.components(separatedBy: "mqtt: connected").count - 1 == 2 })
        let observer = try await MQTTObserver(port: broker.port, filter: "switchboard/#")
        #expect(await observer.waitFor("\(Self.base)/status") { $0.text == "online" } != nil)
        try await Task.sleep(for: .milliseconds(300))
        #expect(bulb.commands.value.isEmpty, "the refused command never reached the bulb")
        #expect(daemon.cli(["on", "kitchen"]).status == 0)
        #expect(bulb.commands.value == [#"{"state":"ON"}"#])
    }

    @Test func aConfigurationOverMQTTIsRefusedWhileLocked() async throws {
        let broker = try MosquittoBroker()
        let observer = try await MQTTObserver(port: broker.port, filter: "switchboard/#")
        let daemon = try DaemonHarness(configuration: MQTTEndToEndTests().configuration(port: broker.port))
        try daemon.start()
        #expect(await observer.waitFor("\(Self.base)/controls/kitchen/configuration")?.text == "kitchen")
        #expect(daemon.cli(["lock"]).status == 0)
        observer.publish("\(Self.base)/controls/kitchen/configure", "porch")
        #expect(daemon.waitUntil { daemon.log.contains("a configuration while Switchboard is locked") })
        #expect(daemon.cli(["unlock"]).status == 0)
        observer.publish("\(Self.base)/controls/kitchen/configure", "porch")
        #expect(await observer.waitFor("\(Self.base)/controls/kitchen/configuration") { $0.text == "porch" } != nil)
        #expect(observer.messages.filter { $0.topic == "\(Self.base)/controls/kitchen/configuration" }.compactMap(\.text) == ["kitchen", "porch"])
    }

    @Test func aPulseHoldsUpOnlyItsOwnControlAndEachControlKeepsItsOrder() async throws {
        let broker = try MosquittoBroker()
        let observer = try await MQTTObserver(port: broker.port, filter: "switchboard/#")
        let daemon = try DaemonHarness(configuration: MQTTEndToEndTests().configuration(port: broker.port))
        try daemon.start()
        #expect(await observer.waitFor("\(Self.base)/status") { $0.text == "online" } != nil)

        // The garage opener's pulse lasts 500 ms; the porch commands behind it do not wait for it.
        observer.publish("\(Self.base)/controls/garage/set", #"{"value": "PRESS", "transaction": "g1"}"#)
        for (index, value) in [true, false, true].enumerated() {
            observer.publish("\(Self.base)/controls/porch/set", #"{"value": \#(value), "transaction": \#(index)}"#)
        }
        #expect(await observer.waitFor("\(Self.base)/controls/garage/result")?.text == #"{"outcome":"performed","transaction":"g1","valueText":null}"#)
        let results = observer.messages.filter { $0.topic.hasSuffix("/result") }
        #expect(results.map(\.topic) == [String](repeating: "\(Self.base)/controls/porch/result", count: 3) + ["\(Self.base)/controls/garage/result"])
        #expect(results.prefix(3).map(\.transactionNumber) == [0, 1, 2], "one control's commands in the order they came")
        #expect(daemon.cli(["status"]).stdout.contains("output porch: on"))
    }
}

/// A device bound to several placements: whichever path changes it, every placement shows it.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct SharedDeviceTests {
    static let base = MQTTEndToEndTests.base

    func presentation(_ message: MQTTMessage?) -> ControlPresentation? {
        message.flatMap { try? JSONDecoder().decode(ControlPresentation.self, from: Data($0.payload)) }
    }

    @Test func aChangeThroughOnePlacementReloadsEveryPlacementOfTheDevice() async throws {
        let broker = try MosquittoBroker()
        let observer = try await MQTTObserver(port: broker.port, filter: "switchboard/#")
        let daemon = try DaemonHarness(configuration: MQTTEndToEndTests().configuration(port: broker.port))
        try daemon.start()
        #expect(presentation(await observer.waitFor("\(Self.base)/controls/porch"))?.value == false)
        #expect(daemon.cli(["add", "light", "--device", "porch", "--id", "light2"]).status == 0)

        observer.clear()
        observer.publish("\(Self.base)/controls/light2/set", #"{"value": true, "transaction": 1}"#)
        #expect(await observer.waitFor("\(Self.base)/controls/light2/result")?.text?.contains(#""outcome":"performed""#) == true)
        for id in ["porch", "porch-lock", "action"] {
            let shown = presentation(await observer.waitFor("\(Self.base)/controls/\(id)") { $0.text?.contains(#""value":true"#) == true })
            #expect(shown?.value == true, "placement \(id) shows the porch light on")
        }
        let center = daemon.cli(["center", "--json"]).stdout
        let shown = try JSONDecoder().decode([ControlPresentation].self, from: Data(center.utf8))
        #expect(shown.filter { ["porch", "light2"].contains($0.id) }.map(\.valueText) == ["On", "On"], "\(center)")

        // Back through the porch placement: light2 follows.
        observer.publish("\(Self.base)/controls/porch/set", "OFF")
        #expect(presentation(await observer.waitFor("\(Self.base)/controls/light2") { $0.text?.contains(#""value":false"#) == true })?.valueText == "Off")
    }
}
