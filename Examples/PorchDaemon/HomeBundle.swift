import ControlKit   // instead of: import WidgetKit, import SwiftUI, import AppIntents

extension Relay {
    static let porch = Relay("porch")   // the device "porch" of devices.json
}

struct PorchLight: ControlWidget {
    var body: some ControlWidgetConfiguration {
        StaticControlConfiguration(kind: "com.example.PorchLight", provider: PorchProvider()) { isOn in
            ControlWidgetToggle("Porch Light", isOn: isOn, action: SetPorchLight()) { isOn in
                Image(systemName: isOn ? "lightbulb.fill" : "lightbulb")
            }
            .tint(.yellow)
        }
        .displayName("Porch Light")
    }
}

struct SetPorchLight: SetValueIntent {
    static let title: LocalizedStringResource = "Porch Light"
    @Parameter(title: "On") var value: Bool          // set by the runtime to the new state
    func perform() async throws -> some IntentResult {
        try await Relay.porch.set(value)
        return .result()
    }
}

struct PorchProvider: ControlValueProvider {
    let previewValue = false
    func currentValue() async throws -> Bool { try await Relay.porch.isOn() }
}

struct HomeBundle: WidgetBundle {
    var body: some Widget { PorchLight() }
}
