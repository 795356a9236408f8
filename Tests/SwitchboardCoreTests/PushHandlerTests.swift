import ControlKit
import Foundation
import SwitchboardMQTT
import SwitchboardTesting
import Testing

/// A Swift control with a push handler, in a daemon embedding its bundle: the handler is told its
/// controls' tokens, and another system's publish to a token's push address reloads exactly that
/// control, as an APNs push does on iOS.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct PushHandlerTests {
    static let base = "switchboard/garden"

    func configuration(port: Int) -> String {
        #"""
        { "node": "garden", "mqtt": { "host": "127.0.0.1", "port": \#(port), "discovery": false },
          "placements": [
            { "id": "hose-front", "control": "com.example.GardenHose" },
            { "id": "hose-back", "control": "com.example.GardenHose" }
          ] }
        """#
    }

    static func valueText(_ message: MQTTMessage) -> String? {
        (try? JSONDecoder().decode(ControlPresentation.self, from: Data(message.payload)))?.valueText
    }

    func tokens(_ path: String) -> String? { try? String(contentsOfFile: path + ".tokens", encoding: .utf8) }

    @Test func aPushToATokenReloadsExactlyThatControlAndTheHandlerKnowsTheTokens() async throws {
        let broker = try MosquittoBroker()
        let daemon = try DaemonHarness(configuration: configuration(port: broker.port), program: "push-daemon")
        let hose = daemon.directory + "/hose"
        try "off".write(toFile: hose, atomically: true, encoding: .utf8)
        try await daemon.start(environment: ["SWITCHBOARD_TEST_HOSE": hose])
        #expect(await daemon.waitUntil { tokens(hose) == "hose-front\nhose-back\n" }, "\(tokens(hose) ?? "no tokens")")
        let presentations = try await MQTTObserver(port: broker.port, filter: Self.base + "/controls/+")
        #expect(await presentations.waitFor(Self.base + "/controls/hose-front") { Self.valueText($0) == "Off" } != nil)
        #expect(await daemon.cli(["status"]).stdout.contains("control hose-front Garden Hose Off\ncontrol hose-back Garden Hose Off\n"))

        // The other system turns the hose on and pushes the front placement's token only.
        try "on".write(toFile: hose, atomically: true, encoding: .utf8)
        #expect(await broker.publish(["-t", Self.base + "/push/hose-front", "-m", #"{"aps":{"content-changed":true}}"#]).status == 0)
        let front = await presentations.waitFor(Self.base + "/controls/hose-front") { Self.valueText($0) == "Running" }
        #expect(front != nil, "the pushed control reloaded")
        let status = await daemon.cli(["status"]).stdout
        #expect(status.contains("control hose-front Garden Hose Running\ncontrol hose-back Garden Hose Off\n"), "only that control: \(status)")

        // A placement removed: the handler is told the tokens left; the old token reloads nothing.
        #expect(await daemon.cli(["remove", "hose-back"]).status == 0)
        #expect(await daemon.waitUntil { tokens(hose) == "hose-front\n" }, "\(tokens(hose) ?? "no tokens")")
        #expect(await broker.publish(["-t", Self.base + "/push/hose-back", "-m", ""]).status == 0)
        #expect(await daemon.waitUntil { daemon.log.contains(#"no placed control has the push token "hose-back""#) }, "\(daemon.log)")
        #expect(await daemon.signal(SIGTERM) == 0)
    }
}
