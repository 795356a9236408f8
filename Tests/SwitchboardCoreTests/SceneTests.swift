import Foundation
import SwitchboardTesting
import Testing

/// Scenes on the sample: a button that sets several devices at once, from the CLI, over MQTT and
/// held on the Action button, and a partial failure that says device by device what happened.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct SceneTests {
    static let base = "switchboard/garage-pi"

    /// The sample with an "All Lights Off" scene placed in Control Center and on the Action button.
    func configuration(port: Int) -> String {
        DaemonEndToEndTests.sample
            .replacingOccurrences(of: #""port": 1883"#, with: #""port": \#(port)"#)
            .replacingOccurrences(of: #"  "placements": ["#, with: #"""
                  "controls2": null,
                  "placements": [
                    { "id": "all-off", "control": "all-lights-off", "space": "controlCenter" },
            """#)
            .replacingOccurrences(of: #"  "controls2": null,"# + "\n", with: "")
            .replacingOccurrences(of: #"{ "id": "action", "control": "porch-light", "space": "actionButton" }"#, with: #"{ "id": "action", "control": "all-lights-off", "space": "actionButton" }"#)
            .replacingOccurrences(of: #"  "controls": ["#, with: #"""
                  "controls": [
                    { "kind": "all-lights-off", "template": "button", "title": "All Lights Off", "symbol": "lightbulb.slash",
                      "scene": { "porch": false, "kitchen": false, "fan": false } },
            """#)
    }

    @Test func aSceneSetsEveryDeviceAndIsHeldOnTheActionButton() async throws {
        let broker = try await MosquittoBroker()
        let bulb = try await StandInDevice(port: broker.port, stateTopic: "zigbee2mqtt/kitchen_light")
        let observer = try await MQTTObserver(port: broker.port, filter: "switchboard/#")
        let daemon = try DaemonHarness(configuration: configuration(port: broker.port))
        try await daemon.start()
        #expect(await observer.waitFor("\(Self.base)/status") { $0.text == "online" } != nil)
        #expect(await daemon.cli(["on", "porch"]).status == 0)
        #expect(await daemon.cli(["on", "fan"]).status == 0)

        observer.publish("\(Self.base)/controls/all-off/set", #"{"value": "PRESS", "transaction": "s1"}"#)
        #expect(await observer.waitFor("\(Self.base)/controls/all-off/result", timeout: .seconds(15))?.text?.contains(#""outcome":"performed""#) == true)
        let status = await daemon.cli(["status"]).stdout
        #expect(status.contains("output porch: off") && status.contains("output fan: off"), "\(status)")
        #expect(bulb.commands.value == [#"{"state":"OFF"}"#])

        #expect(await daemon.cli(["on", "porch"]).status == 0)
        let held = await daemon.cli(["button", "button", "--hold", "1s"])
        #expect(held.stdout.hasPrefix("hint: Hold for All Lights Off\nperformed: "), "\(held.stdout)")
        #expect(held.status == 0)
        #expect(await daemon.cli(["status"]).stdout.contains("output porch: off"))
    }

    @Test func aPartialFailureSaysWhichDeviceDidWhat() async throws {
        let daemon = try DaemonHarness(configuration: configuration(port: try TestPort.free()))
        try await daemon.start()
        #expect(await daemon.cli(["on", "porch"]).status == 0)
        #expect(await daemon.cli(["on", "fan"]).status == 0)
        let pressed = await daemon.cli(["press", "all-off"])
        #expect(pressed.status == 1)
        // In devices.json's order of the devices: porch, fan, kitchen.
        #expect(pressed.stderr.hasPrefix(#"switchboard: control "all-off" failed: 1 of 3 devices failed: Porch Light: off; Attic Fan: off; Kitchen Light: Kitchen Light lives in another system and Switchboard is not connected to the MQTT broker since "#), "\(pressed.stderr)")
        #expect(pressed.stderr.hasSuffix("; nothing was sent\n"), "\(pressed.stderr)")
        let status = await daemon.cli(["status"]).stdout
        #expect(status.contains("output porch: off") && status.contains("output fan: off"), "the others were set: \(status)")
    }
}
