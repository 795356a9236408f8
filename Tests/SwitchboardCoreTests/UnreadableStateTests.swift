import Foundation
import SwitchboardCore
import SwitchboardTesting
import Testing

/// A state file a power cut left empty or torn, or one that is not Switchboard's, does not stop the
/// daemon: it is moved aside, the daemon starts from the journal and devices.json and says so.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct UnreadableStateTests {
    @Test(arguments: ["", "{\"version\":1,\"outputs\":{\"porch\":tr", "\u{0}\u{7f}garbage"])
    func anUnreadableStateFileIsMovedAsideAndTheDaemonStarts(_ contents: String) async throws {
        let daemon = try DaemonHarness(configuration: DaemonEndToEndTests.sample)
        try await daemon.start()
        // The snapshot is written at a lock change; the porch light after it is in the journal.
        #expect(await daemon.cli(["lock"]).status == 0)
        #expect(await daemon.cli(["unlock"]).status == 0)
        #expect(await daemon.cli(["on", "porch"]).status == 0)
        _ = await daemon.signal(SIGKILL)
        let state = daemon.stateDirectory + "/state.json"
        try Data(contents.utf8).write(to: URL(fileURLWithPath: state))

        try await daemon.start()
        #expect(daemon.log.contains("state: state file \(state) \(contents.isEmpty ? "is empty" : "is not a Switchboard state file")"))
        #expect(daemon.log.contains("started with outputs from the journal"))
        let aside = try FileManager.default.contentsOfDirectory(atPath: daemon.stateDirectory).filter { $0.hasPrefix("state.json.unreadable-") }
        #expect(aside.count == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: daemon.stateDirectory + "/" + aside[0])) == Data(contents.utf8), "kept as it was")
        let status = await daemon.cli(["status"]).stdout
        #expect(status.hasPrefix("node garage-pi, locked\nwarning: state: state file \(state) "), "\(status)")
        #expect(status.contains("output porch: on"), "the journal still knew the porch light was on")
        #expect(try await DaemonEndToEndTests().outputs(daemon)["porch"] == true)
        // The new state is readable again.
        #expect(await daemon.cli(["unlock"]).status == 0)
        #expect(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: state))) is [String: Any])
    }

    /// The start from an unreadable state is a problem on the node's MQTT diagnostics, which Home
    /// Assistant shows as its "Problems" binary sensor (on, with the problem as an attribute).
    @Test func anUnreadableStateIsAProblemOnTheMQTTDiagnostics() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTObserver(port: broker.port, filter: "switchboard/garage-pi/diagnostics")
        let daemon = try DaemonHarness(configuration: MQTTEndToEndTests().configuration(port: broker.port))
        let state = daemon.stateDirectory + "/state.json"
        try FileManager.default.createDirectory(atPath: daemon.stateDirectory, withIntermediateDirectories: true)
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: state))
        try await daemon.start()
        let diagnostics = try #require(await observer.waitFor("switchboard/garage-pi/diagnostics"))
        let payload = try #require(try JSONSerialization.jsonObject(with: Data(diagnostics.payload)) as? [String: Any])
        let problems = try #require(payload["problems"] as? [String])
        #expect(problems.count == 1)
        #expect(problems.first?.hasPrefix("state: state file \(state) is not a Switchboard state file") == true, "\(problems)")
        #expect(problems.first?.hasSuffix("and the node locked (switchboard unlock)") == true, "\(problems)")
    }
}
