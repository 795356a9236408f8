import ControlKit
import Foundation
import SwitchboardMQTT
import SwitchboardTesting
import Testing

/// Swift controls with a push handler: the handler is told its controls' tokens, and another
/// system's publish to a token's push address reloads exactly that control, as an APNs push does
/// on iOS. Both ways a daemon runs Swift controls: a bundle embedded in the daemon, and a control
/// extension whose handler runs in its own process.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct PushHandlerTests {
    static let base = "switchboard/garden"

    static func valueText(_ message: MQTTMessage) -> String? {
        (try? JSONDecoder().decode(ControlPresentation.self, from: Data(message.payload)))?.valueText
    }

    /// Places two of the pushed toggle (`Tests/Fixtures/PushedControl`), changes the state behind
    /// them (the file `$SWITCHBOARD_TEST_PUSHED`) and pushes the first one's token only; then
    /// removes the second. Their handler writes the tokens it is told beside the file.
    func checkPushes(program: String, extensions: String = "") async throws {
        let kind = "test.pushed", title = "Pushed"
        let broker = try await MosquittoBroker()
        let daemon = try DaemonHarness(configuration: #"""
            { "node": "garden", "mqtt": { "host": "127.0.0.1", "port": \#(broker.port), "discovery": false },
              "placements": [ { "id": "front", "control": "\#(kind)" }, { "id": "back", "control": "\#(kind)" } ]\#(extensions) }
            """#, program: program)
        let state = daemon.directory + "/state-behind", tokens = state + ".tokens"
        func told() -> String { (try? String(contentsOfFile: tokens, encoding: .utf8)) ?? "nothing" }
        try "off".write(toFile: state, atomically: true, encoding: .utf8)
        try await daemon.start(environment: ["SWITCHBOARD_TEST_PUSHED": state])
        #expect(await daemon.waitUntil { told() == "front\nback\n" }, "\(told())")
        let presentations = try await MQTTObserver(port: broker.port, filter: Self.base + "/controls/+")
        #expect(await presentations.waitFor(Self.base + "/controls/front") { Self.valueText($0) == "Off" } != nil)
        #expect(await daemon.cli(["status"]).stdout.contains("control front \(title) Off\ncontrol back \(title) Off\n"))

        // The other system turns it on and pushes the front placement's token only.
        try "on".write(toFile: state, atomically: true, encoding: .utf8)
        #expect(await broker.publish(["-t", Self.base + "/push/front", "-m", #"{"aps":{"content-changed":true}}"#]).status == 0)
        #expect(await presentations.waitFor(Self.base + "/controls/front") { Self.valueText($0) == "Running" } != nil, "the pushed control reloaded")
        let status = await daemon.cli(["status"]).stdout
        #expect(status.contains("control front \(title) Running\ncontrol back \(title) Off\n"), "only that control: \(status)")

        // A placement removed: the handler is told the tokens left; the old token reloads nothing.
        #expect(await daemon.cli(["remove", "back"]).status == 0)
        #expect(await daemon.waitUntil { told() == "front\n" }, "\(told())")
        #expect(await broker.publish(["-t", Self.base + "/push/back", "-m", ""]).status == 0)
        #expect(await daemon.waitUntil { daemon.log.contains(#"no placed control has the push token "back""#) }, "\(daemon.log)")
        #expect(await daemon.signal(SIGTERM) == 0)
    }

    @Test func aBundleEmbeddedInTheDaemon() async throws {
        try await checkPushes(program: "push-daemon")
    }

    @Test func aControlExtensionWhoseHandlerRunsInItsOwnProcess() async throws {
        let extensions = #", "extensions": [ { "id": "faulty", "executable": "\#(BuiltProducts.path(of: "faulty-extension"))" } ]"#
        try await checkPushes(program: "switchboardd", extensions: extensions)
    }
}
