import ControlKit
import Foundation
import SwitchboardTesting
import Testing

/// The node's own retained topics stay the node's: another client's write on them (a forged
/// `offline`, a forged presentation, a control the node does not have) is undone within a second
/// or two and named in the log; what the broker kept from an earlier run is set right silently.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct RetainedTopicsTests {
    static let base = MQTTEndToEndTests.base

    /// What the broker holds now on the node's topics.
    func retained(_ broker: MosquittoBroker) async throws -> [String: String] {
        try await MQTTObserver.retained(port: broker.port, filter: "\(Self.base)/#")
    }

    @Test func anotherClientsWritesAreUndoneAndNamed() async throws {
        let broker = try await MosquittoBroker()
        let rogue = try await MQTTObserver(port: broker.port, filter: "\(Self.base)/#")
        let daemon = try DaemonHarness(configuration: MQTTEndToEndTests().configuration(port: broker.port))
        try await daemon.start()
        let porch = try #require(await rogue.waitFor("\(Self.base)/controls/porch")?.text)
        #expect(await rogue.waitFor("\(Self.base)/status") { $0.text == "online" } != nil)
        try await Task.sleep(for: .milliseconds(300))

        rogue.clear()
        rogue.publish("\(Self.base)/status", "offline", retain: true)
        rogue.publish("\(Self.base)/controls/porch", #"{"value":true,"valueText":"On"}"#, retain: true)
        rogue.publish("\(Self.base)/controls/ghost", #"{"value":true}"#, retain: true)
        rogue.publish("\(Self.base)/lock", "UNLOCKED", retain: true)
        #expect(await rogue.waitFor("\(Self.base)/status") { $0.text == "online" } != nil, "status is the node's again")
        #expect(await rogue.waitFor("\(Self.base)/controls/porch") { $0.text == porch } != nil, "the porch light's presentation is the node's again")
        #expect(await rogue.waitFor("\(Self.base)/controls/ghost") { $0.payload.isEmpty } != nil, "a control the node does not have is cleared")

        let now = try await retained(broker)
        #expect(now["\(Self.base)/status"] == "online")
        #expect(now["\(Self.base)/controls/porch"] == porch)
        #expect(now["\(Self.base)/controls/ghost"] == nil)
        #expect(now["\(Self.base)/lock"] == "UNLOCKED", "a write of what the node holds changes nothing")
        #expect(daemon.log.contains("warning: mqtt: another client wrote \(Self.base)/status (7 bytes); Switchboard publishes its own again: let only this node write \(Self.base)/# in the broker's ACL (deploy/mosquitto/switchboard.acl)"), "\(daemon.log)")
        // Once per topic, however often.
        rogue.publish("\(Self.base)/status", "offline", retain: true)
        #expect(await rogue.waitFor("\(Self.base)/status") { $0.text == "online" } != nil)
        #expect(daemon.log.components(separatedBy: "another client wrote \(Self.base)/status").count - 1 == 1)
    }

    @Test func whatAnEarlierRunLeftIsSetRightSilently() async throws {
        let broker = try await MosquittoBroker()
        let earlier = try await MQTTObserver(port: broker.port, filter: "\(Self.base)/#")
        earlier.publish("\(Self.base)/status", "offline", retain: true)
        earlier.publish("\(Self.base)/controls/removed-while-down", #"{"value":false}"#, retain: true)
        try await Task.sleep(for: .milliseconds(200))
        let daemon = try DaemonHarness(configuration: MQTTEndToEndTests().configuration(port: broker.port))
        try await daemon.start()
        #expect(await earlier.waitFor("\(Self.base)/controls/removed-while-down") { $0.payload.isEmpty } != nil)
        let now = try await retained(broker)
        #expect(now["\(Self.base)/status"] == "online")
        #expect(now["\(Self.base)/controls/removed-while-down"] == nil)
        #expect(!daemon.log.contains("another client wrote"), "\(daemon.log)")
    }

    @Test(arguments: [SIGKILL, SIGTERM])
    func theWillOfTheRunBeforeIsSetRightSilently(_ stop: Int32) async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTObserver(port: broker.port, filter: "\(Self.base)/status")
        let daemon = try DaemonHarness(configuration: MQTTEndToEndTests().configuration(port: broker.port))
        try await daemon.start()
        #expect(await observer.waitFor("\(Self.base)/status") { $0.text == "online" } != nil)
        // Killed, the broker publishes the will, `offline`; stopped, the node publishes it itself.
        // Either goes into the node's persistent session, which hands it to the node's next
        // connection as a live message.
        observer.clear()
        #expect(await daemon.signal(stop) == (stop == SIGKILL ? 128 + SIGKILL : 0))
        #expect(await observer.waitFor("\(Self.base)/status") { $0.text == "offline" } != nil)
        try await daemon.start()
        #expect(await observer.waitFor("\(Self.base)/status") { $0.text == "online" } != nil)
        try await Task.sleep(for: .seconds(1.5))
        #expect(try await retained(broker)["\(Self.base)/status"] == "online")
        #expect(!daemon.log.contains("another client wrote"), "\(daemon.log)")
    }
}
