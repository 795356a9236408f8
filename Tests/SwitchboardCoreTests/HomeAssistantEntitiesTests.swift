import ControlKit
import Foundation
import SwitchboardCore
import SwitchboardMQTT
import SwitchboardTesting
import Testing

/// What Home Assistant is told, read back from the broker's retained discovery topics: entities
/// for Control Center placements only, added and removed as placements are, never left behind.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct HomeAssistantEntitiesTests {
    static let base = MQTTEndToEndTests.base

    /// The retained discovery configurations now.
    func retained(_ broker: MosquittoBroker) async throws -> [String: String] {
        try await MQTTObserver.retained(port: broker.port, filter: "homeassistant/#")
    }

    @Test func onlyControlCenterPlacementsAreEntities() async throws {
        let broker = try await MosquittoBroker()
        let daemon = try DaemonHarness(configuration: MQTTEndToEndTests().configuration(port: broker.port))
        try await daemon.start()
        #expect(await daemon.waitUntil { daemon.log.contains("mqtt: connected") })
        let topics = try await retained(broker).keys.filter { $0.hasSuffix("/config") }.sorted()
        #expect(topics == [
            "homeassistant/binary_sensor/garage-pi/connectivity/config",
            "homeassistant/binary_sensor/garage-pi/problems/config",
            "homeassistant/button/garage-pi/garage/config",
            "homeassistant/device_automation/garage-pi/button_hold/config",
            "homeassistant/device_automation/garage-pi/button_press/config",
            "homeassistant/event/garage-pi/commands/config",
            "homeassistant/fan/garage-pi/fan/config",
            "homeassistant/light/garage-pi/porch/config",
            "homeassistant/lock/garage-pi/lock/config",
            "homeassistant/select/garage-pi/kitchen_device/config",
            "homeassistant/sensor/garage-pi/rejected_messages/config",
            "homeassistant/sensor/garage-pi/version/config",
            "homeassistant/switch/garage-pi/kitchen/config",
        ], "no entities for the Lock Screen (porch-lock) or the Action button (action)")
        let press = try await retained(broker)["homeassistant/device_automation/garage-pi/button_press/config"]
        #expect(press?.contains(#""payload":"cancelled""#) == true, "a short press is a release before the hold time, not every press")
    }

    @Test func placementsAddedAndRemovedAtRuntimeComeAndGo() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTObserver(port: broker.port, filter: "#")
        let daemon = try DaemonHarness(configuration: MQTTEndToEndTests().configuration(port: broker.port))
        try await daemon.start()
        #expect(await observer.waitFor("homeassistant/light/garage-pi/porch/config") != nil)

        #expect(await daemon.cli(["add", "fan", "--id", "fan2"]).status == 0)
        let added = await observer.waitFor("homeassistant/switch/garage-pi/fan2/config") { !$0.payload.isEmpty }
        #expect(added?.text?.contains(#""unique_id":"switchboard_garage-pi_fan2""#) == true, "a runtime placement appears at once")

        observer.clear()
        #expect(await daemon.cli(["remove", "fan2"]).status == 0)
        #expect(await observer.waitFor("\(Self.base)/controls/fan2") { $0.payload.isEmpty } != nil)
        let order = observer.messages.filter { $0.payload.isEmpty }.map(\.topic)
        #expect(order.first == "homeassistant/switch/garage-pi/fan2/config", "the entity goes before its state: \(order)")
        #expect(order.contains("\(Self.base)/controls/fan2"))
        #expect(try await retained(broker)["homeassistant/switch/garage-pi/fan2/config"] == nil)
    }

    @Test func aConfigurableSwitchIsNamedAfterTheDeviceItDrives() async throws {
        let broker = try await MosquittoBroker()
        let topic = "homeassistant/switch/garage-pi/kitchen/config"
        let observer = try await MQTTObserver(port: broker.port, filter: topic)
        let daemon = try DaemonHarness(configuration: MQTTEndToEndTests().configuration(port: broker.port))
        try await daemon.start()
        #expect(await observer.waitFor(topic) { $0.text?.contains(#""name":"Kitchen Light""#) == true } != nil)

        observer.clear()
        #expect(await daemon.cli(["configure", "kitchen", "--device", "porch"]).status == 0)
        let renamed = await observer.waitFor(topic) { $0.text?.contains(#""name":"Porch Light""#) == true }
        #expect(renamed != nil, "announced again, named after the porch light")
        #expect(try await retained(broker)[topic]?.contains(#""name":"Porch Light""#) == true, "and retained so")

        // A change of value leaves the entity's configuration alone: nothing is announced.
        observer.clear()
        #expect(await daemon.cli(["on", "kitchen"]).status == 0)
        #expect(await daemon.waitUntil { daemon.log.contains("cli: perform kitchen on") })
        try await Task.sleep(for: .milliseconds(300))
        #expect(observer.messages.isEmpty, "\(observer.messages.map { $0.text ?? "" })")
    }

    @Test func placementsRemovedWhileDownOrByAReloadLeaveNoGhosts() async throws {
        let broker = try await MosquittoBroker()
        let sample = MQTTEndToEndTests().configuration(port: broker.port)
        let daemon = try DaemonHarness(configuration: sample)
        try await daemon.start()
        #expect(await daemon.waitUntil { daemon.log.contains("mqtt: connected") })
        #expect(await daemon.cli(["add", "fan", "--id", "fan2"]).status == 0)
        #expect(try await retained(broker)["homeassistant/switch/garage-pi/fan2/config"] != nil)

        // Removed from the state while the daemon is down (as a restore of an older state would).
        _ = await daemon.signal(SIGTERM)
        let statePath = daemon.stateDirectory + "/state.json"
        var state = try JSONDecoder().decode(PersistedState.self, from: Data(contentsOf: URL(fileURLWithPath: statePath)))
        state.placements.removeAll { $0.id == "fan2" }
        try JSONEncoder().encode(state).write(to: URL(fileURLWithPath: statePath))
        try await daemon.start()
        #expect(await daemon.waitUntil { daemon.log.contains("mqtt: connected") })
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await retained(broker)["homeassistant/switch/garage-pi/fan2/config"] == nil, "gone from Home Assistant too")

        // A reload whose devices.json no longer places the fan.
        try daemon.writeConfiguration(sample.replacingOccurrences(of: #"    { "id": "fan", "control": "fan", "space": "controlCenter", "size": "large", "homeAssistant": { "component": "fan", "area": "Attic" } },"#, with: ""))
        _ = await daemon.signal(SIGHUP)
        #expect(await daemon.waitUntil { daemon.log.contains("configuration 2 serving") })
        try await Task.sleep(for: .milliseconds(300))
        let after = try await retained(broker)
        #expect(after["homeassistant/fan/garage-pi/fan/config"] == nil)
        #expect(after["homeassistant/light/garage-pi/porch/config"] != nil)
    }
}

/// The record of what was announced, `home-assistant.json`: the bridge's own file, apart from the
/// node's state, and carried over from the `state.json` of a version that kept it there.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct HomeAssistantRecordTests {
    func record(_ daemon: DaemonHarness) -> [String]? {
        guard let data = FileManager.default.contents(atPath: daemon.stateDirectory + "/home-assistant.json"),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        return object["announced"] as? [String]
    }

    func stateText(_ daemon: DaemonHarness) -> String {
        (try? String(contentsOfFile: daemon.stateDirectory + "/state.json", encoding: .utf8)) ?? ""
    }

    @Test func whatWasAnnouncedIsKeptInAFileOfItsOwn() async throws {
        let broker = try await MosquittoBroker()
        let daemon = try DaemonHarness(configuration: MQTTEndToEndTests().configuration(port: broker.port))
        try await daemon.start()
        #expect(await daemon.waitUntil { record(daemon)?.contains("homeassistant/light/garage-pi/porch/config") == true })
        #expect(await daemon.cli(["add", "fan", "--id", "fan2"]).status == 0)
        #expect(await daemon.waitUntil { record(daemon)?.contains("homeassistant/switch/garage-pi/fan2/config") == true })
        #expect(await daemon.cli(["remove", "fan2"]).status == 0)
        #expect(await daemon.waitUntil { record(daemon)?.contains("homeassistant/switch/garage-pi/fan2/config") == false })
        _ = await daemon.signal(SIGTERM)
        #expect(!stateText(daemon).isEmpty)
        #expect(!stateText(daemon).contains("announced"), "the node's state says nothing of Home Assistant: \(stateText(daemon))")
    }

    @Test func anOlderVersionsRecordInTheStateFileIsCarriedOverAndStillRemovesGhosts() async throws {
        let broker = try await MosquittoBroker()
        let ghost = "homeassistant/switch/garage-pi/ghost/config"
        let published = await broker.publish(["-q", "1", "-r", "-t", ghost, "-m", #"{"name":"Ghost"}"#])
        #expect(published.status == 0, "\(published.stderr)")
        let daemon = try DaemonHarness(configuration: MQTTEndToEndTests().configuration(port: broker.port))
        try FileManager.default.createDirectory(atPath: daemon.stateDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o750])
        // What an older version wrote: the list in state.json, no home-assistant.json.
        try Data(#"{"version":1,"outputs":{},"placements":[],"removedPlacements":[],"autoOff":{},"locked":false,"announced":["\#(ghost)","homeassistant/light/garage-pi/porch/config"]}"#.utf8)
            .write(to: URL(fileURLWithPath: daemon.stateDirectory + "/state.json"))
        try await daemon.start()
        #expect(await daemon.waitUntil { daemon.log.contains("mqtt: connected") })
        #expect(await daemon.waitUntil { record(daemon)?.contains("homeassistant/light/garage-pi/porch/config") == true })
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await MQTTObserver.retained(port: broker.port, filter: "homeassistant/#")[ghost] == nil, "the ghost the old record named is removed")
        #expect(record(daemon)?.contains(ghost) == false)
        #expect(!stateText(daemon).contains("announced"), "\(stateText(daemon))")
    }
}

/// The node's own entities at work: a refused press seen as a command event, rejected messages
/// counted on the diagnostics topic.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct HomeAssistantNodeEntitiesTests {
    static let base = MQTTEndToEndTests.base

    @Test func aRefusedPressIsACommandEventWithItsReason() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTObserver(port: broker.port, filter: "\(Self.base)/outcomes")
        let daemon = try DaemonHarness(configuration: MQTTEndToEndTests().configuration(port: broker.port))
        try await daemon.start()
        #expect(await daemon.waitUntil { daemon.log.contains("mqtt: connected") })
        #expect(await daemon.cli(["lock"]).status == 0)
        observer.publish("\(Self.base)/controls/garage/set", "PRESS")
        #expect(await observer.waitFor("\(Self.base)/outcomes")?.text ==
            #"{"code":"authenticationRequired","command":"PRESS","control":"garage","error":"control \"garage\" requires authentication: Switchboard is locked; unlock it (switchboard unlock) or use the local CLI","event_type":"refused"}"#,
            "\(observer.messages.map { $0.text ?? "" })")
        observer.clear()
        observer.publish("\(Self.base)/controls/porch/set", "ON")
        #expect(await observer.waitFor("\(Self.base)/outcomes")?.text == #"{"command":"ON","control":"porch","event_type":"performed","valueText":"On"}"#)
    }

    @Test func rejectedMessagesAreCountedOnTheDiagnosticsTopic() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTObserver(port: broker.port, filter: "\(Self.base)/diagnostics")
        let daemon = try DaemonHarness(configuration: MQTTEndToEndTests().configuration(port: broker.port))
        try await daemon.start()
        #expect(await observer.waitFor("\(Self.base)/diagnostics")?.text == #"{"problems":[],"rejectedMessages":0,"version":"\#(Switchboard.version)"}"#)
        for _ in 0..<3 { observer.publish("\(Self.base)/controls/porch/set", "SIDEWAYS") }
        #expect(await observer.waitFor("\(Self.base)/diagnostics") { $0.text?.contains(#""rejectedMessages":3"#) == true } != nil,
                "\(observer.messages.map { $0.text ?? "" })")
        // A reload keeps the count: it is the daemon's since it started, not the configuration's.
        observer.clear()
        _ = await daemon.signal(SIGHUP)
        #expect(await daemon.waitUntil { daemon.log.contains("configuration 2 serving") })
        try await Task.sleep(for: .milliseconds(500))
        #expect(observer.messages.allSatisfy { $0.text?.contains(#""rejectedMessages":3"#) == true }, "\(observer.messages.map { $0.text ?? "" })")
    }
}
