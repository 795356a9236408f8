import Foundation
import SwitchboardTesting
import Testing

/// A Tasmota plug that goes offline, falls silent or leaves a command unanswered: its control
/// shows stale with the reason in `status`, `health` and its presentation on MQTT (what the
/// Control Center and Home Assistant show), until the plug says it is back.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct DeviceAvailabilityTests {
    /// The README's kind of Tasmota plug: only its topics, no availability keys.
    func configuration(port: Int, extra: String = "", discovery: Bool = false, topics: String = #""stateTopic": "stat/plug1/POWER", "commandTopic": "cmnd/plug1/POWER""#) -> String {
        #"""
        {
          "node": "plugs",
          "mqtt": { "host": "127.0.0.1", "port": \#(port), "discovery": \#(discovery) },
          "devices": [
            { "id": "plug", "name": "Desk Plug", "type": "mqtt", "mqtt": {
                \#(topics)\#(extra) } }
          ],
          "controls": [ { "kind": "plug", "template": "toggle", "device": "plug" } ],
          "placements": [ { "id": "plug", "control": "plug" } ]
        }
        """#
    }

    /// Waits until `status` lists the plug's control as `line`.
    func expectStatus(_ daemon: DaemonHarness, _ line: String, timeout: Duration = .seconds(10), sourceLocation: SourceLocation = #_sourceLocation) async {
        var status = ""
        let seen = await daemon.waitUntil(timeout: timeout) {
            status = await daemon.cli(["status"]).stdout
            return status.contains("control plug " + line + "\n")
        }
        #expect(seen, "\(status)", sourceLocation: sourceLocation)
    }

    /// Waits until `status` lists the plug's control as stale for `reason`, whatever value it shows.
    func expectStale(_ daemon: DaemonHarness, _ reason: String, sourceLocation: SourceLocation = #_sourceLocation) async {
        var status = ""
        let seen = await daemon.waitUntil {
            status = await daemon.cli(["status"]).stdout
            return status.split(separator: "\n").contains { $0.hasPrefix("control plug Desk Plug ") && $0.hasSuffix(" (stale): " + reason) }
        }
        #expect(seen, "\(status)", sourceLocation: sourceLocation)
    }

    func expectHealth(_ daemon: DaemonHarness, _ status: Int32, _ stdout: String, sourceLocation: SourceLocation = #_sourceLocation) async {
        let health = await daemon.cli(["health"])
        #expect(health.status == status && health.stdout == stdout, "\(health)", sourceLocation: sourceLocation)
    }

    @Test func aPlugNoPlacedControlShowsIsStillInStatusAndHealth() async throws {
        let broker = try await MosquittoBroker()
        let plug = try await MQTTObserver(port: broker.port, filter: "cmnd/plug1/#")
        plug.publish("stat/plug1/POWER", "ON", retain: true)
        plug.publish("tele/plug1/LWT", "Online", retain: true)
        // The plug is switched only by a scene: no placed control shows it.
        let sceneOnly = configuration(port: broker.port)
            .replacingOccurrences(of: #"{ "kind": "plug", "template": "toggle", "device": "plug" }"#,
                                  with: #"{ "kind": "all-off", "template": "button", "scene": { "plug": false } }"#)
            .replacingOccurrences(of: #"{ "id": "plug", "control": "plug" }"#, with: #"{ "id": "all-off", "control": "all-off" }"#)
        let daemon = try DaemonHarness(configuration: sceneOnly)
        try await daemon.start()
        var status = ""
        #expect(await daemon.waitUntil { status = await daemon.cli(["status"]).stdout; return status.contains("\ndevice plug Desk Plug: on\n") }, "\(status)")
        await expectHealth(daemon, 0, "healthy: node plugs\n")
        plug.publish("tele/plug1/LWT", "Offline", retain: true)
        #expect(await daemon.waitUntil {
            status = await daemon.cli(["status"]).stdout
            return status.contains("\ndevice plug Desk Plug: on (stale): offline: tele/plug1/LWT said Offline\n")
        }, "\(status)")
        await expectHealth(daemon, 1, "device plug is stale: offline: tele/plug1/LWT said Offline\n")
        #expect(await daemon.signal(SIGTERM) == 0)
    }

    @Test func anOfflinePlugIsStaleWithItsLastWillUntilItIsOnlineAgain() async throws {
        let broker = try await MosquittoBroker()
        let plug = try await MQTTObserver(port: broker.port, filter: "switchboard/plugs/controls/plug")
        plug.publish("stat/plug1/POWER", "ON", retain: true)
        plug.publish("tele/plug1/LWT", "Online", retain: true)
        let homeAssistant = try await MQTTObserver(port: broker.port, filter: "homeassistant/switch/#")
        let daemon = try DaemonHarness(configuration: configuration(port: broker.port, discovery: true))
        try await daemon.start()
        await expectStatus(daemon, "Desk Plug On")
        // Home Assistant's entity is unavailable while the node is offline or the control stale.
        let entity = await homeAssistant.waitFor("homeassistant/switch/plugs/plug/config")?.text ?? ""
        #expect(entity.contains(#""availability":[{"payload_available":"online","payload_not_available":"offline","topic":"switchboard/plugs/status"},{"topic":"switchboard/plugs/controls/plug","value_template":"{{ 'offline' if value_json.stale else 'online' }}"}],"availability_mode":"all""#), "\(entity)")
        await expectHealth(daemon, 0, "healthy: node plugs\n")

        // The broker publishes the plug's last will when it loses it.
        plug.clear()
        plug.publish("tele/plug1/LWT", "Offline", retain: true)
        await expectStatus(daemon, "Desk Plug On (stale): offline: tele/plug1/LWT said Offline")
        await expectHealth(daemon, 1, "control plug is stale: offline: tele/plug1/LWT said Offline\n")
        let stale = await plug.waitFor("switchboard/plugs/controls/plug") { $0.presentation?.stale == true }
        #expect(stale?.presentation?.value == true, "the Control Center keeps the last value, marked stale")
        #expect(daemon.log.contains("warning: mqtt: Desk Plug is offline: tele/plug1/LWT said Offline\n"), "\(daemon.log)")

        // Not a payload of its last will: ignored, nothing changes.
        plug.publish("tele/plug1/LWT", "Sleeping")
        #expect(await daemon.waitUntil { daemon.log.contains("not an availability of plug (expected Online/Offline)") }, "\(daemon.log)")
        await expectHealth(daemon, 1, "control plug is stale: offline: tele/plug1/LWT said Offline\n")

        plug.publish("tele/plug1/LWT", "Online", retain: true)
        await expectStatus(daemon, "Desk Plug On")
        await expectHealth(daemon, 0, "healthy: node plugs\n")
        #expect(await plug.waitFor("switchboard/plugs/controls/plug") { $0.presentation?.stale == false && $0.presentation?.value == true } != nil)
    }

    @Test func aPlugSilentForStaleAfterIsStaleUntilItSpeaks() async throws {
        let broker = try await MosquittoBroker()
        let plug = try await MQTTObserver(port: broker.port, filter: "cmnd/plug1/#")
        // 5 s: the health check after the plug speaks again must come before its silence counts
        // as stale again, and under a sanitizer a status poll and the health CLI take seconds.
        let daemon = try DaemonHarness(configuration: configuration(port: broker.port, extra: #", "staleAfter": "5s""#))
        try await daemon.start()
        #expect(await daemon.waitUntil { daemon.log.contains("mqtt: connected") })
        plug.publish("stat/plug1/POWER", "OFF")
        await expectStatus(daemon, "Desk Plug Off")
        await expectStatus(daemon, "Desk Plug Off (stale): silent for 5s", timeout: .seconds(15))
        await expectHealth(daemon, 1, "control plug is stale: silent for 5s\n")
        plug.publish("stat/plug1/POWER", "OFF")
        await expectStatus(daemon, "Desk Plug Off")
        await expectHealth(daemon, 0, "healthy: node plugs\n")
    }

    /// The broker down for longer than the plug's `staleAfter`: that time is the node's deafness,
    /// not the plug's silence, so it is not stale when the broker is back; its silence counts on
    /// from where it stopped.
    @Test func timeWithoutTheBrokerIsNotThePlugsSilence() async throws {
        let broker = try await MosquittoBroker()
        let daemon = try DaemonHarness(configuration: configuration(port: broker.port, extra: #", "staleAfter": "4s""#))
        try await daemon.start()
        #expect(await daemon.waitUntil { daemon.log.contains("mqtt: connected") })
        do {
            let plug = try await MQTTObserver(port: broker.port, filter: "cmnd/plug1/#")
            plug.publish("stat/plug1/POWER", "ON")
            await expectStatus(daemon, "Desk Plug On")
        }
        broker.kill()
        #expect(await daemon.waitUntil { daemon.log.contains("mqtt: disconnected") })
        try await Task.sleep(for: .seconds(5))
        try await broker.start()
        #expect(await daemon.waitUntil(timeout: .seconds(15)) { daemon.log.components(separatedBy: "mqtt: connected").count == 3 }, "\(daemon.log)")
        let status = await daemon.cli(["status"]).stdout
        #expect(!status.contains("silent"), "\(status)")
        await expectStatus(daemon, "Desk Plug On (stale): silent for 4s", timeout: .seconds(8))
    }

    @Test func anUnansweredCommandMakesThePlugStaleUntilItsNextState() async throws {
        let broker = try await MosquittoBroker()
        let plug = try await MQTTObserver(port: broker.port, filter: "cmnd/plug1/#")
        plug.publish("stat/plug1/POWER", "OFF", retain: true)
        let daemon = try DaemonHarness(configuration: configuration(port: broker.port, extra: #", "timeout": "1s""#))
        try await daemon.start()
        await expectStatus(daemon, "Desk Plug Off")
        // The plug hears the command and says nothing.
        let on = await daemon.cli(["on", "plug"])
        #expect(on.status == 1, "\(on)")
        #expect(await plug.received(1, on: "cmnd/plug1/POWER").first?.text == "ON")
        await expectStatus(daemon, "Desk Plug Off (stale): no answer to ON after 1s")
        await expectHealth(daemon, 1, "control plug is stale: no answer to ON after 1s\n")
        plug.publish("stat/plug1/POWER", "ON")
        await expectStatus(daemon, "Desk Plug On")
        await expectHealth(daemon, 0, "healthy: node plugs\n")
    }

    @Test func aReloadThatChangesNothingKeepsAnOfflinePlugStaleWithoutAFlap() async throws {
        let broker = try await MosquittoBroker()
        let plug = try await MQTTObserver(port: broker.port, filter: "switchboard/plugs/controls/plug")
        plug.publish("stat/plug1/POWER", "ON", retain: true)
        plug.publish("tele/plug1/LWT", "Offline", retain: true)
        let daemon = try DaemonHarness(configuration: configuration(port: broker.port))
        try await daemon.start()
        await expectStale(daemon, "offline: tele/plug1/LWT said Offline")
        plug.clear()
        let apply = await daemon.cli(["apply"])
        #expect(apply.status == 0, "\(apply)")
        await expectStale(daemon, "offline: tele/plug1/LWT said Offline")
        try await Task.sleep(for: .seconds(1))
        let fresh = plug.messages.filter { $0.presentation?.stale == false }
        #expect(fresh.isEmpty, "the control never showed fresh across the reload: \(fresh.map(\.text))")
        await expectHealth(daemon, 1, "control plug is stale: offline: tele/plug1/LWT said Offline\n")
    }

    /// A stand-in for another system's device: its topics in devices.json, its state message, and
    /// what it says on its availability topic when it goes and when it is back.
    struct System: Sendable, CustomTestStringConvertible {
        let name: String
        let topics: String
        let stateTopic: String
        let state: String
        let availabilityTopic: String
        let offline: String
        let online: String
        let said: String
        var testDescription: String { name }
    }

    static let systems = [
        System(name: "Zigbee2MQTT, JSON availability", topics: #""stateTopic": "zigbee2mqtt/desk_plug", "commandTopic": "zigbee2mqtt/desk_plug/set", "valueKey": "state""#,
               stateTopic: "zigbee2mqtt/desk_plug", state: #"{"state":"ON","linkquality":120}"#,
               availabilityTopic: "zigbee2mqtt/desk_plug/availability", offline: #"{"state":"offline"}"#, online: #"{"state":"online"}"#, said: "offline"),
        System(name: "Zigbee2MQTT, plain availability", topics: #""stateTopic": "zigbee2mqtt/desk_plug", "commandTopic": "zigbee2mqtt/desk_plug/set", "valueKey": "state""#,
               stateTopic: "zigbee2mqtt/desk_plug", state: #"{"state":"ON"}"#,
               availabilityTopic: "zigbee2mqtt/desk_plug/availability", offline: "offline", online: "online", said: "offline"),
        System(name: "Shelly", topics: #""stateTopic": "shellies/shelly1-AB12/relay/0", "commandTopic": "shellies/shelly1-AB12/relay/0/command", "onValue": "on", "offValue": "off""#,
               stateTopic: "shellies/shelly1-AB12/relay/0", state: "on",
               availabilityTopic: "shellies/shelly1-AB12/online", offline: "false", online: "true", said: "false"),
    ]

    @Test(arguments: systems)
    func eachSystemsOwnAvailabilityConventionWithoutNewKeys(_ system: System) async throws {
        let broker = try await MosquittoBroker()
        let device = try await MQTTObserver(port: broker.port, filter: "switchboard/plugs/controls/plug")
        device.publish(system.stateTopic, system.state, retain: true)
        device.publish(system.availabilityTopic, system.online, retain: true)
        let daemon = try DaemonHarness(configuration: configuration(port: broker.port, topics: system.topics))
        try await daemon.start()
        await expectStatus(daemon, "Desk Plug On")
        device.publish(system.availabilityTopic, system.offline, retain: true)
        let reason = "offline: \(system.availabilityTopic) said \(system.said)"
        await expectStatus(daemon, "Desk Plug On (stale): " + reason)
        await expectHealth(daemon, 1, "control plug is stale: \(reason)\n")
        device.publish(system.availabilityTopic, system.online, retain: true)
        await expectStatus(daemon, "Desk Plug On")
        await expectHealth(daemon, 0, "healthy: node plugs\n")
    }

    /// A configurable control choosing between two plugs: its entity follows the health of the
    /// plug it drives now; its device `select` stays available, so another can be chosen.
    @Test func aConfigurableControlFollowsTheChosenPlugsHealthAndItsChoiceStaysAvailable() async throws {
        let broker = try await MosquittoBroker()
        let plug = try await MQTTObserver(port: broker.port, filter: "switchboard/plugs/controls/plug")
        for name in ["plug1", "plug2"] {
            plug.publish("stat/\(name)/POWER", "ON", retain: true)
            plug.publish("tele/\(name)/LWT", "Online", retain: true)
        }
        let homeAssistant = try await MQTTObserver(port: broker.port, filter: "homeassistant/#")
        let daemon = try DaemonHarness(configuration: #"""
            {
              "node": "plugs",
              "mqtt": { "host": "127.0.0.1", "port": \#(broker.port), "discovery": true },
              "devices": [
                { "id": "plug1", "name": "Desk Plug", "type": "mqtt", "mqtt": { "stateTopic": "stat/plug1/POWER", "commandTopic": "cmnd/plug1/POWER" } },
                { "id": "plug2", "name": "Lamp Plug", "type": "mqtt", "mqtt": { "stateTopic": "stat/plug2/POWER", "commandTopic": "cmnd/plug2/POWER" } }
              ],
              "controls": [ { "kind": "plug", "template": "toggle", "devices": ["plug1", "plug2"] } ],
              "placements": [ { "id": "plug", "control": "plug" } ]
            }
            """#)
        try await daemon.start()
        #expect(await daemon.cli(["configure", "plug", "--device", "plug1"]).status == 0)
        let stale = #"{"topic":"switchboard/plugs/controls/plug","value_template":"{{ 'offline' if value_json.stale else 'online' }}"}],"availability_mode":"all""#
        let entity = await homeAssistant.waitFor("homeassistant/switch/plugs/plug/config")?.text ?? ""
        #expect(entity.contains(stale), "\(entity)")
        let select = await homeAssistant.waitFor("homeassistant/select/plugs/plug_device/config")?.text ?? ""
        #expect(select.contains(#""availability_topic":"switchboard/plugs/status""#) && !select.contains("value_json.stale"), "\(select)")

        plug.publish("tele/plug1/LWT", "Offline", retain: true)
        #expect(await plug.waitFor("switchboard/plugs/controls/plug") { $0.presentation?.stale == true } != nil, "the chosen plug is offline")
        plug.clear()
        #expect(await daemon.cli(["configure", "plug", "--device", "plug2"]).status == 0)
        #expect(await plug.waitFor("switchboard/plugs/controls/plug") { $0.presentation?.stale == false && $0.presentation?.title == "Lamp Plug" } != nil,
                "the other plug, online, is fresh: \(plug.messages.map(\.text))")
    }
}
