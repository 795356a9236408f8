import ControlKit

extension Pulse {
    /// The garage-door opener: devices.json's `garage`, a pulse output.
    static let garage = Pulse("garage")
}

/// Pulses the garage-door opener. Opening a door into the house needs Switchboard unlocked.
public struct PressGarageDoorIntent: AppIntent {
    public static let title: LocalizedStringResource = "Garage Door"
    public static let authenticationPolicy: IntentAuthenticationPolicy = .requiresAuthentication
    public init() {}

    public func perform() async throws -> some IntentResult {
        try await Pulse.garage.press()
        return .result(dialog: "Garage door moving")
    }
}

/// A button for the garage-door opener.
public struct GarageDoorButton: ControlWidget {
    nonisolated public static let kind = "com.switchboard.example.GarageDoor"
    public init() {}

    public var body: some ControlWidgetConfiguration {
        StaticControlConfiguration(kind: Self.kind) {
            ControlWidgetButton(action: PressGarageDoorIntent()) {
                Label("Garage Door", systemImage: "door.garage.closed")
                    .controlWidgetStatus("Door moving")
            }
        }
        .displayName("Garage Door")
        .description("Open or close the garage door.")
    }
}
