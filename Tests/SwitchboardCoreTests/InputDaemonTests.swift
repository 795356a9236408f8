import ControlKit
import Foundation
import SwitchboardCore
import SwitchboardTesting
import Testing

/// The real `switchboard` CLI against a real `switchboardd` with an input device on simulated
/// GPIO: the toggle showing it reads the line, refuses to switch it, and reloads keep it.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct InputDaemonTests {
    func contact(_ daemon: DaemonHarness) async throws -> ControlPresentation? {
        let result = await daemon.cli(["center", "--json"])
        try #require(result.status == 0, "\(result.stderr)")
        return try JSONDecoder().decode([ControlPresentation].self, from: Data(result.stdout.utf8)).first { $0.id == "contact" }
    }

    @Test func cliShowsAnInputRefusesToSwitchItAndReloadsRequestItAgain() async throws {
        let daemon = try DaemonHarness(configuration: InputDeviceTests.configuration)
        try await daemon.start()
        #expect(try await contact(daemon)?.value == false)
        #expect(try await contact(daemon)?.valueText == "Closed")
        let status = await daemon.cli(["status"]).stdout
        #expect(status.contains("input contact: inactive\ninput doorbell: inactive\n"), "\(status)")

        for command in ["on", "toggle"] {
            let refused = await daemon.cli([command, "contact"])
            #expect(refused.status == 1)
            #expect(refused.stderr == "switchboard: control \"contact\" failed: Garage Contact is an input: it can be read, not switched\n")
        }

        // SIGHUP with the same file: the inputs' lines are requested again, not found busy.
        await daemon.signal(SIGHUP)
        #expect(await daemon.waitUntil { daemon.log.contains("configuration 2 serving") }, "\(daemon.log)")
        #expect(daemon.log.contains("reloaded: node garage-pi"))
        #expect(!daemon.log.contains("could not start"), "\(daemon.log)")
        #expect(try await contact(daemon)?.valueText == "Closed")

        // The contact's bias becomes a pull-down: nothing drives the simulated line, so it reads low: open.
        try daemon.writeConfiguration(InputDeviceTests.configuration.replacingOccurrences(of: #""bias": "pullUp""#, with: #""bias": "pullDown""#))
        await daemon.signal(SIGHUP)
        #expect(await daemon.waitUntil { daemon.log.contains("configuration 3 serving") }, "\(daemon.log)")
        #expect(try await contact(daemon)?.value == true)
        #expect(try await contact(daemon)?.valueText == "Open")
        #expect(await daemon.cli(["status"]).stdout.contains("input contact: active\n"))
        #expect(await daemon.signal(SIGTERM) == 0)
        #expect(daemon.log.contains("info: switchboardd stopped"))
    }
}

/// An input device through the doors its users use: opened with `switchboard input` on the
/// simulated chip, seen by the control showing it, on `<base>/inputs/<id>`, and announced to Home
/// Assistant as a `binary_sensor` with its device class.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct InputOverMQTTTests {
    static let base = "switchboard/garage-pi"

    static func configuration(port: Int) -> String {
        InputDeviceTests.configuration
            .replacingOccurrences(of: #""node": "garage-pi","#, with: #""node": "garage-pi", "mqtt": { "host": "127.0.0.1", "port": \#(port) },"#)
            .replacingOccurrences(of: #""activeLow": true, "debounce": "20ms" } }"#, with: #""activeLow": true, "debounce": "20ms" }, "deviceClass": "garage_door" }"#)
    }

    @Test func anOpenedContactIsOnItsTopicAndABinarySensorInHomeAssistant() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTObserver(port: broker.port, filter: "#")
        let daemon = try DaemonHarness(configuration: Self.configuration(port: broker.port))
        try await daemon.start()
        #expect(await observer.waitFor("\(Self.base)/inputs/contact")?.text == "OFF")
        #expect(await observer.waitFor("\(Self.base)/inputs/doorbell")?.text == "OFF")
        #expect(await observer.waitFor("homeassistant/binary_sensor/garage-pi/input_contact/config")?.text ==
            #"{"availability_topic":"switchboard/garage-pi/status","default_entity_id":"binary_sensor.garage-pi_contact","device":{"identifiers":["switchboard_garage-pi"],"manufacturer":"Switchboard","model":"switchboardd","name":"garage-pi","sw_version":"\#(Switchboard.version)"},"device_class":"garage_door","name":"Garage Contact","origin":{"name":"Switchboard","sw_version":"\#(Switchboard.version)"},"payload_available":"online","payload_not_available":"offline","payload_off":"OFF","payload_on":"ON","state_topic":"switchboard/garage-pi/inputs/contact","unique_id":"switchboard_garage-pi_input_contact"}"#)
        let doorbell = await observer.waitFor("homeassistant/binary_sensor/garage-pi/input_doorbell/config")?.text ?? ""
        #expect(!doorbell.contains("device_class"), "no device class unless devices.json gives one: \(doorbell)")
        #expect(await daemon.waitUntil { daemon.log.contains("mqtt: connected") })
        try await Task.sleep(for: .milliseconds(300))
        #expect(!observer.messages.contains { $0.topic.hasPrefix("homeassistant/switch/garage-pi/contact") && !$0.payload.isEmpty },
                "the toggle that only shows the contact is no switch: the binary sensor is it")

        let opened = await daemon.cli(["input", "contact", "active"])
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(await observer.waitFor("\(Self.base)/inputs/contact") { $0.text == "ON" } != nil)
        #expect(await observer.waitFor("\(Self.base)/controls/contact") { $0.presentation?.valueText == "Open" } != nil, "the control showing it reloads")
        #expect(await daemon.cli(["status"]).stdout.contains("input contact: active\n"))
        #expect(await daemon.cli(["input", "contact", "inactive"]).status == 0)
        #expect(await observer.waitFor("\(Self.base)/inputs/contact") { $0.text == "OFF" } != nil)

        let unknown = await daemon.cli(["input", "porch", "active"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "switchboard: no input device \"porch\"; inputs: contact, doorbell\n", "\(unknown.stderr)")
    }
}
