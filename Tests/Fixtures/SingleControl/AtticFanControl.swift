import ControlKit

/// A control extension whose `@main` is one control, as a widget extension's can be: it runs as a
/// bundle of that control alone.
@main
struct AtticFanControl: ControlWidget {
    var body: some ControlWidgetConfiguration {
        StaticControlConfiguration(kind: "com.example.attic-fan") {
            ControlWidgetToggle(isOn: false, action: RunAtticFan()) {
                Label("Attic Fan", systemImage: "fan")
            }
        }
    }
}

struct RunAtticFan: SetValueIntent {
    static let title: LocalizedStringResource = "Attic Fan"
    @Parameter(title: "Running") var value: Bool
    func perform() async throws -> some IntentResult { .result() }
}
