import Foundation
import SwitchboardTesting
import Testing

/// A light of another system whose state is not retained (Zigbee2MQTT's default): the node knows
/// it from the one state message it got. A reload that leaves the device as it was keeps that
/// value (the control stays On, the node healthy); a reload that changes the device forgets it,
/// as its state may now come from elsewhere.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct ReloadKeepsRemoteStateTests {
    func configuration(port: Int, stateTopic: String = "zigbee2mqtt/kitchen", more: String = "") -> String {
        #"""
        {
          "node": "kitchen-node",
          "mqtt": { "host": "127.0.0.1", "port": \#(port), "discovery": false },
          "devices": [
            { "id": "kitchen", "name": "Kitchen Light", "type": "mqtt", "mqtt": {
                "stateTopic": "\#(stateTopic)", "commandTopic": "zigbee2mqtt/kitchen/set",
                "valueKey": "state", "onValue": "ON", "offValue": "OFF" } }\#(more)
          ],
          "controls": [ { "kind": "kitchen", "template": "toggle", "device": "kitchen" } ],
          "placements": [ { "id": "kitchen", "control": "kitchen" } ]
        }
        """#
    }

    @Test func aReloadThatChangesNothingKeepsTheLastStateAndOneThatChangesTheDeviceForgetsIt() async throws {
        let broker = try await MosquittoBroker()
        let zigbee = try await MQTTObserver(port: broker.port, filter: "zigbee2mqtt/#")
        let daemon = try DaemonHarness(configuration: configuration(port: broker.port))
        try await daemon.start()
        #expect(await daemon.waitUntil { daemon.log.contains("mqtt: connected") })
        // Once, not retained.
        zigbee.publish("zigbee2mqtt/kitchen", #"{"state":"ON"}"#)
        #expect(await daemon.waitUntil { await daemon.cli(["status"]).stdout.contains("control kitchen Kitchen Light On\n") })
        #expect(await daemon.cli(["health"]).status == 0)

        // Nothing changed: applied, and the light is still known to be on.
        let same = await daemon.cli(["apply"])
        #expect(same.status == 0, "\(same.stderr)")
        let kept = await daemon.cli(["status"]).stdout
        #expect(kept.contains("control kitchen Kitchen Light On\n"), "\(kept)")
        let health = await daemon.cli(["health"])
        #expect(health.status == 0, "\(health.stdout)\(health.stderr)")

        // A device added beside it changes nothing about the light either.
        try daemon.writeConfiguration(configuration(port: broker.port, more: #", { "id": "hall", "name": "Hall Light", "type": "mqtt", "mqtt": { "stateTopic": "zigbee2mqtt/hall", "commandTopic": "zigbee2mqtt/hall/set" } }"#))
        #expect(await daemon.cli(["apply"]).status == 0)
        #expect(await daemon.cli(["status"]).stdout.contains("control kitchen Kitchen Light On\n"))

        // Its state topic changed: what was known of the old one is not this device's state.
        try daemon.writeConfiguration(configuration(port: broker.port, stateTopic: "zigbee2mqtt/kitchen-ceiling"))
        #expect(await daemon.cli(["apply"]).status == 0)
        let changed = await daemon.cli(["status"]).stdout
        #expect(changed.contains("control kitchen Kitchen Light Off (stale): Kitchen Light's state is not known: no state message on zigbee2mqtt/kitchen-ceiling yet\n"), "\(changed)")
        #expect(await daemon.signal(SIGTERM) == 0)
    }
}
