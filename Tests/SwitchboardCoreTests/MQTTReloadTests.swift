import ControlKit
import Foundation
import SwitchboardCore
import SwitchboardMQTT
import SwitchboardTesting
import Testing

/// SIGHUP as seen from the broker: a reload whose MQTT settings did not change keeps the
/// connection (nothing goes offline, Home Assistant's entities do not flap); one that changed them
/// reconnects with the new ones.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct MQTTReloadTests {
    static let base = MQTTEndToEndTests.base


    @Test func reloadWithUnchangedBrokerSettingsKeepsTheConnection() async throws {
        let broker = try await MosquittoBroker()
        let sample = MQTTEndToEndTests().configuration(port: broker.port)
        let daemon = try DaemonHarness(configuration: sample)
        try await daemon.start()
        let observer = try await MQTTObserver(port: broker.port, filter: "switchboard/#")
        #expect(await observer.waitFor("\(Self.base)/status") { $0.text == "online" } != nil)
        #expect(await observer.waitFor("\(Self.base)/controls/fan")?.presentation?.title == "Attic Fan")

        observer.clear()
        try daemon.writeConfiguration(sample.replacingOccurrences(of: #""title": "Attic Fan""#, with: #""title": "Loft Fan""#))
        await daemon.signal(SIGHUP)
        #expect((await observer.waitFor("\(Self.base)/controls/fan") { $0.text?.contains("Loft Fan") == true })?.presentation?.title == "Loft Fan")
        observer.publish("\(Self.base)/controls/porch/set", #"{"value": true, "transaction": 5}"#)
        #expect(await observer.waitFor("\(Self.base)/controls/porch/result")?.text == #"{"outcome":"performed","transaction":5,"value":true,"valueText":"On"}"#)
        #expect(!observer.messages.contains { $0.topic == "\(Self.base)/status" }, "the node never went offline: \(observer.messages.filter { $0.topic.hasSuffix("/status") }.compactMap(\.text))")
        #expect(daemon.log.components(separatedBy: "mqtt: connected").count - 1 == 1, "one connection: \(daemon.log)")
    }

    @Test func reloadWithChangedBrokerSettingsReconnects() async throws {
        let broker = try await MosquittoBroker()
        let sample = MQTTEndToEndTests().configuration(port: broker.port)
        let daemon = try DaemonHarness(configuration: sample)
        try await daemon.start()
        #expect(await daemon.waitUntil { daemon.log.contains("mqtt: connected") })
        try daemon.writeConfiguration(sample.replacingOccurrences(of: #""keepalive": 60"#, with: #""keepalive": 30"#))
        await daemon.signal(SIGHUP)
        #expect(await daemon.waitUntil { daemon.log.components(separatedBy: "mqtt: connected").count - 1 == 2 })
        let observer = try await MQTTObserver(port: broker.port, filter: "switchboard/#")
        #expect(await observer.waitFor("\(Self.base)/status") { $0.text == "online" } != nil)
        observer.publish("\(Self.base)/controls/porch/set", #"{"value": true, "transaction": 6}"#)
        #expect(await observer.waitFor("\(Self.base)/controls/porch/result")?.text == #"{"outcome":"performed","transaction":6,"value":true,"valueText":"On"}"#)
    }
}
