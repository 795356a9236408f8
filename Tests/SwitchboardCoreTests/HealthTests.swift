import Foundation
import SwitchboardTesting
import Testing

/// `switchboard health` and `status` on the sample: what is wrong, one line each, and why a
/// control is stale, as a monitoring system and a user read them.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct HealthTests {
    func sample(port: Int) -> String {
        DaemonEndToEndTests.sample.replacingOccurrences(of: #""port": 1883"#, with: #""port": \#(port)"#)
    }

    @Test func aLightThatHasNotReportedIsWhyTheNodeIsUnhealthyUntilItDoes() async throws {
        let broker = try await MosquittoBroker()
        let daemon = try DaemonHarness(configuration: sample(port: broker.port))
        try await daemon.start()
        #expect(await daemon.waitUntil { daemon.log.contains("mqtt: connected") })
        let status = await daemon.cli(["status"]).stdout
        #expect(status.contains("mqtt: connected\n"), "\(status)")
        #expect(status.contains("control kitchen Kitchen Light Off (stale): Kitchen Light's state is not known: no state message on zigbee2mqtt/kitchen_light yet\n"), "\(status)")
        let sick = await daemon.cli(["health"])
        #expect(sick.status == 1)
        #expect(sick.stdout == "control kitchen is stale: Kitchen Light's state is not known: no state message on zigbee2mqtt/kitchen_light yet\n")

        // The bulb reports (as Zigbee2MQTT does, retained): the light is current, the node healthy.
        let reporter = try await MQTTObserver(port: broker.port, filter: "zigbee2mqtt/#")
        reporter.publish("zigbee2mqtt/kitchen_light", #"{"state":"OFF"}"#)
        var healthy = (status: Int32(-1), stdout: "", stderr: "")
        #expect(await daemon.waitUntil {
            healthy = await daemon.cli(["health"])
            return healthy.status == 0
        }, "\(healthy.stdout)")
        #expect(healthy.stdout == "healthy: node garage-pi\n")
    }

    @Test func withoutTheBrokerTheNodeIsUnhealthy() async throws {
        let port = try TestPort.free()
        let daemon = try DaemonHarness(configuration: sample(port: port))
        try await daemon.start()
        let sick = await daemon.cli(["health"])
        #expect(sick.status == 1)
        #expect(sick.stdout.hasPrefix("not connected to the MQTT broker\n"), "\(sick.stdout)")
        #expect(await daemon.cli(["status"]).stdout.contains("mqtt: disconnected\n"))
    }
}
