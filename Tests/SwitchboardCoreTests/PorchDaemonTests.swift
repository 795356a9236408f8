import ControlKit
import Foundation
import SwitchboardCore
import SwitchboardTesting
import Testing

/// README's ControlKit example, built as `porch-daemon` (Examples/PorchDaemon: its bundle
/// embedded with `SwitchboardDaemon.main(bundle:)`), run on a devices.json and driven by the real
/// `switchboard` CLI: the Swift control switches the board's relay, not a model of it.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct PorchDaemonTests {
    /// A relay "porch" on a simulated chip, placed twice: as README's Swift control, and as a
    /// devices.json control bound to the same device (with a ten-minute auto-off).
    static let configuration = """
    {
      "node": "porch-pi",
      "chips": [{ "id": "main", "chip": "header", "simulatedLines": 54 }],
      "devices": [
        { "id": "porch", "name": "Porch Light", "type": "relay", "gpio": { "chip": "main", "line": 17 }, "restore": "last" },
        { "id": "fan", "name": "Attic Fan", "type": "relay", "gpio": { "chip": "main", "line": 27 }, "restore": "off" }
      ],
      "controls": [
        { "kind": "porch-relay", "template": "toggle", "title": "Porch Relay", "device": "porch", "autoOff": "10m" }
      ],
      "placements": [
        { "id": "porch-placement", "control": "com.example.PorchLight", "space": "controlCenter", "size": "medium" },
        { "id": "porch-relay", "control": "porch-relay", "space": "controlCenter", "size": "medium" }
      ]
    }
    """

    func center(_ daemon: DaemonHarness) async throws -> [String: ControlPresentation] {
        Dictionary(uniqueKeysWithValues: try await DaemonEndToEndTests().center(daemon).map { ($0.id ?? "", $0) })
    }

    /// Starts the daemon and waits until its Swift control has read the relay. (Its first render,
    /// as the configuration starts, comes before that configuration serves device calls, so
    /// the control shows stale until its first retry, a second later.)
    func start(_ daemon: DaemonHarness) async throws {
        try await daemon.start()
        #expect(await daemon.waitUntil { (try? await center(daemon)["porch-placement"]?.stale) == false }, "\(daemon.log)")
    }

    @Test func readmeExampleSwitchesTheRelayAndTheDaemonKeepsIt() async throws {
        let daemon = try DaemonHarness(configuration: Self.configuration, program: "porch-daemon")
        try await start(daemon)
        let before = try await center(daemon)
        #expect(before["porch-placement"] == ControlPresentation(
            id: "porch-placement", kind: "com.example.PorchLight", template: .toggle, space: .controlCenter, size: .medium,
            displayName: "Porch Light", title: "Porch Light", value: false, valueText: "Off",
            symbol: "lightbulb", tint: nil, status: nil, actionHint: "Hold to Turn On Porch Light"
        ))
        #expect(before["porch-relay"]?.value == false)

        let on = await daemon.cli(["on", "porch-placement"])
        #expect(on.status == 0, "\(on.stderr)")
        #expect(on.stdout == "porch-placement Porch Light On\n")
        // The hub changed: the output is on, and the devices.json control bound to the same
        // device reloaded to On, its auto-off running.
        #expect(try await DaemonEndToEndTests().outputs(daemon) == ["porch": true, "fan": false])
        #expect(await daemon.waitUntil { (try? await center(daemon)["porch-relay"]?.value) == true })
        let after = try await center(daemon)
        #expect(after["porch-placement"]?.value == true)
        #expect(after["porch-placement"]?.symbol == "lightbulb.fill" && after["porch-placement"]?.tint == .yellow)
        #expect(after["porch-relay"]?.valueText == "On")
        #expect(after["porch-relay"]?.status?.hasPrefix("Off in ") == true, "\(String(describing: after["porch-relay"]))")

        // The journal has it: after kill -9 the relay comes back on (restore: last).
        #expect(await daemon.signal(SIGKILL) == 128 + SIGKILL)
        try await start(daemon)
        #expect(try await DaemonEndToEndTests().outputs(daemon) == ["porch": true, "fan": false])
        let restarted = try await center(daemon)
        #expect(restarted["porch-placement"]?.value == true)
        #expect(restarted["porch-relay"]?.value == true)

        // The other way: the devices.json control switches the device, and the Swift control,
        // whose provider reads it, follows.
        #expect(await daemon.cli(["off", "porch-relay"]).status == 0)
        #expect(await daemon.waitUntil { (try? await center(daemon)["porch-placement"]?.value) == false })
        #expect(try await DaemonEndToEndTests().outputs(daemon) == ["porch": false, "fan": false])
        #expect(await daemon.signal(SIGTERM) == 0)
        #expect(daemon.log.contains("info: switchboardd stopped"))
    }

    @Test func embeddingProgramTakesSwitchboarddsOptions() async {
        let help = await ChildProcess.run(BuiltProducts.path(of: "porch-daemon"), ["--help"])
        #expect(help.status == 0)
        #expect(help.stdout == DaemonCommandLine(program: "porch-daemon", swiftKinds: ["com.example.PorchLight"]).usage + "\n")
        #expect(help.stdout.contains("\n  com.example.PorchLight\n"))
        let version = await ChildProcess.run(BuiltProducts.path(of: "porch-daemon"), ["--version"])
        #expect(version.status == 0)
        #expect(version.stdout == Switchboard.versionLine(program: "porch-daemon") + "\n")
        let wrong = await ChildProcess.run(BuiltProducts.path(of: "porch-daemon"), ["--config"])
        #expect(wrong.status == 2)
        #expect(wrong.stderr.hasPrefix("porch-daemon: --config needs a value\nusage: porch-daemon "), "\(wrong.stderr)")
    }

    @Test func switchboarddWithoutTheBundleRefusesItsKind() async throws {
        let daemon = try DaemonHarness(configuration: Self.configuration)
        await #expect(throws: HarnessError.self) { try await daemon.start(timeout: .seconds(10)) }
        #expect(daemon.log.contains("com.example.PorchLight"), "\(daemon.log)")
        #expect(daemon.log.contains("switchboardd did not start; nothing was changed"))
    }
}
