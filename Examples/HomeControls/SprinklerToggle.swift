import ControlKit

extension Relay {
    /// The garden sprinkler's valve: devices.json's `sprinkler`, a relay.
    static let sprinkler = Relay("sprinkler")
}

/// Starts or stops the garden sprinkler.
public struct ToggleSprinklerIntent: SetValueIntent {
    public static let title: LocalizedStringResource = "Sprinkler"
    @Parameter(title: "Watering") public var value: Bool
    public init() {}

    public func perform() async throws -> some IntentResult {
        try await Relay.sprinkler.set(value)
        return .result()
    }
}

/// Reads whether the sprinkler runs: whether its valve's relay is on.
public struct SprinklerValueProvider: ControlValueProvider {
    public let previewValue = false
    public func currentValue() async throws -> Bool { try await Relay.sprinkler.isOn() }
}

/// A timer-style toggle: custom value text ("Watering"/"Idle"), custom hints ("Hold to Water",
/// "Hold to Stop"), and a status after it starts.
public struct SprinklerToggle: ControlWidget {
    nonisolated public static let kind = "com.switchboard.example.Sprinkler"
    public init() {}

    public var body: some ControlWidgetConfiguration {
        StaticControlConfiguration(kind: Self.kind, provider: SprinklerValueProvider()) { isWatering in
            ControlWidgetToggle("Sprinkler", isOn: isWatering, action: ToggleSprinklerIntent()) { isOn in
                if isOn {
                    Label("Watering", systemImage: "sprinkler.and.droplets.fill")
                        .controlWidgetActionHint("Water")
                        .controlWidgetStatus("Watering for 10 min")
                } else {
                    Label("Idle", systemImage: "sprinkler")
                        .controlWidgetActionHint("Stop")
                }
            }
            .tint(.teal)
        }
        .displayName("Sprinkler")
        .description("Water the garden.")
    }
}
