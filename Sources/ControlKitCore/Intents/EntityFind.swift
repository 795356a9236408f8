/// A search of a configurable control's choices by the properties of its entities: what
/// `switchboard find` and `switchboard configure --where` send, and what an
/// ``EntityPropertyQuery`` answers (as Shortcuts' Find action asks it on iOS).
public struct EntityFind: Sendable, Hashable, Codable {
    /// One condition: a property (by its `@Property` title, any case), a comparison, its values.
    public struct Condition: Sendable, Hashable, Codable {
        public var property: String
        public var comparison: EntityQueryComparison
        public var values: [String]

        public init(property: String, comparison: EntityQueryComparison, values: [String]) {
            self.property = property
            self.comparison = comparison
            self.values = values
        }

        /// A condition written as `Room = Kitchen`, `Name contains porch`, `Watts between 5 and 10`:
        /// the property, then a comparison (`=` `!=` `<` `<=` `>` `>=` `contains` `prefix`
        /// `suffix` `between`), then the value (two joined by `and` for `between`).
        public init(parsing text: String) throws(EntityFindError) {
            let words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard let index = words.firstIndex(where: { EntityQueryComparison(rawValue: $0.lowercased()) != nil }),
                  index > 0, index < words.count - 1,
                  let comparison = EntityQueryComparison(rawValue: words[index].lowercased())
            else { throw EntityFindError("\"\(text)\" is not a condition: write it like \"Room = Kitchen\" or \"Watts between 5 and 10\" (comparisons: \(EntityQueryComparison.allCases.map(\.rawValue).joined(separator: " ")))") }
            let rest = Array(words[(index + 1)...])
            var values = [rest.joined(separator: " ")]
            if comparison == .isBetween {
                guard let and = rest.firstIndex(where: { $0.lowercased() == "and" }), and > 0, and < rest.count - 1 else {
                    throw EntityFindError("\"\(text)\": between takes two values, \"between 5 and 10\"")
                }
                values = [rest[..<and].joined(separator: " "), rest[(and + 1)...].joined(separator: " ")]
            }
            self.init(property: words[..<index].joined(separator: " "), comparison: comparison, values: values)
        }
    }

    /// One sort key: a property by its title, and which way.
    public struct SortKey: Sendable, Hashable, Codable {
        public var property: String
        public var descending: Bool

        public init(property: String, descending: Bool = false) {
            self.property = property
            self.descending = descending
        }

        /// A key written as `Name`, `Watts:desc` or `Watts:asc`.
        public init(parsing text: String) {
            let lowered = text.lowercased()
            for suffix in [":desc", ":asc"] where lowered.hasSuffix(suffix) {
                self.init(property: String(text.dropLast(suffix.count)), descending: suffix == ":desc")
                return
            }
            self.init(property: text)
        }
    }

    /// The parameter whose choices to search; nil for the control's only searchable one.
    public var parameter: String?
    public var conditions: [Condition]
    /// Whether any condition may hold (`--any`) rather than all.
    public var matchesAny: Bool
    public var sort: [SortKey]
    public var limit: Int?

    public init(parameter: String? = nil, conditions: [Condition] = [], matchesAny: Bool = false, sort: [SortKey] = [], limit: Int? = nil) {
        self.parameter = parameter
        self.conditions = conditions
        self.matchesAny = matchesAny
        self.sort = sort
        self.limit = limit
    }
}

/// A find that names a property, comparison or value the query does not have.
public struct EntityFindError: Error, Sendable, Hashable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

extension EntityPropertyQuery {
    /// Runs a find: each condition mapped by its property's comparator, the sort keys matched to
    /// the sorting options, then ``entities(matching:mode:sortedBy:limit:)``.
    func find(_ find: EntityFind) async throws -> [Entity] {
        // Titles live on each entity's properties: read them from one the query offers.
        var sample = try await suggestedEntities().first
        if sample == nil { sample = try await entities(matching: [], mode: .and, sortedBy: [], limit: 1).first }
        guard let sample else { return [] }
        let declarations = Self.properties.properties
        let titles = declarations.compactMap { $0.title(sample) }
        var mapped: [ComparatorMappingType] = []
        for condition in find.conditions {
            guard let declaration = declarations.first(where: { $0.title(sample)?.lowercased() == condition.property.lowercased() }) else {
                throw EntityFindError("\(Entity.typeDisplayRepresentation.name.key) has no property \"\(condition.property)\" to find by (properties: \(titles.joined(separator: ", ")))")
            }
            let title = declaration.title(sample) ?? condition.property
            guard let comparator = declaration.comparators.first(where: { $0.comparison == condition.comparison }) else {
                throw EntityFindError("\(title) cannot be compared with \(condition.comparison.rawValue) (it can with: \(declaration.comparators.map(\.comparison.rawValue).joined(separator: " ")))")
            }
            guard condition.values.count == condition.comparison.valueCount, let value = try await comparator.map(condition.values) else {
                throw EntityFindError("\(title) \(condition.comparison.rawValue): \(condition.values.map { "\"\($0)\"" }.joined(separator: " and ")) is not a value of \(title)")
            }
            mapped.append(value)
        }
        var sorts: [EntityQuerySort<Entity>] = []
        for key in find.sort {
            guard let option = Self.sortingOptions.options.first(where: { $0.title(on: sample)?.lowercased() == key.property.lowercased() }) else {
                let sortable = Self.sortingOptions.options.compactMap { $0.title(on: sample) }
                throw EntityFindError("\(Entity.typeDisplayRepresentation.name.key) cannot be sorted by \"\(key.property)\" (by: \(sortable.isEmpty ? "nothing" : sortable.joined(separator: ", ")))")
            }
            sorts.append(EntityQuerySort(by: option.keyPath, order: key.descending ? .descending : .ascending))
        }
        if let limit = find.limit, limit < 1 { throw EntityFindError("a limit is at least 1, not \(limit)") }
        return try await entities(matching: mapped, mode: find.matchesAny ? .or : .and, sortedBy: sorts, limit: find.limit)
    }
}
