import SwitchboardSupport

/// A parameter of an intent: `@Parameter(title: "Light") var light: LightEntity`.
///
/// Mirrors AppIntents' `IntentParameter`. Intents keep value semantics: copying an intent and
/// setting a parameter on the copy leaves the original as it was.
@propertyWrapper
public struct IntentParameter<Value: _IntentValue>: Sendable {
    /// Holds the value; shared between copies until one of them writes (copy on write).
    final class Storage: Sendable {
        let value: Locked<Value?>
        init(_ value: Value?) { self.value = Locked(value) }
        func load() -> Value? { value.withLock { $0 } }
        func store(_ newValue: Value?) { value.withLock { $0 = newValue } }
    }

    private var storage: Storage
    /// What people call the parameter.
    public let title: LocalizedStringResource
    /// A longer description, if any.
    public let description: LocalizedStringResource?

    /// A parameter with no value until the runtime or an initialiser sets one.
    public init(title: LocalizedStringResource, description: LocalizedStringResource? = nil) {
        storage = Storage(nil)
        self.title = title
        self.description = description
    }

    /// A parameter with a default value.
    public init(wrappedValue: Value, title: LocalizedStringResource, description: LocalizedStringResource? = nil) {
        storage = Storage(wrappedValue)
        self.title = title
        self.description = description
    }

    /// A parameter with a default value given as `default:`.
    public init(title: LocalizedStringResource, description: LocalizedStringResource? = nil, default value: Value) {
        self.init(wrappedValue: value, title: title, description: description)
    }

    /// The parameter's value.
    ///
    /// Reading a parameter that was never set gives the type's natural default (`false`, `0`, `""`,
    /// an enum's first case, `nil`); the runtime sets entity parameters before any control code reads them.
    public var wrappedValue: Value {
        get {
            if let value = storage.load() ?? naturalDefault(of: Value.self) { return value }
            preconditionFailure("The intent parameter \"\(title.key)\" (\(Value._parameterTypeName)) was read before it was set: give it a value in the intent's initialiser, or configure the control")
        }
        set {
            if !isKnownUniquelyReferenced(&storage) { storage = Storage(newValue) } else { storage.store(newValue) }
        }
    }

    /// The parameter itself, for reading its title.
    public var projectedValue: IntentParameter<Value> { self }
}

/// `@Parameter`, as AppIntents spells it.
public typealias Parameter<Value: _IntentValue> = IntentParameter<Value>

/// Types whose unset parameters read as a natural default.
protocol _ParameterFallback { static var _fallbackValue: Any { get } }
extension Bool: _ParameterFallback { static var _fallbackValue: Any { false } }
extension Int: _ParameterFallback { static var _fallbackValue: Any { 0 } }
extension Double: _ParameterFallback { static var _fallbackValue: Any { 0.0 } }
extension String: _ParameterFallback { static var _fallbackValue: Any { "" } }
extension Optional: _ParameterFallback { static var _fallbackValue: Any { Optional<Wrapped>.none as Any } }

private func firstCase<E: AppEnum>(of type: E.Type) -> Any? { E.allCases.first }

/// What an unset parameter or entity property of a type reads as: `false`, `0`, `""`, an enum's
/// first case, `nil`; nil for types without one (entities).
func naturalDefault<Value: _IntentValue>(of type: Value.Type) -> Value? {
    if let fallback = Value.self as? any _ParameterFallback.Type, let value = fallback._fallbackValue as? Value {
        return value
    }
    if let enumType = Value.self as? any AppEnum.Type, let value = firstCase(of: enumType) as? Value {
        return value
    }
    return nil
}

/// The runtime's view of a parameter found on an intent by reflection.
protocol AnyIntentParameter: Sendable {
    var titleText: String { get }
    var isSet: Bool { get }
    var stringValue: String? { get }
    var typeName: String { get }
    func options() async throws -> [ParameterOption]
    /// The choices a find selects, or nil if the type cannot be searched by its properties.
    func find(_ find: EntityFind) async throws -> [ParameterOption]?
    /// Sets the value a string stands for; false if it stands for none.
    /// Writes in place: only for intents the runtime has just created and owns alone.
    func assign(fromString string: String) async throws -> Bool
    /// Sets the type's default value if the parameter is unset; false if there is none.
    func assignDefault() async -> Bool
}

extension IntentParameter: AnyIntentParameter {
    var titleText: String { title.key }
    var isSet: Bool { storage.load() != nil }
    var stringValue: String? { storage.load()?._parameterString }
    var typeName: String { Value._parameterTypeName }
    func options() async throws -> [ParameterOption] { try await Value._parameterOptions() }
    func find(_ find: EntityFind) async throws -> [ParameterOption]? { try await Value._find(find) }

    func assign(fromString string: String) async throws -> Bool {
        guard let value = try await Value._parameterValue(from: string) else { return false }
        storage.store(value)
        return true
    }

    func assignDefault() async -> Bool {
        if isSet { return true }
        guard let value = await Value._defaultParameterValue() else { return false }
        storage.store(value)
        return true
    }
}
