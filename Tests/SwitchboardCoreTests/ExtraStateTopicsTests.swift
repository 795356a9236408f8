import Foundation
import SwitchboardCore
import SwitchboardTesting
import Testing
@testable import SwitchboardConfiguration

/// A device of another system that says its state on more than one topic (a Tasmota plug: the
/// answer to a command on `stat/<topic>/POWER`, its periodic telemetry on `tele/<topic>/STATE`):
/// each is read with its own key, confirms a command and keeps the device fresh.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct ExtraStateTopicsTests {
    static let plug = #""stateTopic": "stat/plug1/POWER", "commandTopic": "cmnd/plug1/POWER""#

    func problems(_ mqtt: String) -> [String] {
        let file = #"{ "node": "plugs", "mqtt": { "port": 1883 }, "devices": [ { "id": "plug", "name": "Desk Plug", "type": "mqtt", "mqtt": { \#(mqtt) } } ] }"#
        do {
            _ = try ConfigurationLoader.load(data: Data(file.utf8))
            return []
        } catch let error as ConfigurationError {
            return error.problems.map(\.description)
        } catch {
            return ["\(error)"]
        }
    }

    @Test func eachTopicIsCheckedAndReadWithItsOwnKey() throws {
        let file = #"{ "node": "plugs", "mqtt": { "port": 1883 }, "devices": [ { "id": "plug", "name": "Desk Plug", "type": "mqtt", "mqtt": { \#(Self.plug), "extraStateTopics": [ { "topic": "tele/plug1/STATE", "valueKey": "POWER" }, { "topic": "stat/plug1/STATUS11" } ] } } ] }"#
        let mqtt = try #require(try ConfigurationLoader.load(data: Data(file.utf8)).device("plug")?.mqtt)
        #expect(mqtt.stateTopics.map(\.topic) == ["stat/plug1/POWER", "tele/plug1/STATE", "stat/plug1/STATUS11"])
        #expect(mqtt.valueKey(on: "tele/plug1/STATE") == "POWER" && mqtt.valueKey(on: "stat/plug1/POWER") == nil)
        #expect(StatePayload.value(Array(#"{"Time":"2026-11-26T16:00:00","POWER":"ON"}"#.utf8), settings: mqtt, valueKey: "POWER") == true)

        #expect(problems(Self.plug + #", "extraStateTopics": [ { "topic": "tele/+/STATE", "valueKey": "POWER" } ]"#)
                == [#"devices[0].mqtt.extraStateTopics[0].topic: "tele/+/STATE" must not contain wildcards"#])
        #expect(problems(Self.plug + #", "extraStateTopics": [ { "topic": "stat/plug1/POWER" } ]"#)
                == [#"devices[0].mqtt.extraStateTopics[0].topic: "stat/plug1/POWER" is already the device's stateTopic; give another topic on which it says its state"#])
        #expect(problems(Self.plug + #", "extraStateTopics": [ { "topic": "tele/plug1/STATE" }, { "topic": "tele/plug1/STATE" } ]"#)
                == [#"devices[0].mqtt.extraStateTopics[1].topic: "tele/plug1/STATE" is given twice; give each topic once"#])
        #expect(problems(Self.plug + #", "extraStateTopics": [ { "valueKey": "POWER", "key": 1 } ]"#).count == 2, "a missing topic and an unknown key")
        #expect(problems(Self.plug + #", "extraStateTopics": [ { "topic": "switchboard/plugs/x" } ]"#)
                == [#"devices[0].mqtt.extraStateTopics[0].topic: "switchboard/plugs/x" is under this node's own topics (switchboard/plugs/#), which would loop back into the node; give the other system's topic"#])
    }

    @Test func telemetryUpdatesConfirmsAndKeepsThePlugFresh() async throws {
        let broker = try await MosquittoBroker()
        let plug = try await MQTTObserver(port: broker.port, filter: "cmnd/plug1/#")
        let daemon = try DaemonHarness(configuration: #"""
            {
              "node": "plugs",
              "mqtt": { "host": "127.0.0.1", "port": \#(broker.port), "discovery": false },
              "devices": [ { "id": "plug", "name": "Desk Plug", "type": "mqtt", "mqtt": { \#(Self.plug), "staleAfter": "3s",
                  "extraStateTopics": [ { "topic": "tele/plug1/STATE", "valueKey": "POWER" } ] } } ],
              "controls": [ { "kind": "plug", "template": "toggle", "device": "plug" } ],
              "placements": [ { "id": "plug", "control": "plug" } ]
            }
            """#)
        try await daemon.start()
        #expect(await daemon.waitUntil { daemon.log.contains("mqtt: connected") })
        func status(_ line: String) async -> Bool {
            await daemon.waitUntil { await daemon.cli(["status"]).stdout.contains("control plug " + line + "\n") }
        }
        plug.publish("tele/plug1/STATE", #"{"Time":"2026-11-26T16:00:00","POWER":"ON","Wifi":{"RSSI":80}}"#)
        #expect(await status("Desk Plug On"), "its telemetry says its state")
        plug.publish("stat/plug1/POWER", "OFF")
        #expect(await status("Desk Plug Off"), "and so does its state topic")

        // The command is confirmed by the telemetry alone.
        let answering = Task {
            _ = await plug.waitFor("cmnd/plug1/POWER") { $0.text == "ON" }
            plug.publish("tele/plug1/STATE", #"{"POWER":"ON"}"#)
        }
        let on = await daemon.cli(["on", "plug"])
        await answering.value
        #expect(on.status == 0, "\(on)")

        // Telemetry every half second keeps it fresh past its staleAfter; without it, it goes
        // stale. The telemetry comes from a thread of its own, as a plug's would, so that a busy
        // cooperative pool (other suites beside this one) cannot leave a silence of its own making.
        let telemetry = Probe(false)
        Thread.detachNewThread {
            for _ in 0..<12 {
                plug.publish("tele/plug1/STATE", #"{"POWER":"ON"}"#)
                usleep(500_000)
            }
            telemetry.update { $0 = true }
        }
        try await Task.sleep(for: .seconds(4))
        let fresh = await daemon.cli(["status"]).stdout
        #expect(!fresh.contains("stale"), "\(fresh)")
        #expect(await telemetry.wait(timeout: .seconds(20), until: { $0 }) == true)
        #expect(await status("Desk Plug On (stale): silent for 3s"))
        // A telemetry message without its key is named, and changes nothing.
        plug.publish("tele/plug1/STATE", #"{"Wifi":{"RSSI":80}}"#)
        #expect(await daemon.waitUntil { daemon.log.contains(#"not a state of plug (expected ON/OFF in "POWER")"#) }, "\(daemon.log)")
    }
}
