/// A type that can be an intent parameter: `Bool`, `Int`, `Double`, `String`, an ``AppEnum``, an
/// ``AppEntity``, or an optional of one of these.
///
/// Parameters travel as strings (in devices.json, the state file, MQTT and the CLI); these
/// requirements convert them. You do not implement them: the conformances come with ControlKit.
public protocol _IntentValue: Sendable {
    /// The type without optionality: `Wrapped` for an optional, the type itself otherwise.
    associatedtype UnwrappedType = Self
    /// The value written as a string: an entity's identifier, an enum case's raw value.
    var _parameterString: String { get }
    /// The value a string stands for, or nil if it stands for none.
    static func _parameterValue(from string: String) async throws -> Self?
    /// The values people may choose from, or none where any value of the type is allowed.
    static func _parameterOptions() async throws -> [ParameterOption]
    /// The value an unset parameter takes before anyone configures it, if the type has one.
    static func _defaultParameterValue() async -> Self?
    /// The values a find selects (an entity whose query is an ``EntityPropertyQuery``), or nil
    /// where the type cannot be searched by its properties.
    static func _find(_ find: EntityFind) async throws -> [ParameterOption]?
    /// How the type is named to people.
    static var _parameterTypeName: String { get }
}

/// One choice for a parameter: "which light" lists one per light.
public struct ParameterOption: Sendable, Hashable, Codable {
    /// The string that stands for the value (an entity identifier, an enum raw value).
    public var id: String
    /// What people see.
    public var title: String
    /// A second line, if any.
    public var subtitle: String?

    public init(id: String, title: String, subtitle: String? = nil) {
        self.id = id
        self.title = title
        self.subtitle = subtitle
    }
}

extension _IntentValue {
    public static func _parameterOptions() async throws -> [ParameterOption] { [] }
    public static func _defaultParameterValue() async -> Self? { nil }
    public static func _find(_ find: EntityFind) async throws -> [ParameterOption]? { nil }
}

extension Bool: _IntentValue {
    public var _parameterString: String { self ? "true" : "false" }
    public static func _parameterValue(from string: String) async throws -> Bool? {
        switch string.lowercased() {
        case "true", "on", "1", "yes": true
        case "false", "off", "0", "no": false
        default: nil
        }
    }
    public static func _parameterOptions() async throws -> [ParameterOption] {
        [ParameterOption(id: "true", title: "On"), ParameterOption(id: "false", title: "Off")]
    }
    public static func _defaultParameterValue() async -> Bool? { false }
    public static var _parameterTypeName: String { "Bool" }
}

extension Int: _IntentValue {
    public var _parameterString: String { String(self) }
    public static func _parameterValue(from string: String) async throws -> Int? { Int(string) }
    public static func _defaultParameterValue() async -> Int? { 0 }
    public static var _parameterTypeName: String { "Int" }
}

extension Double: _IntentValue {
    public var _parameterString: String { String(self) }
    public static func _parameterValue(from string: String) async throws -> Double? { Double(string) }
    public static func _defaultParameterValue() async -> Double? { 0 }
    public static var _parameterTypeName: String { "Double" }
}

extension String: _IntentValue {
    public var _parameterString: String { self }
    public static func _parameterValue(from string: String) async throws -> String? { string }
    public static func _defaultParameterValue() async -> String? { "" }
    public static var _parameterTypeName: String { "String" }
}

extension Optional: _IntentValue where Wrapped: _IntentValue {
    public typealias UnwrappedType = Wrapped
    public var _parameterString: String { self?._parameterString ?? "" }
    public static func _parameterValue(from string: String) async throws -> Optional<Wrapped>? {
        if string.isEmpty { return .some(.none) }
        guard let value = try await Wrapped._parameterValue(from: string) else { return nil }
        return .some(value)
    }
    public static func _parameterOptions() async throws -> [ParameterOption] { try await Wrapped._parameterOptions() }
    public static func _find(_ find: EntityFind) async throws -> [ParameterOption]? { try await Wrapped._find(find) }
    public static func _defaultParameterValue() async -> Optional<Wrapped>? { .some(await Wrapped._defaultParameterValue()) }
    public static var _parameterTypeName: String { Wrapped._parameterTypeName + "?" }
}
