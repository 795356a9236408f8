import ControlKit

/// A light people can choose for a ``LightToggle``: a device of the board.
public struct LightEntity: AppEntity {
    public static let typeDisplayRepresentation: TypeDisplayRepresentation = "Light"
    public static let defaultQuery = LightQuery()

    /// The device's id in devices.json.
    public let id: String
    /// The device's name in devices.json.
    @Property(title: "Name") public var name: String
    /// How the board reaches it: `GPIO` (a relay on the header) or `MQTT` (another system's device).
    @Property(title: "Connection") public var connection: String

    public init(id: String, name: String, connection: String) {
        self.id = id
        self.name = name
        self.connection = connection
    }

    public var displayRepresentation: DisplayRepresentation { DisplayRepresentation(title: "\(name)") }
}

/// Finds the lights: every device of the board that switches on and off, a relay or a device of
/// another system (a Zigbee bulb, a smart plug), in devices.json's order. The board cannot tell a
/// lamp's relay from a pump's, so the sprinkler's relay is a choice too; pulse outputs and inputs
/// are not. Lights can be found by name and connection (`switchboard find`, `configure --where`).
public struct LightQuery: EntityPropertyQuery {
    public typealias ComparatorMappingType = @Sendable (LightEntity) -> Bool

    nonisolated(unsafe) public static let properties = QueryProperties {
        Property(\LightEntity.$name) {
            EqualToComparator { name in { $0.name == name } }
            ContainsComparator { text in { $0.name.lowercased().contains(text.lowercased()) } }
        }
        Property(\LightEntity.$connection) {
            EqualToComparator { connection in { $0.connection.lowercased() == connection.lowercased() } }
            NotEqualToComparator { connection in { $0.connection.lowercased() != connection.lowercased() } }
        }
    }

    nonisolated(unsafe) public static let sortingOptions = SortingOptions {
        SortableBy(\LightEntity.$name)
    }

    public init() {}

    public func entities(for identifiers: [String]) async throws -> [LightEntity] {
        try await suggestedEntities().filter { identifiers.contains($0.id) }
    }

    public func suggestedEntities() async throws -> [LightEntity] {
        try await DeviceCenter.shared.devices()
            .filter { $0.kind == .relay || $0.kind == .mqtt }
            .map { LightEntity(id: $0.id, name: $0.name, connection: $0.kind == .mqtt ? "MQTT" : "GPIO") }
    }

    public func entities(
        matching comparators: [ComparatorMappingType], mode: ComparatorMode, sortedBy: [Sort<LightEntity>], limit: Int?
    ) async throws -> [LightEntity] {
        var lights = try await suggestedEntities().filter { light in
            comparators.isEmpty || (mode == .and ? comparators.allSatisfy { $0(light) } : comparators.contains { $0(light) })
        }
        if let sort = sortedBy.first, sort.by == \LightEntity.$name {
            lights.sort { sort.order == .ascending ? $0.name < $1.name : $0.name > $1.name }
        }
        return Array(lights.prefix(limit ?? lights.count))
    }
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
        try await Relay(light.id).set(value)
        return .result()
    }
}

/// A light and whether it is on.
public struct LightState: Sendable {
    public var light: LightEntity
    public var isOn: Bool
}

/// Reads the configured light's state from its device.
public struct LightValueProvider: AppIntentControlValueProvider {
    public func previewValue(configuration: SelectLightIntent) -> LightState {
        LightState(light: configuration.light, isOn: false)
    }

    public func currentValue(configuration: SelectLightIntent) async throws -> LightState {
        LightState(light: configuration.light, isOn: try await Relay(configuration.light.id).isOn())
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
