import Foundation
@testable import SwitchboardCore
import SwitchboardMQTT
import SwitchboardTesting
import Testing
@testable import SwitchboardConfiguration

/// Schedules on the broker, as Home Assistant sees them: a retained state per schedule, a
/// configuration `switch` that pauses and resumes it, refused while the node is locked.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct ScheduleOverMQTTTests {
    static let base = "switchboard/house"

    func object(_ message: MQTTMessage?) throws -> [String: JSONValue] {
        guard case .object(let fields) = try JSONValue.parse(Data((message?.text ?? "").utf8)) else { return [:] }
        return Dictionary(fields.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    @Test func homeAssistantSeesASchedulePausesAndResumesItAndIsRefusedWhileLocked() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTObserver(port: broker.port, filter: "#")
        let configuration = ScheduleDaemonTests.configuration(at: "03:00")
            .replacingOccurrences(of: #""node": "house","#, with: #""node": "house", "mqtt": { "host": "127.0.0.1", "port": \#(broker.port) },"#)
        let daemon = try DaemonHarness(configuration: configuration)
        try await daemon.start()

        let entity = try object(await observer.waitFor("homeassistant/switch/house/schedule_porch-on/config"))
        #expect(entity["command_topic"] == .string("\(Self.base)/schedules/porch-on/set"))
        #expect(entity["state_topic"] == .string("\(Self.base)/schedules/porch-on"))
        #expect(entity["entity_category"] == .string("config"))
        let first = try object(await observer.waitFor("\(Self.base)/schedules/porch-on"))
        #expect(first["paused"] == .bool(false) && first["last"] == .null, "\(first)")
        guard case .string(let next)? = first["next"] else { Issue.record("no next run: \(first)"); return }
        #expect(next.hasSuffix(" UTC"))

        // Switched off in Home Assistant: paused, as `switchboard schedule pause` does.
        observer.clear()
        observer.publish("\(Self.base)/schedules/porch-on/set", "OFF")
        #expect(await observer.waitFor("\(Self.base)/schedules/porch-on") { (try? object($0)["paused"]) == .bool(true) } != nil)
        #expect(await daemon.cli(["status"]).stdout.contains("schedule porch-on: 03:00: on porch; paused; last none yet"))

        // Locked: refused and answered, still paused.
        #expect(await daemon.cli(["lock"]).status == 0)
        observer.clear()
        observer.publish("\(Self.base)/schedules/porch-on/set", "ON")
        let refused = try object(await observer.waitFor("\(Self.base)/outcomes"))
        #expect(refused["event_type"] == .string("refused") && refused["control"] == .string("porch-on"), "\(refused)")
        #expect(await daemon.cli(["status"]).stdout.contains("schedule porch-on: 03:00: on porch; paused;"))

        #expect(await daemon.cli(["unlock"]).status == 0)
        observer.clear()
        observer.publish("\(Self.base)/schedules/porch-on/set", "ON")
        #expect(await observer.waitFor("\(Self.base)/schedules/porch-on") { (try? object($0)["paused"]) == .bool(false) } != nil)
        #expect(await daemon.cli(["status"]).stdout.contains("schedule porch-on: 03:00: on porch; next "))
        #expect(await daemon.signal(SIGTERM) == 0)
    }
}
