import ControlKit
import Foundation
import SwitchboardCore
import SwitchboardGPIO
import SwitchboardSupport
import SwitchboardTesting
import Testing
@testable import SwitchboardConfiguration

/// The device center of the controls below: their own, so that no other test's device calls
/// (nor a daemon's) meet theirs.
let strayDevices = DeviceCenter()

/// A Swift control whose provider reads a device devices.json has and whose intent sets one it
/// has not: a typo in a bundle.
struct StrayLight: ControlWidget {
    nonisolated static let kind = "com.example.StrayLight"

    var body: some ControlWidgetConfiguration {
        StaticControlConfiguration(kind: Self.kind, provider: StrayProvider()) { isOn in
            ControlWidgetToggle("Stray Light", isOn: isOn, action: SetStrayLight()) { isOn in
                Image(systemName: isOn ? "lightbulb.fill" : "lightbulb")
            }
        }
    }
}

struct SetStrayLight: SetValueIntent {
    static let title: LocalizedStringResource = "Stray Light"
    @Parameter(title: "On") var value: Bool
    func perform() async throws -> some IntentResult {
        try await Relay("nope", center: strayDevices).set(value)
        return .result()
    }
}

struct StrayProvider: ControlValueProvider {
    let previewValue = false
    func currentValue() async throws -> Bool { try await Relay("porch", center: strayDevices).isOn() }
}

struct StrayBundle: WidgetBundle {
    var body: some Widget { StrayLight() }
}

/// Swift controls' device calls in the daemon's core (NodeDeviceService on a NodeRuntime): the
/// typed errors they get, word for word.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct SwiftControlDevicesTests {
    static let configuration = """
    {
      "node": "porch-pi",
      "chips": [{ "id": "main", "chip": "header", "simulatedLines": 54 }],
      "devices": [
        { "id": "porch", "name": "Porch Light", "type": "relay", "gpio": { "chip": "main", "line": 17 } },
        { "id": "garage", "name": "Garage Door", "type": "pulse", "gpio": { "chip": "main", "line": 22 } },
        { "id": "door", "name": "Door Contact", "type": "input", "gpio": { "chip": "main", "line": 5 } }
      ],
      "controls": [],
      "placements": [{ "id": "stray", "control": "com.example.StrayLight", "space": "controlCenter" }]
    }
    """

    /// Runs `body` with a node serving the configuration, its devices behind `strayDevices`.
    @MainActor
    func withNode(_ body: (NodeRuntime) async throws -> Void) async throws {
        let swiftControls = StrayBundle().controlDefinitions
        let configuration = try ConfigurationLoader.load(data: Data(Self.configuration.utf8), swiftKinds: swiftControls.map(\.kind))
        let serving = Locked<NodeRuntime?>(nil)
        strayDevices.connect(NodeDeviceService(caller: "the Swift bundle", allowed: nil) { serving.withLock { $0 } })
        let runtime = try await NodeRuntime(
            configuration: configuration, chips: ["main": SimulatedGPIOChip(lineCount: 54)], persisted: PersistedState(),
            stateFile: nil, extraControls: swiftControls, log: Log()
        )
        defer { runtime.hub.shutdown() }
        serving.withLock { $0 = runtime }
        try await body(runtime)
    }

    @Test @MainActor func intentOnAnUnknownDeviceFailsWithTheTypedMessage() async throws {
        try await withNode { (runtime: NodeRuntime) async throws in
            #expect(try await runtime.center.presentation(of: "stray").value == false)
            await #expect(throws: ControlError(.performFailed, kind: StrayLight.kind, placement: "stray", detail: #"unknown device "nope"; devices: porch, garage, door"#)) {
                try await runtime.center.perform("stray", .setValue(true))
            }
            do {
                try await Relay("nope", center: strayDevices).set(true)
                Issue.record("setting an unknown device should throw")
            } catch let error as DeviceError {
                #expect(error.code == .unknownDevice)
                #expect(error.message == #"unknown device "nope"; devices: porch, garage, door"#)
            }
            #expect(try runtime.hub.value(of: "porch") == false)
        }
    }

    @Test @MainActor func callsThatDoNotFitTheDeviceSayWhatToUse() async throws {
        try await withNode { (_: NodeRuntime) async throws in
            await #expect(throws: DeviceError(.wrongKind, #"Porch Light ("porch") is a relay: use Relay("…").set(_:) or isOn()"#)) {
                try await Pulse("porch", center: strayDevices).press()
            }
            await #expect(throws: DeviceError(.wrongKind, #"Garage Door ("garage") is a pulse: use Pulse("…").press()"#)) {
                try await Relay("garage", center: strayDevices).set(true)
            }
            await #expect(throws: DeviceError(.wrongKind, #"Door Contact ("door") is a input: use Input("…").isActive(); an input can be read, not switched"#)) {
                try await Relay("door", center: strayDevices).set(true)
            }
            #expect(try await strayDevices.devices() == [
                DeviceDescription(id: "porch", name: "Porch Light", kind: .relay),
                DeviceDescription(id: "garage", name: "Garage Door", kind: .pulse),
                DeviceDescription(id: "door", name: "Door Contact", kind: .input),
            ])
        }
    }

    @Test func aCenterWithNoServiceSaysWhereDeviceCallsWork() async throws {
        await #expect(throws: DeviceError(.noService, "no device service: device calls work in switchboardd, in a program that embeds a bundle with SwitchboardDaemon, or in a control extension that switchboardd runs")) {
            try await Relay("porch", center: DeviceCenter()).isOn()
        }
    }
}
