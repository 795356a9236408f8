import ControlKit
import Foundation

// A daemon embedding a bundle whose control opts into push reloads: the garden hose's state is
// kept by another system (here a file), which pushes the control's token when it changes it.

/// The file the other system keeps the hose's state in ("on" or "off").
let hoseStatePath = ProcessInfo.processInfo.environment["SWITCHBOARD_TEST_HOSE"] ?? "/nonexistent"

struct HoseProvider: ControlValueProvider {
    let previewValue = false
    func currentValue() async throws -> Bool {
        try String(contentsOfFile: hoseStatePath, encoding: .utf8).hasPrefix("on")
    }
}

struct SetHose: SetValueIntent {
    static let title: LocalizedStringResource = "Garden Hose"
    @Parameter(title: "Running") var value: Bool
    func perform() async throws -> some IntentResult {
        try (value ? "on" : "off").write(toFile: hoseStatePath, atomically: true, encoding: .utf8)
        return .result()
    }
}

/// Hands the tokens to the other system: here, a file beside its state, one token per line.
struct HoseTokens: ControlPushHandler {
    func pushTokensDidChange(controls: [ControlInfo]) {
        let tokens = controls.compactMap { $0.pushInfo.map { String(decoding: $0.token, as: UTF8.self) } }
        try? tokens.map { $0 + "\n" }.joined().write(toFile: hoseStatePath + ".tokens", atomically: true, encoding: .utf8)
    }
}

struct GardenHose: ControlWidget {
    var body: some ControlWidgetConfiguration {
        StaticControlConfiguration(kind: "com.example.GardenHose", provider: HoseProvider()) { running in
            ControlWidgetToggle("Garden Hose", isOn: running, action: SetHose()) { running in
                Label(running ? "Running" : "Off", systemImage: "drop")
            }
        }
        .pushHandler(HoseTokens.self)
    }
}

struct GardenBundle: WidgetBundle {
    var body: some Widget { GardenHose() }
}
