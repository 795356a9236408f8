import ControlKit
import Foundation
import SwitchboardCore
import SwitchboardMQTT
import SwitchboardTesting
import Testing
@testable import SwitchboardConfiguration

/// A fault test: a flood of random and malformed payloads on every topic the daemon subscribes to.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct MalformedPayloadFaultTests {
    @Test func tenThousandBadPayloadsChangeNoOutputAndTheDaemonKeepsAnswering() async throws {
        let broker = try await MosquittoBroker()
        let daemon = try DaemonHarness(configuration: DaemonEndToEndTests.sample.replacingOccurrences(of: #""port": 1883"#, with: #""port": \#(broker.port)"#))
        try await daemon.start()
        #expect(await daemon.cli(["on", "fan"]).status == 0)
        let before = await daemon.cli(["status"]).stdout
        let base = "switchboard/garage-pi"
        let topics = ["porch", "fan", "garage", "kitchen", "porch-lock", "action", "attic"].flatMap { ["\(base)/controls/\($0)/set", "\(base)/controls/\($0)/configure"] }
            + ["\(base)/lock/set", "homeassistant/status", "zigbee2mqtt/kitchen_light"]
        let templates = [#"{"value": "#, #"{"transaction": "#, "{", "[", "\u{0}", "LOCKED!", #"{"state": "#, "TOGGLEX", ""]
        let publisher = try await MQTTObserver(port: broker.port, filter: "nothing/here")
        var random = SeededRandom(seed: 0x5EED)
        var sent = 0
        while sent < 10_000 {
            let topic = topics[Int(random.next() % UInt64(topics.count))]
            var payload: [UInt8]
            switch random.next() % 3 {
            case 0: payload = (0..<Int(random.next() % 64)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            case 1: payload = Array((templates[Int(random.next() % UInt64(templates.count))] + String(random.next(), radix: 36)).utf8)
            default: payload = Array(repeating: UInt8(ascii: "x"), count: 4097 + Int(random.next() % 100))
            }
            // Only payloads that are not valid commands, states or device ids: nothing may change.
            if case .success = CommandPayload.parse(payload) { continue }
            if let text = String(validating: payload, as: UTF8.self)?.trimmingCharacters(in: .whitespacesAndNewlines).uppercased(),
               ["PORCH", "KITCHEN", "ONLINE", "LOCKED", "UNLOCKED", "LOCK", "UNLOCK"].contains(text) || text.contains("\"STATE\"") {
                continue
            }
            publisher.connection.publish(MQTTMessage(topic: topic, payload: payload, qos: 0))
            sent += 1
        }
        // A marker after the flood, answered on its result topic once everything before it was handled.
        let results = try await MQTTObserver(port: broker.port, filter: "\(base)/controls/attic/result")
        publisher.publish("\(base)/controls/attic/set", #"{"value": true, "transaction": "marker"}"#)
        let marker = await results.waitFor("\(base)/controls/attic/result", timeout: .seconds(60)) { $0.text?.contains("marker") == true }
        #expect(marker?.text?.contains(#""outcome":"refused""#) == true)
        #expect(await daemon.waitUntil { daemon.log.contains("mqtt: ignored a message") }, "\(daemon.log)")
        let after = await daemon.cli(["status"])
        #expect(after.status == 0)
        #expect(after.stdout.split(separator: "\n").filter { $0.hasPrefix("output") } == before.split(separator: "\n").filter { $0.hasPrefix("output") })
        #expect(after.stdout.hasPrefix("node garage-pi, unlocked"))
        #expect(daemon.pid != nil && kill(daemon.pid!, 0) == 0, "the daemon is still running")
    }
}
