import Foundation
import SwitchboardCore
import SwitchboardGPIO
import SwitchboardTesting
import Testing

/// `switchboardd` end to end on a gpio-sim chip: the CLI and MQTT (a broker on 127.0.0.1 in the
/// VM) drive the lines, the Action button is pressed through the line's pull, and a kill -9 and
/// restart restores the outputs.
@Suite(.enabled(if: HILStage.canRun, HILStage.reason), .serialized, .timeLimit(.minutes(5)))
struct KernelDaemonTests {
    static let base = "switchboard/hil-pi"

    /// A node on the gpio-sim chip labelled `chip`: porch on line 1 (restore last), the fan on the
    /// line named "fan" (restore off), the status LED on line 3, the Action button on line 5.
    static func configuration(chip: String, mqttPort: Int?) -> String {
        let mqtt = mqttPort.map { #""mqtt": { "host": "127.0.0.1", "port": \#($0), "keepalive": 60 },"# } ?? ""
        let announce = mqttPort == nil ? #""log", { "led": "status-led" }"# : #""log", "mqtt", { "led": "status-led" }"#
        return #"""
        {
          "node": "hil-pi", \#(mqtt)
          "chips": [ { "id": "main", "chip": "\#(chip)" } ],
          "devices": [
            { "id": "porch", "name": "Porch Light", "type": "relay", "gpio": { "chip": "main", "line": 1 }, "restore": "last" },
            { "id": "fan", "name": "Attic Fan", "type": "relay", "gpio": { "chip": "main", "line": "fan" }, "restore": "off" },
            { "id": "status-led", "name": "Status LED", "type": "relay", "gpio": { "chip": "main", "line": 3 }, "restore": "off" }
          ],
          "controls": [
            { "kind": "porch-light", "template": "toggle", "title": "Porch Light", "device": "porch" },
            { "kind": "fan", "template": "toggle", "title": "Attic Fan", "device": "fan" }
          ],
          "placements": [
            { "id": "porch", "control": "porch-light", "space": "controlCenter" },
            { "id": "fan", "control": "fan", "space": "controlCenter" },
            { "id": "action", "control": "porch-light", "space": "actionButton" }
          ],
          "actionButtons": [
            {
              "id": "button", "placement": "action", "holdTime": "700ms",
              "gpio": { "chip": "main", "line": 5, "bias": "pullUp", "activeLow": true, "debounce": "20ms" },
              "announce": [\#(announce)]
            }
          ]
        }
        """#
    }

    func announcement(_ observer: MQTTObserver, _ phase: ActionButtonAnnouncement.Phase) async -> ActionButtonAnnouncement? {
        let message = await observer.waitFor("\(Self.base)/action-buttons/button", timeout: .seconds(30)) {
            (try? JSONDecoder().decode(ActionButtonAnnouncement.self, from: Data($0.payload)))?.phase == phase
        }
        return message.flatMap { try? JSONDecoder().decode(ActionButtonAnnouncement.self, from: Data($0.payload)) }
    }

    @Test func cliMQTTAndTheActionButtonDriveTheLines() async throws {
        let chip = try KernelSimulatedChip(label: "sb-daemon", lineCount: 8, lineNames: [4: "fan"])
        let broker = try await MosquittoBroker()
        let observer = try await MQTTObserver(port: broker.port, filter: "switchboard/#")
        let daemon = try DaemonHarness(configuration: Self.configuration(chip: "sb-daemon", mqttPort: broker.port), simulatedGPIO: false)
        try await daemon.start(timeout: .seconds(60))
        #expect(daemon.log.contains("GPIO through \(LibgpiodChip.libraryVersion)"), "the daemon says which libgpiod it uses")
        #expect(try chip.level(1) == false)
        #expect(try chip.level(5) == true, "the button's pull-up bias reached the line")

        let on = await daemon.cli(["on", "porch"])
        #expect(on.status == 0 && on.stdout == "porch Porch Light On\n", "\(on)")
        #expect(try chip.level(1) == true)

        observer.publish("\(Self.base)/controls/fan/set", #"{"value": true, "transaction": 7}"#)
        #expect(await observer.waitFor("\(Self.base)/controls/fan/result", timeout: .seconds(30))?.text == #"{"outcome":"performed","transaction":7,"value":true,"valueText":"On"}"#)
        #expect(try chip.level(4) == true)

        // A press shorter than the hold time: the hint, then cancelled, and nothing switches.
        // Released before the announcements are read: how long the hint takes to arrive over MQTT
        // in an emulated VM must not make the press longer than the hold time.
        try chip.setPull(5, high: false)
        try await Task.sleep(for: .milliseconds(200))
        try chip.setPull(5, high: true)
        #expect(await announcement(observer, .hint) == ActionButtonAnnouncement(phase: .hint, text: "Hold to Turn Off Porch Light", control: "action"))
        #expect(await announcement(observer, .cancelled)?.text == "Cancelled")
        #expect(try chip.level(1) == true)

        // Held past 700 ms: performed, the porch light goes off.
        observer.clear()
        try chip.setPull(5, high: false)
        #expect(await announcement(observer, .hint)?.text == "Hold to Turn Off Porch Light")
        #expect(await announcement(observer, .performed) == ActionButtonAnnouncement(phase: .performed, text: "Off", control: "action"))
        #expect(try chip.level(1) == false)
        try chip.setPull(5, high: true)
        #expect(daemon.log.contains("Hold to Turn Off Porch Light"))
        #expect(await daemon.signal(SIGTERM) == 0)
    }

    @Test func killAndRestartRestoresTheOutputs() async throws {
        let chip = try KernelSimulatedChip(label: "sb-restart", lineCount: 8, lineNames: [4: "fan"])
        let daemon = try DaemonHarness(configuration: Self.configuration(chip: "sb-restart", mqttPort: nil), simulatedGPIO: false)
        try await daemon.start(timeout: .seconds(60))
        #expect(await daemon.cli(["on", "porch"]).status == 0)
        #expect(await daemon.cli(["on", "fan"]).status == 0)
        #expect(try chip.level(1) == true && chip.level(4) == true)

        await daemon.signal(SIGKILL)
        // The kernel released the dead daemon's lines: gpio-sim drops them to their pull.
        #expect(try chip.level(1) == false && chip.level(4) == false)
        try await daemon.start(timeout: .seconds(60))
        #expect(try chip.level(1) == true, "porch restores its last value")
        #expect(try chip.level(4) == false, "the fan's restore policy is off")
        let status = await daemon.cli(["status"])
        #expect(status.stdout.contains("output porch: on") && status.stdout.contains("output fan: off"), "\(status.stdout)")
    }
}
