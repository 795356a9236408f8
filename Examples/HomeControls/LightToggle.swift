import ControlKit

/// A light people can choose for a ``LightToggle``.
public struct LightEntity: AppEntity {
    public static let typeDisplayRepresentation: TypeDisplayRepresentation = "Light"
    public static let defaultQuery = LightQuery()

    public let id: String
    public let name: String

    public var displayRepresentation: DisplayRepresentation { DisplayRepresentation(title: "\(name)") }
}

/// Finds the home's lights.
public struct LightQuery: EntityQuery {
    public init() {}
    public func entities(for identifiers: [String]) async throws -> [LightEntity] {
        HomeModel.lights.filter { identifiers.contains($0.id) }
    }
    public func suggestedEntities() async throws -> [LightEntity] { HomeModel.lights }
}

/// Chooses which light a ``LightToggle`` switches.
public struct SelectLightIntent: ControlConfigurationIntent {
    public static let title: LocalizedStringResource = "Select Light"
    @Parameter(title: "Light") public var light: LightEntity
    public init() {}
}

/// Switches a light on or off.
public struct SetLightIntent: SetValueIntent {
    public static let title: LocalizedStringResource = "Set Light"
    @Parameter(title: "On") public var value: Bool
    @Parameter(title: "Light") public var light: LightEntity

    public init() {}
    public init(light: LightEntity) { self.light = light }

    public func perform() async throws -> some IntentResult {
        try HomeModel.shared.setLight(light.id, on: value)
        return .result()
    }
}

/// A light and whether it is on.
public struct LightState: Sendable {
    public var light: LightEntity
    public var isOn: Bool
}

/// Reads the configured light's state from the home.
public struct LightValueProvider: AppIntentControlValueProvider {
    public func previewValue(configuration: SelectLightIntent) -> LightState {
        LightState(light: configuration.light, isOn: false)
    }

    public func currentValue(configuration: SelectLightIntent) async throws -> LightState {
        LightState(light: configuration.light, isOn: try HomeModel.shared.isLightOn(configuration.light.id))
    }
}

/// "Which light": one toggle kind, configured per placement with the light it switches.
public struct LightToggle: ControlWidget {
    nonisolated public static let kind = "com.switchboard.example.Light"
    public init() {}

    public var body: some ControlWidgetConfiguration {
        AppIntentControlConfiguration(kind: Self.kind, provider: LightValueProvider()) { state in
            ControlWidgetToggle(state.light.name, isOn: state.isOn, action: SetLightIntent(light: state.light)) { isOn in
                Image(systemName: isOn ? "lightbulb.fill" : "lightbulb")
            }
            .tint(.yellow)
        }
        .displayName("Light")
        .description("Turn a light on or off.")
        .promptsForUserConfiguration()
    }
}
