#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A query that can list every entity of its type: the choices offered and the lookup by
/// identifier follow from ``allEntities()``. Mirrors AppIntents' `EnumerableEntityQuery`.
public protocol EnumerableEntityQuery: EntityQuery {
    /// The type of entity listed (restated so that it is inferred from ``allEntities()``).
    associatedtype Entity
    /// Every entity of the type.
    func allEntities() async throws -> [Entity]
}

extension EnumerableEntityQuery {
    public func entities(for identifiers: [Entity.ID]) async throws -> [Entity] {
        let wanted = Set(identifiers)
        return try await allEntities().filter { wanted.contains($0.id) }
    }

    public func suggestedEntities() async throws -> [Entity] { try await allEntities() }
}

/// An entity of which there is only ever one, such as the board's own settings. Mirrors
/// AppIntents' `UniqueAppEntity`.
public protocol UniqueAppEntity: AppEntity where DefaultQuery: UniqueAppEntityQuery {}

/// The query of a ``UniqueAppEntity``: everything follows from ``uniqueEntity()``. Mirrors
/// AppIntents' `UniqueAppEntityQuery`.
public protocol UniqueAppEntityQuery: EnumerableEntityQuery where Entity: UniqueAppEntity {
    /// The one entity.
    associatedtype Unique where Entity == Unique
    /// The one entity.
    func uniqueEntity() async throws -> Unique
}

extension UniqueAppEntityQuery {
    public func allEntities() async throws -> [Entity] { [try await uniqueEntity()] }
    public func defaultResult() async -> Entity? { try? await uniqueEntity() }
}

/// A ``UniqueAppEntityQuery`` made from a closure, for an entity's `defaultQuery`. Mirrors
/// AppIntents' `UniqueAppEntityProvider`.
public struct UniqueAppEntityProvider<Entity: UniqueAppEntity>: UniqueAppEntityQuery {
    public typealias Unique = Entity
    private let provider: (@Sendable () async throws -> Entity)?

    /// A query whose entity `provider` gives.
    public init(_ provider: @escaping @Sendable () async throws -> Entity) { self.provider = provider }

    /// A query without a provider (`EntityQuery` requires `init()`): asking it for the entity
    /// throws; give the provider with ``init(_:)``.
    public init() { provider = nil }

    public func uniqueEntity() async throws -> Entity {
        guard let provider else { throw UniqueEntityMissing(type: "\(Entity.self)") }
        return try await provider()
    }
}

/// A ``UniqueAppEntityProvider`` made without its provider was asked for its entity.
public struct UniqueEntityMissing: Error, CustomStringConvertible {
    /// The entity type.
    public let type: String
    public var description: String {
        "UniqueAppEntityProvider<\(type)> has no provider: create it with UniqueAppEntityProvider { … } as the entity's defaultQuery"
    }
}

extension UUID: EntityIdentifierConvertible {
    public var entityIdentifierString: String { uuidString }
    public static func entityIdentifier(for entityIdentifierString: String) -> UUID? { UUID(uuidString: entityIdentifierString) }
}
