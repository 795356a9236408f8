import ControlKit
import Foundation
@testable import SwitchboardCore
import SwitchboardGPIO
import SwitchboardTesting
import Testing
@testable import SwitchboardConfiguration
import SwitchboardSupport

/// The node's control center runs on the loop its MQTT connection is served on, so that a message
/// is handled on the thread where the center runs; the next configuration, keeping the connection,
/// keeps the loop.
@Suite(.timeLimit(.minutes(1)))
struct NodeLoopTests {
    static func configuration(node: String = "loop-pi", mqtt: Bool) throws -> SwitchboardConfiguration {
        let broker = mqtt ? #""mqtt": { "host": "127.0.0.1", "port": 1, "discovery": false },"# : ""
        let text = #"""
        {
          "node": "\#(node)", \#(broker)
          "chips": [ { "id": "main", "chip": "header" } ],
          "devices": [ { "id": "fan", "name": "Fan", "type": "relay", "gpio": { "chip": "main", "line": 17 } } ],
          "controls": [ { "kind": "fan", "template": "toggle", "title": "Fan", "device": "fan" } ],
          "placements": [ { "id": "fan", "control": "fan" } ]
        }
        """#
        return try ConfigurationLoader.load(data: Data(text.utf8))
    }

    @Test func theCenterRunsOnTheConnectionsLoopAndTheNextConfigurationKeepsIt() async throws {
        let chip = SimulatedGPIOChip(lineCount: 54)
        let first = try await NodeRuntime(configuration: try Self.configuration(mqtt: true), chips: ["main": chip], persisted: PersistedState(), stateFile: nil, log: Log())
        let bridge = try #require(first.bridge)
        #expect(bridge.connection.loop === first.center.loop)
        #expect(first.center.loop !== ControlCenter.defaultLoop)
        #expect(first.center.loop.name == "switchboard.node")

        let next = try Self.configuration(mqtt: true)
        let handover = try #require(bridge.handOver(to: next))
        let lines = first.hub.shutdown(handingOverTo: next)
        let second = try await NodeRuntime(configuration: next, chips: ["main": chip], persisted: PersistedState(), stateFile: nil, handover: lines, mqttConnection: handover, log: Log())
        #expect(second.center.loop === first.center.loop)
        #expect(try #require(second.bridge).connection === bridge.connection)
    }

    @Test func aNodeWithoutABrokerHasALoopOfItsOwn() async throws {
        let chip = SimulatedGPIOChip(lineCount: 54)
        let node = try await NodeRuntime(configuration: try Self.configuration(mqtt: false), chips: ["main": chip], persisted: PersistedState(), stateFile: nil, log: Log())
        #expect(node.center.loop !== ControlCenter.defaultLoop)
        _ = try await node.center.perform("fan", .setValue(true))
        #expect(try node.hub.value(of: "fan") == true)
    }
}
