import ControlKit
import Foundation
import SwitchboardCore
import SwitchboardMQTT
import SwitchboardTesting
import Testing

/// switchboardd against a real mosquitto on a free loopback port: the topic contract end to end.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct MQTTEndToEndTests {
    static let base = "switchboard/garage-pi"

    func configuration(port: Int, timeout: String = "1s") -> String {
        DaemonEndToEndTests.sample
            .replacingOccurrences(of: #""port": 1883"#, with: #""port": \#(port)"#)
            .replacingOccurrences(of: #""timeout": "5s""#, with: #""timeout": "\#(timeout)""#)
    }


    @Test func commandRoundTripWithTransactionResult() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTObserver(port: broker.port, filter: "switchboard/#")
        let daemon = try DaemonHarness(configuration: configuration(port: broker.port))
        try await daemon.start()
        let online = await observer.waitFor("\(Self.base)/status") { $0.text == "online" }
        #expect(online?.retain == false || online?.retain == true)
        #expect(await observer.waitFor("\(Self.base)/controls/porch")?.presentation?.value == false)

        observer.publish("\(Self.base)/controls/porch/set", #"{"value": true, "transaction": 42}"#)
        let result = await observer.waitFor("\(Self.base)/controls/porch/result")
        #expect(result?.text == #"{"outcome":"performed","transaction":42,"value":true,"valueText":"On"}"#)
        let on = (await observer.waitFor("\(Self.base)/controls/porch") { $0.text?.contains(#""value":true"#) == true })?.presentation
        #expect(on?.valueText == "On" && on?.actionHint == "Hold to Turn Off Porch Light")
        #expect(await daemon.cli(["status"]).stdout.contains("output porch: on"))

        observer.publish("\(Self.base)/controls/garage/set", #"{"value": "PRESS", "transaction": "g1"}"#)
        #expect(await observer.waitFor("\(Self.base)/controls/garage/result")?.text == #"{"outcome":"performed","transaction":"g1","valueText":null}"#)
        observer.publish("\(Self.base)/lock/set", "LOCKED")
        #expect(await observer.waitFor("\(Self.base)/lock") { $0.text == "LOCKED" } != nil)
        observer.publish("\(Self.base)/controls/garage/set", #"{"value": "PRESS", "transaction": "g2"}"#)
        let refused = await observer.waitFor("\(Self.base)/controls/garage/result") { $0.text?.contains("g2") == true }
        #expect(refused?.text?.hasPrefix(#"{"code":"authenticationRequired","error":"control \"garage\" requires authentication"#) == true)
        #expect(refused?.text?.contains(#""outcome":"refused""#) == true)
        #expect(await daemon.cli(["status"]).stdout.hasPrefix("node garage-pi, locked"))
    }

    @Test func lastWillSaysOfflineWhenTheDaemonIsKilled() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTObserver(port: broker.port, filter: "\(Self.base)/status")
        let daemon = try DaemonHarness(configuration: configuration(port: broker.port))
        try await daemon.start()
        #expect(await observer.waitFor("\(Self.base)/status") { $0.text == "online" } != nil)
        observer.clear()
        await daemon.signal(SIGKILL)
        #expect(await observer.waitFor("\(Self.base)/status", timeout: .seconds(30)) { $0.text == "offline" } != nil)
    }

    @Test func brokerRestartIsFollowedByReconnectResubscribeAndRepublish() async throws {
        let broker = try await MosquittoBroker()
        let daemon = try DaemonHarness(configuration: configuration(port: broker.port))
        try await daemon.start()
        #expect(await daemon.cli(["on", "porch"]).status == 0)
        broker.kill()
        try await broker.start()
        let observer = try await MQTTObserver(port: broker.port, filter: "switchboard/#")
        #expect(await observer.waitFor("\(Self.base)/status") { $0.text == "online" } != nil)
        #expect(await observer.waitFor("\(Self.base)/controls/porch")?.presentation?.value == true)
        observer.publish("\(Self.base)/controls/porch/set", "OFF")
        #expect((await observer.waitFor("\(Self.base)/controls/porch") { $0.text?.contains(#""value":false"#) == true })?.presentation?.valueText == "Off")
        #expect(daemon.log.contains("mqtt: disconnected"))
    }

    @Test func outsideStateReloadsBoundControlsAndCommandsWaitForConfirmation() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTObserver(port: broker.port, filter: "#")
        let daemon = try DaemonHarness(configuration: configuration(port: broker.port, timeout: "2s"))
        try await daemon.start()
        #expect(await observer.waitFor("\(Self.base)/controls/kitchen")?.presentation?.stale == true)

        observer.publish("zigbee2mqtt/kitchen_light", #"{"state":"ON","brightness":254}"#)
        let pushed = (await observer.waitFor("\(Self.base)/controls/kitchen") { $0.text?.contains(#""value":true"#) == true })?.presentation
        #expect(pushed?.stale == false && pushed?.title == "Kitchen Light")

        // Nobody answers on the state topic: the command fails after the device's timeout.
        let unanswered = await daemon.cli(["off", "kitchen"])
        #expect(unanswered.status == 1)
        #expect(unanswered.stderr.contains("Kitchen Light did not confirm off on zigbee2mqtt/kitchen_light within 2s"))
        #expect(await observer.waitFor("zigbee2mqtt/kitchen_light/set")?.text == #"{"state":"OFF"}"#)

        // A Zigbee2MQTT stand-in confirms each command.
        let zigbee = try await MQTTObserver(port: broker.port, filter: "zigbee2mqtt/kitchen_light/set")
        // Its subscription is in place once it hears its own probe.
        zigbee.publish("zigbee2mqtt/kitchen_light/set", "probe")
        #expect(await zigbee.waitFor("zigbee2mqtt/kitchen_light/set") { $0.text == "probe" } != nil)
        zigbee.clear()
        let responder = Task {
            var answered = 0
            while !Task.isCancelled {
                let commands = zigbee.messages
                for command in commands.dropFirst(answered) {
                    let state = command.text?.contains("ON") == true ? "ON" : "OFF"
                    zigbee.publish("zigbee2mqtt/kitchen_light", #"{"state":"\#(state)"}"#)
                }
                answered = commands.count
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        defer { responder.cancel() }
        let confirmed = await daemon.cli(["off", "kitchen"])
        #expect(confirmed.status == 0)
        #expect(confirmed.stdout == "kitchen Kitchen Light Off\n")
    }

    @Test func retainedCommandIsNotActedOnAtStartup() async throws {
        let broker = try await MosquittoBroker()
        #expect(await broker.publish(["-r", "-t", "\(Self.base)/controls/porch/set", "-m", "ON"]).status == 0)
        let daemon = try DaemonHarness(configuration: configuration(port: broker.port))
        try await daemon.start()
        let observer = try await MQTTObserver(port: broker.port, filter: "\(Self.base)/controls/porch")
        #expect(await observer.waitFor("\(Self.base)/controls/porch")?.presentation?.value == false)
        #expect(await daemon.waitUntil { daemon.log.contains("a retained command: Switchboard never acts on retained commands; clear it with mosquitto_pub -r -n -t \(Self.base)/controls/porch/set") })
        #expect(await daemon.cli(["status"]).stdout.contains("output porch: off"))
    }

    /// Under MQTT 5 the node tells the broker the largest packet it takes (64 KiB), and the broker
    /// drops larger ones for it: a flood of 16 MiB messages never reaches its memory. Under 3.1.1
    /// it arrives, is not copied out of libmosquitto's buffer, and is refused as too large.
    @Test(arguments: ["5", "3.1.1"])
    func aPacketLargerThanTheNodeTakesNeverReachesItUnderMQTT5(protocol version: String) async throws {
        let broker = try await MosquittoBroker()
        let daemon = try DaemonHarness(configuration: configuration(port: broker.port)
            .replacingOccurrences(of: #""port": \#(broker.port),"#, with: #""port": \#(broker.port), "protocol": "\#(version)","#))
        try await daemon.start()
        let observer = try await MQTTObserver(port: broker.port, filter: "\(Self.base)/controls/porch")
        #expect(await observer.waitFor("\(Self.base)/controls/porch") != nil)
        observer.publish("\(Self.base)/controls/porch/set", String(repeating: "x", count: 100_000))
        observer.publish("\(Self.base)/controls/porch/set", "ON")
        #expect(await daemon.waitUntil { await daemon.cli(["status"]).stdout.contains("output porch: on") }, "\(daemon.log)")
        #expect(daemon.log.contains("porch/set: larger than 4096 bytes") == (version == "3.1.1"), "\(daemon.log)")
    }

    @Test func malformedPayloadsChangeNothingAndAreLoggedOncePerReason() async throws {
        let broker = try await MosquittoBroker()
        let daemon = try DaemonHarness(configuration: configuration(port: broker.port))
        try await daemon.start()
        let observer = try await MQTTObserver(port: broker.port, filter: "\(Self.base)/status")
        let corpus = [
            ("\(Self.base)/controls/porch/set", "BANANA"), ("\(Self.base)/controls/porch/set", #"{"value": 3}"#),
            ("\(Self.base)/controls/porch/set", #"{"valu": true"#), ("\(Self.base)/controls/porch/set", String(repeating: "x", count: 5000)),
            ("\(Self.base)/controls/porch/set", "BANANA"), ("\(Self.base)/controls/attic/set", "ON"),
            ("\(Self.base)/controls/garage/set", "ON"), ("\(Self.base)/lock/set", "OPEN SESAME"),
            ("\(Self.base)/controls/kitchen/configure", "attic"), ("zigbee2mqtt/kitchen_light", #"{"state": "PURPLE"}"#),
            ("zigbee2mqtt/kitchen_light", "not json"),
        ]
        for (topic, payload) in corpus { observer.publish(topic, payload) }
        let invalidUTF8 = await broker.publish(["-t", "\(Self.base)/controls/porch/set", "-f", "/dev/null"])
        #expect(invalidUTF8.status == 0)
        // Six distinct (topic, reason) pairs: each logged once however often it recurs.
        #expect(await daemon.waitUntil { daemon.log.components(separatedBy: "mqtt: ignored a message").count - 1 >= 6 })
        #expect(await daemon.waitUntil { daemon.log.contains("mqtt: garage ON refused") })
        let log = daemon.log
        #expect(log.components(separatedBy: "mqtt: ignored a message").count - 1 == 6)
        #expect(log.contains("kitchen/configure: control kind \"light\": invalid configuration: device: \"attic\" is not one of porch, kitchen"))
        #expect(log.components(separatedBy: "switchboard/garage-pi/controls/porch/set: not ON, OFF, TOGGLE, PRESS or a JSON object with \"value\"").count - 1 == 1)
        #expect(log.contains("porch/set: JSON without a boolean \"value\""))
        #expect(log.contains("porch/set: larger than 4096 bytes"))
        #expect(log.contains("lock/set: not LOCKED or UNLOCKED"))
        #expect(log.contains("zigbee2mqtt/kitchen_light: not a state of kitchen (expected ON/OFF in \"state\")"))
        #expect(log.contains("mqtt: attic ON refused"))
        let status = await daemon.cli(["status"])
        #expect(status.status == 0)
        #expect(status.stdout.hasPrefix("node garage-pi, unlocked\noutput fan: off\noutput garage: off\noutput porch: off\n"))
    }

    @Test func discoveryPayloadsAreExact() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTObserver(port: broker.port, filter: "homeassistant/#")
        let daemon = try DaemonHarness(configuration: configuration(port: broker.port))
        try await daemon.start()
        let device = #""device":{"identifiers":["switchboard_garage-pi"],"manufacturer":"Switchboard","model":"switchboardd","name":"Garage","sw_version":"0.1.0"}"#
        let origin = #""origin":{"name":"Switchboard","sw_version":"0.1.0"}"#
        let availability = #""availability_topic":"switchboard/garage-pi/status""#
        let available = #""payload_available":"online","payload_not_available":"offline""#
        let state = #""{{ 'None' if value_json.value is none or value_json.stale or value_json.redacted else ('ON' if value_json.value else 'OFF') }}""#
        func attributes(_ id: String) -> String {
            #""json_attributes_template":"{{ {'value_text': value_json.get('valueText'), 'status': value_json.get('status'), 'action_hint': value_json.get('actionHint'), 'stale': value_json.get('stale', false)} | tojson }}","json_attributes_topic":"switchboard/garage-pi/controls/\#(id)""#
        }
        // devices.json makes the porch placement a light.
        #expect(await observer.waitFor("homeassistant/light/garage-pi/porch/config")?.text ==
            #"{\#(availability),"command_topic":"switchboard/garage-pi/controls/porch/set","default_entity_id":"light.garage-pi_porch",\#(device),"icon":"mdi:lightbulb",\#(attributes("porch")),"name":"Porch Light",\#(origin),\#(available),"payload_off":"OFF","payload_on":"ON","state_topic":"switchboard/garage-pi/controls/porch","state_value_template":\#(state),"unique_id":"switchboard_garage-pi_porch_light"}"#)
        // And the fan placement a fan, on a device of its own in the attic.
        #expect(await observer.waitFor("homeassistant/fan/garage-pi/fan/config")?.text ==
            #"{\#(availability),"command_topic":"switchboard/garage-pi/controls/fan/set","default_entity_id":"fan.garage-pi_fan","device":{"identifiers":["switchboard_garage-pi_fan"],"manufacturer":"Switchboard","model":"placed control","name":"Attic Fan","suggested_area":"Attic","via_device":"switchboard_garage-pi"},"icon":"mdi:fan",\#(attributes("fan")),"name":null,\#(origin),\#(available),"payload_off":"OFF","payload_on":"ON","state_topic":"switchboard/garage-pi/controls/fan","state_value_template":\#(state),"unique_id":"switchboard_garage-pi_fan_fan"}"#)
        // The kitchen placement chooses between a relay and a Zigbee2MQTT light: it follows the
        // chosen one's health.
        #expect(await observer.waitFor("homeassistant/switch/garage-pi/kitchen/config")?.text ==
            #"{"availability":[{"payload_available":"online","payload_not_available":"offline","topic":"switchboard/garage-pi/status"},{"topic":"switchboard/garage-pi/controls/kitchen","value_template":"{{ 'offline' if value_json.stale else 'online' }}"}],"availability_mode":"all","command_topic":"switchboard/garage-pi/controls/kitchen/set","default_entity_id":"switch.garage-pi_kitchen",\#(device),"icon":"mdi:lightbulb",\#(attributes("kitchen")),"name":"Kitchen Light",\#(origin),"payload_off":"OFF","payload_on":"ON","state_off":"OFF","state_on":"ON","state_topic":"switchboard/garage-pi/controls/kitchen","unique_id":"switchboard_garage-pi_kitchen","value_template":\#(state)}"#)
        #expect(await observer.waitFor("homeassistant/button/garage-pi/garage/config")?.text ==
            #"{\#(availability),"command_topic":"switchboard/garage-pi/controls/garage/set","default_entity_id":"button.garage-pi_garage",\#(device),"icon":"mdi:garage",\#(attributes("garage")),"name":"Garage Door",\#(origin),\#(available),"payload_press":"PRESS","unique_id":"switchboard_garage-pi_garage"}"#)
        // The select offers the devices by name and sends their ids.
        #expect(await observer.waitFor("homeassistant/select/garage-pi/kitchen_device/config")?.text ==
            #"{\#(availability),"command_template":"{{ {\"Kitchen Light\":\"kitchen\",\"Porch Light\":\"porch\"}[value] }}","command_topic":"switchboard/garage-pi/controls/kitchen/configure","default_entity_id":"select.garage-pi_kitchen_device",\#(device),"entity_category":"config","icon":"mdi:form-select","name":"Light device","options":["Porch Light","Kitchen Light"],\#(origin),\#(available),"state_topic":"switchboard/garage-pi/controls/kitchen/configuration","unique_id":"switchboard_garage-pi_kitchen_device","value_template":"{{ {\"kitchen\":\"Kitchen Light\",\"porch\":\"Porch Light\"}.get(value, value) }}"}"#)
        // The node: its lock, its diagnostics and its commands' outcomes.
        #expect(await observer.waitFor("homeassistant/lock/garage-pi/lock/config")?.text ==
            #"{\#(availability),"command_topic":"switchboard/garage-pi/lock/set","default_entity_id":"lock.garage-pi_lock",\#(device),"name":"Controls",\#(origin),"payload_available":"online","payload_lock":"LOCK","payload_not_available":"offline","payload_unlock":"UNLOCK","state_locked":"LOCKED","state_topic":"switchboard/garage-pi/lock","state_unlocked":"UNLOCKED","unique_id":"switchboard_garage-pi_lock"}"#)
        #expect(await observer.waitFor("homeassistant/binary_sensor/garage-pi/connectivity/config")?.text ==
            #"{"default_entity_id":"binary_sensor.garage-pi_connectivity",\#(device),"device_class":"connectivity","entity_category":"diagnostic","name":"Broker connection",\#(origin),"payload_off":"offline","payload_on":"online","state_topic":"switchboard/garage-pi/status","unique_id":"switchboard_garage-pi_connectivity"}"#)
        #expect(await observer.waitFor("homeassistant/sensor/garage-pi/version/config")?.text ==
            #"{\#(availability),"default_entity_id":"sensor.garage-pi_version",\#(device),"entity_category":"diagnostic","icon":"mdi:information-outline","name":"Version",\#(origin),\#(available),"state_topic":"switchboard/garage-pi/diagnostics","unique_id":"switchboard_garage-pi_version","value_template":"{{ value_json.version }}"}"#)
        #expect(await observer.waitFor("homeassistant/sensor/garage-pi/rejected_messages/config")?.text ==
            #"{\#(availability),"default_entity_id":"sensor.garage-pi_rejected_messages",\#(device),"entity_category":"diagnostic","icon":"mdi:message-alert-outline","name":"Rejected messages",\#(origin),\#(available),"state_class":"total_increasing","state_topic":"switchboard/garage-pi/diagnostics","unique_id":"switchboard_garage-pi_rejected_messages","value_template":"{{ value_json.rejectedMessages }}"}"#)
        #expect(await observer.waitFor("homeassistant/binary_sensor/garage-pi/problems/config")?.text ==
            #"{\#(availability),"default_entity_id":"binary_sensor.garage-pi_problems",\#(device),"device_class":"problem","entity_category":"diagnostic","json_attributes_template":"{{ {'problems': value_json.problems} | tojson }}","json_attributes_topic":"switchboard/garage-pi/diagnostics","name":"Problems",\#(origin),\#(available),"state_topic":"switchboard/garage-pi/diagnostics","unique_id":"switchboard_garage-pi_problems","value_template":"{{ 'ON' if value_json.problems else 'OFF' }}"}"#)
        #expect(await observer.waitFor("homeassistant/event/garage-pi/commands/config")?.text ==
            #"{\#(availability),"default_entity_id":"event.garage-pi_commands",\#(device),"event_types":["performed","refused","failed","expired","superseded"],"icon":"mdi:gesture-tap-button","name":"Commands",\#(origin),\#(available),"state_topic":"switchboard/garage-pi/outcomes","unique_id":"switchboard_garage-pi_commands"}"#)

        // Home Assistant restarts: discovery is published again.
        observer.clear()
        observer.publish("homeassistant/status", "online")
        #expect(await observer.waitFor("homeassistant/light/garage-pi/porch/config") != nil)
        // Choosing the device from Home Assistant's select.
        observer.publish("switchboard/garage-pi/controls/kitchen/configure", "porch")
        #expect(await daemon.waitUntil { (try? JSONDecoder().decode([ControlPresentation].self, from: Data(await daemon.cli(["center", "--json"]).stdout.utf8)))?.first { $0.id == "kitchen" }?.title == "Porch Light" })
    }

    @Test func heldActionButtonPublishesTheHintThenPerformsAndSwitchesTheOutput() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTObserver(port: broker.port, filter: "#")
        let daemon = try DaemonHarness(configuration: configuration(port: broker.port))
        try await daemon.start()
        #expect(await observer.waitFor("\(Self.base)/status") { $0.text == "online" } != nil)
        #expect(await observer.waitFor("homeassistant/device_automation/garage-pi/button_hold/config")?.text ==
            #"{"automation_type":"trigger","device":{"identifiers":["switchboard_garage-pi"],"manufacturer":"Switchboard","model":"switchboardd","name":"Garage","sw_version":"0.1.0"},"origin":{"name":"Switchboard","sw_version":"0.1.0"},"payload":"performed","subtype":"button","topic":"switchboard/garage-pi/action-buttons/button","type":"button_long_press","value_template":"{{ value_json.phase }}"}"#)

        let held = await daemon.cli(["button", "button", "--hold", "1s"])
        #expect(held.status == 0)
        #expect(held.stdout == "hint: Hold to Turn On Porch Light\nperformed: On\n")
        let announcements = observer.messages.filter { $0.topic == "\(Self.base)/action-buttons/button" }.compactMap(\.text)
        #expect(announcements == [
            #"{"control":"action","phase":"hint","text":"Hold to Turn On Porch Light"}"#,
            #"{"control":"action","phase":"performed","text":"On"}"#,
        ])
        #expect(await daemon.cli(["status"]).stdout.contains("output porch: on"))

        let tapped = await daemon.cli(["button", "button", "--hold", "200ms"])
        #expect(tapped.stdout == "hint: Hold to Turn Off Porch Light\ncancelled: Cancelled\n")
        #expect(await daemon.cli(["status"]).stdout.contains("output porch: on"))
        #expect(await daemon.waitUntil { daemon.log.contains("info: button button: performed: On") }, "\(daemon.log)")
    }

    @Test func aRefusedHoldExitsNonZero() async throws {
        let file = DaemonEndToEndTests.sample.replacingOccurrences(
            of: #"{ "id": "action", "control": "porch-light", "space": "actionButton" }"#,
            with: #"{ "id": "action", "control": "garage-door", "space": "actionButton" }"#
        )
        let daemon = try DaemonHarness(configuration: file)
        try await daemon.start()
        #expect(await daemon.cli(["lock"]).status == 0)
        let refused = await daemon.cli(["button", "button", "--hold", "1s"])
        #expect(refused.stdout == "refused: Unlock Switchboard to use Garage Door\n")
        #expect(refused.status == 1)
        #expect(await daemon.cli(["unlock"]).status == 0)
        let tapped = await daemon.cli(["button", "button", "--hold", "200ms"])
        #expect(tapped.stdout == "hint: Hold for Garage Door\ncancelled: Cancelled\n")
        #expect(tapped.status == 0, "released early is a press done, not refused")
    }
}

@Suite(.timeLimit(.minutes(1)))
struct MQTTUnreachableBrokerTests {
    @Test func aMissingBrokerIsLoggedOnceNotAtEveryRetry() async throws {
        let port = try TestPort.free()
        let daemon = try DaemonHarness(configuration: DaemonEndToEndTests.sample.replacingOccurrences(of: #""port": 1883"#, with: #""port": \#(port)"#))
        try await daemon.start()
        // Retries after about 0.5, 1 and 2 s: three or more attempts fail within 4 s.
        try await Task.sleep(for: .seconds(4))
        #expect(daemon.log.components(separatedBy: "mqtt: disconnected").count - 1 == 1)
        #expect(await daemon.cli(["toggle", "porch"]).status == 0, "GPIO and the CLI work without the broker")
    }
}

/// A broker that requires a user name and password.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct MQTTCredentialsTests {
    func configuration(port: Int, passwordFile: String) -> String {
        DaemonEndToEndTests.sample.replacingOccurrences(
            of: #""port": 1883,"#,
            with: #""port": \#(port), "username": "garage-pi", "passwordFile": "\#(passwordFile)","#
        )
    }

    @Test func connectsWithThePasswordFromItsFile() async throws {
        let broker = try await MosquittoBroker(users: ["garage-pi": "s3cret", "watcher": "w"])
        let daemon = try DaemonHarness(configuration: "")
        try "s3cret\n".write(toFile: daemon.directory + "/mqtt-password", atomically: true, encoding: .utf8)
        chmod(daemon.directory + "/mqtt-password", 0o600)
        try daemon.writeConfiguration(configuration(port: broker.port, passwordFile: daemon.directory + "/mqtt-password"))
        try await daemon.start()
        #expect(await daemon.waitUntil { daemon.log.contains("mqtt: connected to 127.0.0.1:\(broker.port) as switchboard/garage-pi") })
        let sub = await DaemonHarness.run("/usr/bin/mosquitto_sub", ["-h", "127.0.0.1", "-p", String(broker.port), "-u", "watcher", "-P", "w", "-t", "switchboard/garage-pi/status", "-C", "1", "-W", "5"])
        #expect(sub.stdout == "online\n")
    }

    /// MQTT 5 (the default) lets the broker say that its ACL refused a QoS 1 publish: the node
    /// names each refused topic in its log, `status` and `health`, and says what to change.
    @Test func aPublishTheBrokersACLRefusesIsNamedInTheLogStatusAndHealth() async throws {
        let acl = NSTemporaryDirectory() + "switchboard-acl-" + UUID().uuidString.prefix(8)
        defer { try? FileManager.default.removeItem(atPath: acl) }
        // The node may use its own topics, not Home Assistant's discovery ones.
        try "user garage-pi\ntopic readwrite switchboard/garage-pi/#\ntopic read zigbee2mqtt/#\n".write(toFile: acl, atomically: true, encoding: .utf8)
        let broker = try await MosquittoBroker(users: ["garage-pi": "s3cret"], aclFile: acl)
        let daemon = try DaemonHarness(configuration: "")
        try "s3cret\n".write(toFile: daemon.directory + "/mqtt-password", atomically: true, encoding: .utf8)
        chmod(daemon.directory + "/mqtt-password", 0o600)
        try daemon.writeConfiguration(configuration(port: broker.port, passwordFile: daemon.directory + "/mqtt-password"))
        try await daemon.start()
        let porch = "homeassistant/light/garage-pi/porch/config"
        #expect(await daemon.waitUntil { daemon.log.contains("error: mqtt: the broker refused to let this node publish \(porch) (Not authorized); allow the user \"garage-pi\" to write it in the broker's ACL (see deploy/mosquitto/switchboard.acl)") }, "\(daemon.log)")
        #expect(!daemon.log.contains("publish switchboard/"), "its own topics are allowed")
        let status = await daemon.cli(["status"]).stdout
        #expect(status.contains("mqtt: the broker refused to let this node publish \(porch) (Not authorized): allow the user \"garage-pi\" to write it in the broker's ACL\n"), "\(status)")
        let refusedLines = status.split(separator: "\n").filter { $0.contains("the broker refused to let this node publish") }
        #expect(refusedLines.count == 8, "eight topics named, the rest counted: \(status)")
        #expect(status.contains("publishes in all since the node connected (8 topics named above)"), "\(status)")
        let health = await daemon.cli(["health"])
        #expect(health.status == 1)
        #expect(health.stdout.contains("mqtt: the broker refused to let this node publish \(porch) (Not authorized)"), "\(health.stdout)")
        #expect(daemon.log.components(separatedBy: "the broker refused to let this node publish").count - 1 == 8, "each topic logged once, eight at most")
    }

    @Test func wrongPasswordIsReportedWithWhatToCheck() async throws {
        let broker = try await MosquittoBroker(users: ["garage-pi": "s3cret"])
        let daemon = try DaemonHarness(configuration: "")
        try "guess\n".write(toFile: daemon.directory + "/mqtt-password", atomically: true, encoding: .utf8)
        chmod(daemon.directory + "/mqtt-password", 0o600)
        try daemon.writeConfiguration(configuration(port: broker.port, passwordFile: daemon.directory + "/mqtt-password"))
        try await daemon.start()
        #expect(await daemon.waitUntil { daemon.log.contains("refused the connection: Not authorized; check username and passwordFile in devices.json and the broker's ACL") }, "\(daemon.log)")
        #expect(await daemon.cli(["status"]).status == 0, "GPIO and the CLI keep working without the broker")
    }

    @Test func unreadablePasswordFileStopsTheStart() async throws {
        let broker = try await MosquittoBroker(users: ["garage-pi": "s3cret"])
        let daemon = try DaemonHarness(configuration: "")
        try daemon.writeConfiguration(configuration(port: broker.port, passwordFile: daemon.directory + "/missing"))
        await #expect(throws: HarnessError.self) { try await daemon.start(timeout: .seconds(5)) }
        #expect(daemon.log.contains("MQTT passwordFile: \(daemon.directory)/missing does not exist (No such file or directory); create it, owned by "), "\(daemon.log)")
    }
}

@Suite(.timeLimit(.minutes(1)))
struct MQTTTLSTests {
    @Test func connectsOverTLSCheckingTheBrokersCertificate() async throws {
        let broker = try await MosquittoBroker(tls: true)
        let daemon = try DaemonHarness(configuration: DaemonEndToEndTests.sample.replacingOccurrences(
            of: #""port": 1883,"#, with: #""port": \#(broker.port), "tls": { "caFile": "\#(broker.caFile)" },"#
        ))
        try await daemon.start()
        #expect(await daemon.waitUntil { daemon.log.contains("mqtt: connected to 127.0.0.1:\(broker.port) as switchboard/garage-pi") })
        let sub = await DaemonHarness.run("/usr/bin/mosquitto_sub", ["-h", "127.0.0.1", "-p", String(broker.port), "--cafile", broker.caFile, "-t", "switchboard/garage-pi/status", "-C", "1", "-W", "5"])
        #expect(sub.stdout == "online\n")
    }

    func daemon(_ broker: MosquittoBroker, caFile: String, certificate: (file: String, key: String)? = nil) throws -> DaemonHarness {
        let client = certificate.map { #", "certificateFile": "\#($0.file)", "keyFile": "\#($0.key)""# } ?? ""
        return try DaemonHarness(configuration: DaemonEndToEndTests.sample.replacingOccurrences(
            of: #""port": 1883,"#, with: #""port": \#(broker.port), "tls": { "caFile": "\#(caFile)"\#(client) },"#
        ))
    }

    /// A broker that requires client certificates (`require_certificate true`): the node logs in
    /// with mqtt.tls.certificateFile and keyFile; without them the handshake fails, and the log says
    /// what to check.
    @Test func aClientCertificateLogsTheNodeInWhereTheBrokerRequiresOne() async throws {
        let broker = try await MosquittoBroker(tls: true, clientCertificates: true)
        let withCertificate = try daemon(broker, caFile: broker.caFile, certificate: (broker.clientCertificateFile, broker.clientKeyFile))
        try await withCertificate.start()
        #expect(await withCertificate.waitUntil { withCertificate.log.contains("mqtt: connected to 127.0.0.1:\(broker.port) as switchboard/garage-pi") }, "\(withCertificate.log)")
        let published = await broker.publish(["--cafile", broker.caFile, "--cert", broker.clientCertificateFile, "--key", broker.clientKeyFile,
                                              "-q", "1", "-t", "switchboard/garage-pi/controls/porch/set", "-m", "ON"])
        #expect(published.status == 0, "\(published.stderr)")
        #expect(await withCertificate.waitUntil { await withCertificate.cli(["status"]).stdout.contains("output porch: on") })
        _ = await withCertificate.signal(SIGTERM)

        let without = try daemon(broker, caFile: broker.caFile)
        try await without.start()
        #expect(await without.waitUntil { without.log.contains("(require_certificate), that mqtt.tls.certificateFile and keyFile") }, "\(without.log)")
        #expect(!without.log.contains("mqtt: connected"))
    }

    @Test func aCommandOverTLSPerforms() async throws {
        let broker = try await MosquittoBroker(tls: true)
        let daemon = try daemon(broker, caFile: broker.caFile)
        try await daemon.start()
        #expect(await daemon.waitUntil { daemon.log.contains("mqtt: connected to 127.0.0.1:\(broker.port) as switchboard/garage-pi") })
        let published = await broker.publish(["--cafile", broker.caFile, "-q", "1", "-t", "switchboard/garage-pi/controls/porch/set", "-m", "ON"])
        #expect(published.status == 0, "\(published.stderr)")
        #expect(await daemon.waitUntil { await daemon.cli(["status"]).stdout.contains("output porch: on") })
    }

    /// deploy/mosquitto as shipped (its TLS listener, password file and ACL, only moved to free
    /// ports and a temporary folder): the node logs in over TLS and Home Assistant commands it.
    @Test func theShippedBrokerConfigurationServesTheNodeOverTLS() async throws {
        let deploy = RepositoryFiles.path("deploy/mosquitto")
        let broker = try await MosquittoBroker(shippedConfiguration: deploy + "/switchboard.conf", aclFile: deploy + "/switchboard.acl",
                                         users: ["garage-pi": "node-secret", "homeassistant": "ha-secret"])
        let tlsPort = try #require(broker.tlsPort)
        let daemon = try DaemonHarness(configuration: "")
        try "node-secret\n".write(toFile: daemon.directory + "/mqtt-password", atomically: true, encoding: .utf8)
        chmod(daemon.directory + "/mqtt-password", 0o600)
        try daemon.writeConfiguration(DaemonEndToEndTests.sample.replacingOccurrences(
            of: #""port": 1883,"#,
            with: #""port": \#(tlsPort), "username": "garage-pi", "passwordFile": "\#(daemon.directory)/mqtt-password", "tls": { "caFile": "\#(broker.caFile)" },"#
        ))
        try await daemon.start()
        #expect(await daemon.waitUntil { daemon.log.contains("mqtt: connected to 127.0.0.1:\(tlsPort) as switchboard/garage-pi") }, "\(daemon.log)")
        let published = await DaemonHarness.run("/usr/bin/mosquitto_pub", ["-h", "127.0.0.1", "-p", String(tlsPort), "--cafile", broker.caFile, "-u", "homeassistant", "-P", "ha-secret",
                                                                     "-q", "1", "-t", "switchboard/garage-pi/controls/porch/set", "-m", "ON"])
        #expect(published.status == 0, "\(published.stderr)")
        #expect(await daemon.waitUntil { await daemon.cli(["status"]).stdout.contains("output porch: on") })
        // No client may send a packet over 1 MiB (max_packet_size): the broker disconnects one
        // that does, and nothing of it reaches the node.
        let huge = daemon.directory + "/huge"
        try Data(repeating: UInt8(ascii: "x"), count: 2 << 20).write(to: URL(fileURLWithPath: huge))
        let oversized = await DaemonHarness.run("/usr/bin/mosquitto_pub", ["-h", "127.0.0.1", "-p", String(tlsPort), "--cafile", broker.caFile, "-u", "homeassistant", "-P", "ha-secret",
                                                                    "-q", "1", "-t", "switchboard/garage-pi/controls/porch/set", "-f", huge])
        #expect(oversized.status != 0, "the broker took a 2 MiB packet: \(oversized.stdout)")
        #expect(await daemon.cli(["off", "porch"]).status == 0)
        #expect(!daemon.log.contains("larger than 4096 bytes"), "\(daemon.log)")
        // The plain listener answers on loopback only, and only to users with a password.
        let anonymous = await DaemonHarness.run("/usr/bin/mosquitto_pub", ["-h", "127.0.0.1", "-p", String(broker.port), "-t", "switchboard/garage-pi/controls/porch/set", "-m", "OFF"])
        #expect(anonymous.status != 0)
    }

    @Test func aBrokerCertificateFromAnotherCAIsRefusedWithAnActionableError() async throws {
        let broker = try await MosquittoBroker(tls: true)
        let other = NSTemporaryDirectory() + "switchboard-other-ca-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: other) }
        let made = await DaemonHarness.run("/usr/bin/openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=Another CA",
                                                          "-keyout", other + "/ca.key", "-out", other + "/ca.crt"])
        #expect(made.status == 0, "\(made.stderr)")
        let daemon = try daemon(broker, caFile: other + "/ca.crt")
        try await daemon.start()
        // A TLS error when the handshake failed in the connect, EPROTO from a read when it went on
        // in the loop (seen with Debian 13's libmosquitto on a loaded machine): the same checklist.
        #expect(await daemon.waitUntil { daemon.log.contains(
            "the TLS handshake with the broker failed: check that mqtt.tls.caFile in devices.json "
                + "is the CA that signed the broker's certificate, that the certificate names mqtt.host, that mqtt.port is the broker's TLS listener (8883), "
                + "and, where the broker requires client certificates (require_certificate), that mqtt.tls.certificateFile and keyFile are a certificate and key that CA signed; "
                + "`openssl s_client -connect <host>:<port> -CAfile <caFile>` shows the reason); retrying in")
                || daemon.log.contains("Protocol error; the TLS handshake failed or the broker closed the TLS connection before accepting this node: check that mqtt.tls.caFile in devices.json "
                + "is the CA that signed the broker's certificate")
        }, "\(daemon.log)")
        #expect(daemon.log.contains("warning: mqtt: disconnected (MQTT mosquitto_"), "\(daemon.log)")
        #expect(!daemon.log.contains("mqtt: connected"))
        #expect(await daemon.cli(["status"]).status == 0, "GPIO and the CLI keep working without the broker")
    }
}
