/// A query that finds entities by their properties: "lights whose room is Kitchen, brightest
/// first". Mirrors AppIntents' `EntityPropertyQuery`.
///
/// On Switchboard, `switchboard find KIND --where "Room = Kitchen" --sort Watts:desc --limit 3`
/// asks it (as Shortcuts' Find action does on iOS) and lists the matching choices of the
/// control's configuration parameter; `switchboard configure ID --where …` configures a placement
/// with the one entity that matches. Conditions name a property by its `@Property` title.
public protocol EntityPropertyQuery: EntityQuery {
    /// What a comparator's mapping transform produces, and what
    /// ``entities(matching:mode:sortedBy:limit:)`` receives: a predicate, a closure, an enum.
    associatedtype ComparatorMappingType
    /// The properties the query can match, with their comparators.
    static var properties: EntityQueryProperties<Entity, ComparatorMappingType> { get }
    /// The properties the query can sort by.
    static var sortingOptions: EntityQuerySortingOptions<Entity> { get }
    /// What the query's Find action is for (shown with `switchboard find`'s usage on iOS; kept for it here).
    static var findIntentDescription: IntentDescription? { get }
    /// The entities that match the mapped conditions (all of them, or any, as `mode` says),
    /// sorted by the keys in order, at most `limit` of them.
    func entities(
        matching comparators: [ComparatorMappingType],
        mode: EntityQueryComparatorMode,
        sortedBy: [EntityQuerySort<Entity>],
        limit: Int?
    ) async throws -> [Entity]
}

extension EntityPropertyQuery {
    public static var findIntentDescription: IntentDescription? { nil }

    /// `QueryProperties { … }`.
    public typealias QueryProperties = EntityQueryProperties<Entity, ComparatorMappingType>
    /// `SortingOptions { … }`.
    public typealias SortingOptions = EntityQuerySortingOptions<Entity>
    /// `SortableBy(\LightEntity.$name)`.
    public typealias SortableBy = EntityQuerySortableByProperty<Entity>
    /// `mode: ComparatorMode`.
    public typealias ComparatorMode = EntityQueryComparatorMode
    /// `sortedBy: [Sort<LightEntity>]`.
    public typealias Sort = EntityQuerySort
    /// `Property(\LightEntity.$room) { … }` inside ``QueryProperties``.
    public typealias Property = EntityQueryProperty
}
