/// Something in the home that intents act on and people choose between: a light, a door, a timer.
///
/// Mirrors AppIntents' `AppEntity`. A configurable control lists its choices ("which light")
/// through the entity's ``defaultQuery``.
public protocol AppEntity: _IntentValue, Identifiable where ID: EntityIdentifierConvertible {
    /// The query that finds entities of this type.
    associatedtype DefaultQuery: EntityQuery where DefaultQuery.Entity == Self
    /// How the type is named to people.
    static var typeDisplayRepresentation: TypeDisplayRepresentation { get }
    /// The query the runtime uses to list and resolve entities.
    static var defaultQuery: DefaultQuery { get }
    /// How this entity is shown to people.
    var displayRepresentation: DisplayRepresentation { get }
}

/// Finds entities: by identifier, and the ones to suggest when configuring.
public protocol EntityQuery: Sendable {
    /// The type of entity found.
    associatedtype Entity: AppEntity
    init()
    /// The entities with these identifiers (those that exist).
    func entities(for identifiers: [Entity.ID]) async throws -> [Entity]
    /// The entities to offer when someone configures a control.
    func suggestedEntities() async throws -> [Entity]
    /// The entity a control uses before anyone configures it, if any.
    func defaultResult() async -> Entity?
}

extension EntityQuery {
    public func suggestedEntities() async throws -> [Entity] { [] }
    public func defaultResult() async -> Entity? { nil }
}

/// An identifier that can be written as a string: `String`, `Int`, `UUID`-like values.
public protocol EntityIdentifierConvertible: Sendable, Hashable {
    /// The identifier as a string.
    var entityIdentifierString: String { get }
    /// The identifier a string stands for.
    static func entityIdentifier(for entityIdentifierString: String) -> Self?
}

extension String: EntityIdentifierConvertible {
    public var entityIdentifierString: String { self }
    public static func entityIdentifier(for entityIdentifierString: String) -> String? { entityIdentifierString }
}

extension Int: EntityIdentifierConvertible {
    public var entityIdentifierString: String { String(self) }
    public static func entityIdentifier(for entityIdentifierString: String) -> Int? { Int(entityIdentifierString) }
}

extension AppEntity {
    public var _parameterString: String { id.entityIdentifierString }

    public static func _parameterValue(from string: String) async throws -> Self? {
        guard let id = ID.entityIdentifier(for: string) else { return nil }
        return try await defaultQuery.entities(for: [id]).first
    }

    public static func _parameterOptions() async throws -> [ParameterOption] {
        try await defaultQuery.suggestedEntities().map(\.parameterOption)
    }

    public static func _find(_ find: EntityFind) async throws -> [ParameterOption]? {
        guard let query = defaultQuery as? any EntityPropertyQuery else { return nil }
        return try await options(found: find, by: query)
    }

    /// The entity as one choice of a parameter.
    var parameterOption: ParameterOption {
        let representation = displayRepresentation
        return ParameterOption(id: id.entityIdentifierString, title: representation.title.key, subtitle: representation.subtitle?.key)
    }

    public static func _defaultParameterValue() async -> Self? { await defaultQuery.defaultResult() }

    public static var _parameterTypeName: String { typeDisplayRepresentation.name.key }
}

/// What a property query finds, as choices (the query's entity type is opened here).
private func options<Query: EntityPropertyQuery>(found find: EntityFind, by query: Query) async throws -> [ParameterOption] {
    try await query.find(find).map(\.parameterOption)
}
