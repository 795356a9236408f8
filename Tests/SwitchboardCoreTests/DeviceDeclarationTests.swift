import ControlKit
import Foundation
import SwitchboardCore
import SwitchboardGPIO
import SwitchboardTesting
import Testing
@testable import SwitchboardConfiguration
import SwitchboardSupport

/// Devices declared in Swift join devices.json's: devices.json's controls and Swift code use them
/// alike, on the header chip unless devices.json names another.
@Suite struct DeviceDeclarationTests {
    static let file = """
    {
      "node": "swift-devices",
      "controls": [ { "kind": "porch-light", "template": "toggle", "device": "porch" } ],
      "placements": [ { "id": "porch", "control": "porch-light", "space": "controlCenter" } ]
    }
    """
    static let declared: [DeviceDeclaration] = [
        .relay("porch", name: "Porch Light", line: 17),
        .pulse("garage", name: "Garage Door", line: 22, activeLow: true, pulse: .milliseconds(300)),
        .input("door", name: "Door Contact", line: 6, activeLow: true, bias: .pullUp),
    ]
    static let kitchen: [DeviceDeclaration] = [
        .mqtt("kitchen", name: "Kitchen Light", stateTopic: "zigbee2mqtt/kitchen_light", valueKey: "state",
              commandTopic: "zigbee2mqtt/kitchen_light/set", onPayload: #"{"state":"ON"}"#, offPayload: #"{"state":"OFF"}"#),
    ]

    @Test func declaredDevicesJoinTheFileOnTheHeaderChip() throws {
        #expect(throws: ConfigurationError.self) { try ConfigurationLoader.load(data: Data(Self.file.utf8)) }
        let file = Self.file.replacingOccurrences(of: #""controls""#, with: #""mqtt": { "host": "127.0.0.1" }, "controls""#)
        let configuration = try ConfigurationLoader.load(data: Data(file.utf8), swiftDevices: Self.declared + Self.kitchen)
        #expect(configuration.devices.map(\.id) == ["porch", "garage", "door", "kitchen"])
        #expect(configuration.chips.map { "\($0.id)=\($0.chip)" } == ["header=header"])
        let garage = try #require(configuration.device("garage"))
        #expect(garage.kind == .pulse && garage.pulse == .milliseconds(300) && garage.gpio?.activeLow == true && garage.gpio?.line == .offset(22))
        let kitchen = try #require(configuration.device("kitchen"))
        #expect(kitchen.mqtt?.onPayload == #"{"state":"ON"}"# && kitchen.mqtt?.offValue == "OFF" && kitchen.mqtt?.timeout == .seconds(5))
        #expect(configuration.device("porch")?.restore == .last, "devices.json's default restore")
    }

    @Test func anIdInBothOrAChipTheFileLacksIsAProblem() {
        let file = Self.file.replacingOccurrences(of: #""controls""#, with: #""chips": [ { "id": "header", "chip": "header" } ], "devices": [ { "id": "porch", "name": "Porch", "type": "relay", "gpio": { "chip": "header", "line": 4 } } ], "controls""#)
        let declared: [DeviceDeclaration] = [.relay("porch", name: "Porch Light", line: 17), .relay("shed", name: "Shed", line: 3, chip: "expander")]
        do {
            _ = try ConfigurationLoader.load(data: Data(file.utf8), swiftDevices: declared)
            Issue.record("loaded")
        } catch let error as ConfigurationError {
            #expect(error.problems.map(\.description) == [
                #"devices: "porch" is declared in Swift and in devices.json; keep one of them"#,
                #"devices: "shed", declared in Swift, is on chip "expander", which devices.json's chips lack; add it there, or use the chip "header""#,
            ])
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func devicesJSONControlsAndSwiftCodeDriveADeclaredRelay() async throws {
        let configuration = try ConfigurationLoader.load(data: Data(Self.file.utf8), swiftDevices: Self.declared)
        let chip = SimulatedGPIOChip(lineCount: 54)
        let runtime = try await NodeRuntime(configuration: configuration, chips: ["header": chip], persisted: PersistedState(), stateFile: nil, log: Log())
        defer { runtime.hub.shutdown() }
        _ = try await runtime.center.perform("porch", .setValue(true))
        #expect(try chip.physicalLevel(.offset(17)) == true)

        let devices = DeviceCenter()
        devices.connect(NodeDeviceService(caller: "a test", allowed: nil) { runtime })
        try await Relay("porch", center: devices).set(false)
        #expect(try chip.physicalLevel(.offset(17)) == false)
        #expect(try await Relay("porch", center: devices).isOn() == false)
        #expect(try await devices.devices().map(\.id) == ["porch", "garage", "door"])
    }
}
