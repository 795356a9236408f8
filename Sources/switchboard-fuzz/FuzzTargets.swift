#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ControlKitCore
import SwitchboardCore
import SwitchboardConfiguration

/// What the fuzzer feeds: the parsers that read input from outside the process. The first byte
/// chooses the parser, the rest is its input. Every parser must return (a value or a typed
/// rejection) for any bytes: a crash, a trap or a sanitizer report is a bug.
enum FuzzTargets {
    /// A Zigbee2MQTT-style device (JSON with a `state` key) and a Tasmota-style one (bare words),
    /// each with its system's availability topic.
    static let devices: [MQTTDeviceSettings] = {
        let configuration = try! ConfigurationLoader.load(data: Data(#"""
        {
          "node": "fuzz", "mqtt": {},
          "devices": [
            { "id": "plug", "name": "Plug", "type": "mqtt", "mqtt": {
                "stateTopic": "zigbee2mqtt/plug", "valueKey": "state", "onValue": "ON", "offValue": "OFF",
                "commandTopic": "zigbee2mqtt/plug/set", "onPayload": "{\"state\":\"ON\"}", "offPayload": "{\"state\":\"OFF\"}" } },
            { "id": "socket", "name": "Socket", "type": "mqtt", "mqtt": {
                "stateTopic": "stat/socket/POWER", "onValue": "ON", "offValue": "OFF",
                "commandTopic": "cmnd/socket/POWER", "onPayload": "ON", "offPayload": "OFF" } }
          ]
        }
        """#.utf8))
        return configuration.devices.compactMap(\.mqtt)
    }()

    /// Runs one input.
    static func run(_ input: [UInt8]) {
        guard let selector = input.first else { return }
        let bytes = Array(input.dropFirst())
        switch selector % 11 {
        case 0:
            // devices.json: every problem is a ConfigurationError; a valid file loads.
            do {
                _ = try ConfigurationLoader.load(data: Data(bytes))
            } catch is ConfigurationError {
            } catch {
                fatalError("devices.json rejected with an untyped error: \(error)")
            }
        case 1:
            _ = CommandPayload.parse(bytes)
        case 2:
            _ = StatePayload.value(bytes, settings: devices[0])
            // Its availability topic (Zigbee2MQTT's, from the topics), read as the bridge reads it.
            _ = devices[0].availability?.available(bytes)
        case 3:
            _ = StatePayload.value(bytes, settings: devices[1])
            _ = devices[1].availability?.available(bytes)
        case 5:
            HomeKitFuzzTargets.tlv8(bytes)
        case 6:
            HomeKitFuzzTargets.pairSetup(bytes)
        case 7:
            HomeKitFuzzTargets.pairVerify(bytes)
        case 8:
            HomeKitFuzzTargets.httpRequests(bytes)
        case 9:
            HomeKitFuzzTargets.frames(bytes)
        case 10:
            HomeKitFuzzTargets.json(bytes)
        default:
            // A line on the local socket or a control extension's stdin.
            _ = ControlLineProtocol.decodeCommand(Substring(String(decoding: bytes, as: UTF8.self)))
        }
    }
}
