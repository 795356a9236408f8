import Foundation
import SwitchboardCore
import SwitchboardGPIO
import SwitchboardTesting
import Testing

/// A Swift control in a control extension, hosted by `switchboardd`, moving a real line of a
/// gpio-sim chip: placed from the CLI, performed from the CLI, and held on the Action button.
/// The extension never opens the chip: its `Relay("porch").set(_:)` goes through the daemon.
@Suite(.enabled(if: HILStage.canRun, HILStage.reason), .serialized, .timeLimit(.minutes(5)))
struct KernelExtensionTests {
    static func configuration(chip: String, user: String? = nil) -> String {
        let runAs = user.map { #", "user": "\#($0)""# } ?? ""
        return #"""
        {
          "node": "hil-ext",
          "chips": [ { "id": "main", "chip": "\#(chip)" } ],
          "devices": [
            { "id": "porch", "name": "Porch Light", "type": "relay", "gpio": { "chip": "main", "line": 1 }, "restore": "off" },
            { "id": "garage", "name": "Garage Door", "type": "relay", "gpio": { "chip": "main", "line": 2 }, "restore": "off" }
          ],
          "placements": [ { "id": "action", "control": "test.porch", "space": "actionButton" } ],
          "actionButtons": [
            {
              "id": "button", "placement": "action", "holdTime": "700ms",
              "gpio": { "chip": "main", "line": 5, "bias": "pullUp", "activeLow": true, "debounce": "20ms" },
              "announce": ["log"]
            }
          ],
          "extensions": [ { "id": "faulty", "executable": "\#(BuiltProducts.path(of: "faulty-extension"))", "devices": ["porch"], "timeout": "10s"\#(runAs) } ]
        }
        """#
    }

    @Test func aSwiftIntentInAnExtensionMovesTheLine() async throws {
        let chip = try KernelSimulatedChip(label: "sb-extension", lineCount: 8)
        let daemon = try DaemonHarness(configuration: Self.configuration(chip: "sb-extension"), simulatedGPIO: false)
        try await daemon.start(timeout: .seconds(60))
        #expect(daemon.log.contains("extension faulty: running (pid "), "\(daemon.log)")
        #expect(try chip.level(1) == false)

        let added = await daemon.cli(["add", "test.porch", "--id", "swift-porch"])
        #expect(added.status == 0, "\(added)")
        let on = await daemon.cli(["on", "swift-porch"])
        #expect(on.status == 0 && on.stdout == "swift-porch Porch On\n", "\(on)")
        #expect(try chip.level(1) == true, "the extension's intent moved the gpio-sim line")

        // Held on the Action button: the hint names what holding does, then the line goes off.
        try chip.setPull(5, high: false)
        #expect(await daemon.waitUntil(timeout: .seconds(30)) { daemon.log.contains("button button: performed: Off") }, "\(daemon.log)")
        try chip.setPull(5, high: true)
        #expect(daemon.log.contains("button button: hint: Hold to Turn Off Porch"))
        #expect(try chip.level(1) == false)

        // The device it may not use stays where it was.
        #expect(await daemon.cli(["add", "test.forbidden", "--id", "forbidden"]).status == 0)
        let refused = await daemon.cli(["press", "forbidden"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains(#"extension "faulty" may not use device "garage"; devices.json allows it porch"#), "\(refused)")
        #expect(try chip.level(2) == false)
        #expect(await daemon.signal(SIGTERM) == 0)
    }

    @Test func anExtensionRunsAsItsUserAndStillMovesTheLineThroughTheDaemon() async throws {
        let chip = try KernelSimulatedChip(label: "sb-ext-user", lineCount: 8)
        let daemon = try DaemonHarness(configuration: Self.configuration(chip: "sb-ext-user", user: "nobody"), simulatedGPIO: false)
        try await daemon.start(timeout: .seconds(60))
        // The extension starts beside the daemon, not before it is ready: wait for it.
        #expect(await daemon.waitUntil(timeout: .seconds(30)) { daemon.log.contains("extension faulty: running (pid ") }, "\(daemon.log)")
        let pid = daemon.log.components(separatedBy: "extension faulty: running (pid ").dropFirst().first.flatMap { Int32($0.prefix { $0.isNumber }) }
        let status = pid.flatMap { try? String(contentsOfFile: "/proc/\($0)/status", encoding: .utf8) } ?? ""
        let uid = status.split(separator: "\n").first { $0.hasPrefix("Uid:") }?.split(separator: "\t").dropFirst().first.map(String.init)
        #expect(uid == String(getpwnam("nobody").pointee.pw_uid), "\(daemon.log)\n\(status)")
        // nobody may not open the chip: the line moves because the daemon moves it.
        #expect(await daemon.cli(["add", "test.porch", "--id", "swift-porch"]).status == 0)
        let on = await daemon.cli(["on", "swift-porch"])
        #expect(on.status == 0, "\(on)")
        #expect(try chip.level(1) == true)
        #expect(await daemon.signal(SIGTERM) == 0)
    }
}
