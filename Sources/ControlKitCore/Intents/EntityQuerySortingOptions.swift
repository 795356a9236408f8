/// The properties a property query can sort its results by:
/// `SortingOptions { SortableBy(\LightEntity.$name) }`. Mirrors AppIntents' `EntityQuerySortingOptions`.
public struct EntityQuerySortingOptions<Entity: AppEntity> {
    /// The properties, in the order declared.
    let options: [EntityQuerySortableByProperty<Entity>]

    /// The properties the builder lists.
    public init(@EntityQuerySortingOptionsBuilder<Entity> content: () -> [EntityQuerySortableByProperty<Entity>]) {
        options = content()
    }

    /// No sorting options: results come in the query's own order.
    public init() { options = [] }

    /// The option at a position.
    public subscript(index: Int) -> EntityQuerySortableByProperty<Entity> { options[index] }
}

/// Collects ``EntityQuerySortingOptions``.
@resultBuilder
public enum EntityQuerySortingOptionsBuilder<Entity: AppEntity> {
    public static func buildBlock(_ components: EntityQuerySortableByProperty<Entity>...) -> [EntityQuerySortableByProperty<Entity>] {
        components
    }

    public static func buildExpression(_ expression: EntityQuerySortableByProperty<Entity>) -> EntityQuerySortableByProperty<Entity> {
        expression
    }
}

/// A property results can be sorted by. Mirrors AppIntents' `EntityQuerySortableByProperty`
/// (`SortableBy` inside an ``EntityPropertyQuery``).
public struct EntityQuerySortableByProperty<Entity: AppEntity> {
    /// The property, as ``EntityQuerySort/by`` hands it back.
    let keyPath: PartialKeyPath<Entity>

    /// Results may be sorted by the property at `keyPath` (an entity's `$property`).
    public init<Property>(_ keyPath: KeyPath<Entity, Property>) {
        self.keyPath = keyPath
    }

    /// The property's title on an entity, if it is a titled `@Property`.
    func title(on entity: Entity) -> String? {
        (entity[keyPath: keyPath] as? any TitledEntityProperty)?.titleText
    }
}

/// One sort key a query is asked to sort by. Mirrors AppIntents' `EntityQuerySort`.
public struct EntityQuerySort<Entity: AppEntity> {
    /// Which way.
    public enum Ordering: Sendable, Hashable {
        case ascending, descending
    }

    /// The property: the key path of one of the query's ``EntityQuerySortingOptions``.
    public let by: PartialKeyPath<Entity>
    /// Which way to sort.
    public let order: Ordering

    /// A sort key.
    public init(by: PartialKeyPath<Entity>, order: Ordering) {
        self.by = by
        self.order = order
    }
}

/// Whether all conditions of a query must hold, or any. Mirrors AppIntents'
/// `EntityQueryComparatorMode`.
public enum EntityQueryComparatorMode: Sendable, Hashable {
    case and, or
}

/// An `@Property` whose title can be read without its value type.
protocol TitledEntityProperty {
    var titleText: String? { get }
}

extension EntityProperty: TitledEntityProperty {
    var titleText: String? { title?.key }
}
