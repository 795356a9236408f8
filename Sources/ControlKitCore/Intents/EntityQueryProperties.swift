/// The properties a property query can match, each with the comparisons it supports:
/// `QueryProperties { Property(\LightEntity.$room) { EqualToComparator { … } } }`.
/// Mirrors AppIntents' `EntityQueryProperties`.
public struct EntityQueryProperties<Entity: AppEntity, ComparatorMappingType> {
    /// The properties, in the order declared.
    public let properties: [EntityQueryPropertyDeclaration<Entity, ComparatorMappingType>]

    /// The properties the builder lists.
    public init(@EntityQueryPropertiesBuilder<Entity, ComparatorMappingType> properties: () -> [EntityQueryPropertyDeclaration<Entity, ComparatorMappingType>]) {
        self.properties = properties()
    }

    /// No properties: a query that can only list its entities.
    public init() { properties = [] }
}

/// Collects the properties of ``EntityQueryProperties``.
@resultBuilder
public enum EntityQueryPropertiesBuilder<Entity: AppEntity, ComparatorMappingType> {
    public static func buildBlock(_ components: EntityQueryPropertyDeclaration<Entity, ComparatorMappingType>...) -> [EntityQueryPropertyDeclaration<Entity, ComparatorMappingType>] {
        components
    }

    public static func buildExpression(_ expression: EntityQueryPropertyDeclaration<Entity, ComparatorMappingType>) -> EntityQueryPropertyDeclaration<Entity, ComparatorMappingType> {
        expression
    }
}

/// One property of a property query and its comparisons, with its types erased; the base class
/// of ``EntityQueryProperty``.
public class EntityQueryPropertyDeclaration<Entity: AppEntity, ComparatorMappingType> {
    /// The property's title on an entity. Titles belong to each entity's `@Property`, so the
    /// runtime reads them from one.
    let title: (Entity) -> String?
    /// The comparisons, each mapping values written as strings.
    let comparators: [(comparison: EntityQueryComparison, map: ([String]) async throws -> ComparatorMappingType?)]

    init(title: @escaping (Entity) -> String?, comparators: [(comparison: EntityQueryComparison, map: ([String]) async throws -> ComparatorMappingType?)]) {
        self.title = title
        self.comparators = comparators
    }
}

/// A property of an entity, or of another entity it leads to, that a query can match.
/// Mirrors AppIntents' `EntityQueryProperty`; inside an ``EntityPropertyQuery`` it is spelled
/// `Property(\LightEntity.$room) { … }`.
public final class EntityQueryProperty<Entity, Subject, Property, PropertyType, ComparatorMappingType>: EntityQueryPropertyDeclaration<Entity, ComparatorMappingType>
where Entity: AppEntity, Subject: AppEntity, Property: EntityProperty<PropertyType>, PropertyType: _IntentValue {
    /// The comparators of one property.
    public typealias QueryComparators = [AnyEntityQueryComparator<Entity, Subject, Property, PropertyType, ComparatorMappingType>]

    /// A property of the entity `entityProvider` leads to.
    public init(
        _ keyPath: KeyPath<Subject, Property>,
        entityProvider: @escaping (Entity) -> Subject,
        @EntityQueryComparatorsBuilder<Entity, Subject, Property, PropertyType, ComparatorMappingType> comparators: () -> QueryComparators
    ) {
        super.init(
            title: { entityProvider($0)[keyPath: keyPath].title?.key },
            comparators: comparators().map { ($0.comparison, $0.map) }
        )
    }

    /// A property of the entity itself.
    public convenience init(
        _ keyPath: KeyPath<Subject, Property>,
        @EntityQueryComparatorsBuilder<Entity, Entity, Property, PropertyType, ComparatorMappingType> comparators: () -> QueryComparators
    ) where Entity == Subject {
        self.init(keyPath, entityProvider: { $0 }, comparators: comparators)
    }
}

/// A comparator with its input type erased. Mirrors AppIntents' `AnyEntityQueryComparator`.
public struct AnyEntityQueryComparator<Entity, Subject, Property, PropertyType, ComparatorMappingType>
where Entity: AppEntity, Subject: AppEntity, Property: EntityProperty<PropertyType>, PropertyType: _IntentValue {
    /// The comparison.
    public let comparison: EntityQueryComparison
    let map: ([String]) async throws -> ComparatorMappingType?

    /// Erases a comparator's input type.
    public init<InputType>(_ comparator: EntityQueryComparator<Property, PropertyType, InputType, ComparatorMappingType>) {
        comparison = comparator.comparison
        map = { try await comparator.mapped(from: $0) }
    }
}

/// Collects the comparators of an ``EntityQueryProperty``.
@resultBuilder
public enum EntityQueryComparatorsBuilder<Entity, Subject, Property, PropertyType, ComparatorMappingType>
where Entity: AppEntity, Subject: AppEntity, Property: EntityProperty<PropertyType>, PropertyType: _IntentValue {
    public static func buildBlock(
        _ components: AnyEntityQueryComparator<Entity, Subject, Property, PropertyType, ComparatorMappingType>...
    ) -> [AnyEntityQueryComparator<Entity, Subject, Property, PropertyType, ComparatorMappingType>] {
        components
    }

    public static func buildExpression<InputType>(
        _ expression: EntityQueryComparator<Property, PropertyType, InputType, ComparatorMappingType>
    ) -> AnyEntityQueryComparator<Entity, Subject, Property, PropertyType, ComparatorMappingType> {
        AnyEntityQueryComparator(expression)
    }
}
