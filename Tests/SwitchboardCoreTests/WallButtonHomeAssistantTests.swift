import Foundation
import SwitchboardCore
import SwitchboardTesting
import Testing

/// A wall push-button of `buttons[]` for Home Assistant, read back from a real broker: an `event`
/// entity and three device triggers announced, and each press published with the event type the
/// entity and the triggers read.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct WallButtonHomeAssistantTests {
    static let base = "switchboard/hall"

    func configuration(port: Int) -> String {
        ButtonServiceTests.configuration.replacingOccurrences(
            of: #""node": "hall","#, with: #""node": "hall", "mqtt": { "host": "127.0.0.1", "port": \#(port), "discovery": true },"#)
    }

    @Test func aPushButtonIsAnEventEntityAndThreeDeviceTriggers() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTObserver(port: broker.port, filter: "\(Self.base)/buttons/#")
        let daemon = try DaemonHarness(configuration: configuration(port: broker.port))
        try await daemon.start()
        #expect(await daemon.waitUntil { daemon.log.contains("mqtt: connected") })
        try await Task.sleep(for: .milliseconds(300))
        let retained = try await MQTTObserver.retained(port: broker.port, filter: "homeassistant/#")
        let device = #""device":{"identifiers":["switchboard_hall"],"manufacturer":"Switchboard","model":"switchboardd","name":"hall","sw_version":"\#(Switchboard.version)"}"#
        let origin = #""origin":{"name":"Switchboard","sw_version":"\#(Switchboard.version)"}"#
        #expect(retained["homeassistant/event/hall/button_hall/config"] == #"{"availability_topic":"switchboard/hall/status","default_entity_id":"event.hall_button_hall",\#(device),"device_class":"button","event_types":["single","double","long"],"name":"hall button",\#(origin),"payload_available":"online","payload_not_available":"offline","state_topic":"switchboard/hall/buttons/hall","unique_id":"switchboard_hall_button_hall"}"#,
                "\(retained["homeassistant/event/hall/button_hall/config"] ?? "none")")
        for (click, type) in [("short", "button_short_press"), ("double", "button_double_press"), ("long", "button_long_press")] {
            #expect(retained["homeassistant/device_automation/hall/button_hall_\(click)/config"]
                    == #"{"automation_type":"trigger",\#(device),\#(origin),"payload":"\#(click)","subtype":"hall","topic":"switchboard/hall/buttons/hall","type":"\#(type)","value_template":"{{ value_json.click }}"}"#,
                    "\(retained["homeassistant/device_automation/hall/button_hall_\(click)/config"] ?? "none")")
        }

        // Each press: the click for the triggers, the event type for the entity, what it did.
        for (press, expected) in [(["--hold", "100ms"], #"{"click":"short","event_type":"single","performed":"porch On"}"#),
                                  (["--double"], #"{"click":"double","event_type":"double","performed":"fan On"}"#),
                                  (["--hold", "1s"], #"{"click":"long","event_type":"long"}"#)] {
            observer.clear()
            #expect(await daemon.cli(["button", "hall"] + press).status == 0)
            #expect(await observer.waitFor("\(Self.base)/buttons/hall")?.text == expected, "\(observer.messages.map { $0.text ?? "" })")
        }

        // Nothing bound to a double press and no window given: the button tells none apart, so
        // Home Assistant is offered none.
        try daemon.writeConfiguration(configuration(port: broker.port).replacingOccurrences(of: #""double": "fan", "#, with: "")
            .replacingOccurrences(of: #", "doubleWindow": "300ms""#, with: ""))
        _ = await daemon.signal(SIGHUP)
        #expect(await daemon.waitUntil { daemon.log.contains("configuration 2 serving") }, "\(daemon.log)")
        try await Task.sleep(for: .milliseconds(300))
        let single = try await MQTTObserver.retained(port: broker.port, filter: "homeassistant/#")
        #expect(single["homeassistant/device_automation/hall/button_hall_double/config"] == nil)
        #expect(single["homeassistant/device_automation/hall/button_hall_short/config"] != nil)
        #expect(single["homeassistant/event/hall/button_hall/config"]?.contains(#""event_types":["single","long"]"#) == true,
                "\(single["homeassistant/event/hall/button_hall/config"] ?? "none")")

        // Without the button, a reload takes its entity and triggers away.
        let full = configuration(port: broker.port)
        let buttons = try #require(full.range(of: ",\n  \"buttons\": ["))
        try daemon.writeConfiguration(full[..<buttons.lowerBound] + "\n}\n")
        _ = await daemon.signal(SIGHUP)
        #expect(await daemon.waitUntil { daemon.log.contains("configuration 3 serving") }, "\(daemon.log)")
        try await Task.sleep(for: .milliseconds(300))
        let after = try await MQTTObserver.retained(port: broker.port, filter: "homeassistant/#")
        #expect(after.keys.filter { $0.contains("button_hall") }.isEmpty, "\(after.keys.sorted())")
    }
}
