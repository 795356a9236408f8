import SwitchboardSupport

/// A property of an ``AppEntity`` that queries can match and sort by:
/// `@Property(title: "Room") var room: String`.
///
/// Mirrors AppIntents' `EntityProperty`: a class, so copies of an entity share their properties,
/// and `$room` (the projected value) is the property itself, which ``EntityPropertyQuery``
/// declarations name by key path (`\LightEntity.$room`).
@propertyWrapper
public final class EntityProperty<Value: _IntentValue>: Sendable {
    private let value: Locked<Value?>
    /// What people call the property; `switchboard find` matches conditions on it.
    public let title: LocalizedStringResource?

    /// A property with a title and no value until the entity's initialiser sets one.
    public convenience init(title: LocalizedStringResource) { self.init(nil, title: title) }
    /// A property without a title (queries cannot name it).
    public convenience init() { self.init(nil, title: nil) }
    /// A property with an initial value and a title.
    public convenience init(wrappedValue: Value, title: LocalizedStringResource) { self.init(wrappedValue, title: title) }
    /// A property with an initial value and no title.
    public convenience init(wrappedValue: Value) { self.init(wrappedValue, title: nil) }

    private init(_ value: Value?, title: LocalizedStringResource?) {
        self.value = Locked(value)
        self.title = title
    }

    /// The property's value. Reading one never set gives the type's natural default (`false`,
    /// `0`, `""`, an enum's first case, `nil`).
    public var wrappedValue: Value {
        get {
            if let value = value.withLock({ $0 }) ?? naturalDefault(of: Value.self) { return value }
            preconditionFailure("The entity property \"\(title?.key ?? "untitled")\" (\(Value._parameterTypeName)) was read before it was set: set it in the entity's initialiser")
        }
        set { value.withLock { $0 = newValue } }
    }

    /// The property itself, as `$name` names it.
    public var projectedValue: EntityProperty<Value> { self }
}

extension AppEntity {
    /// `@Property`, as AppIntents spells it inside an entity.
    public typealias Property<Value: _IntentValue> = EntityProperty<Value>
}
