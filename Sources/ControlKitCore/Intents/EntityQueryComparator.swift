/// How a condition of a property query compares: the words `switchboard find` writes between a
/// property and its value (`Room = Kitchen`, `Watts between 5 and 10`).
public enum EntityQueryComparison: String, Sendable, Hashable, Codable, CaseIterable {
    case equalTo = "="
    case notEqualTo = "!="
    case lessThan = "<"
    case lessThanOrEqualTo = "<="
    case greaterThan = ">"
    case greaterThanOrEqualTo = ">="
    case contains
    case hasPrefix = "prefix"
    case hasSuffix = "suffix"
    case isBetween = "between"

    /// How many values the comparison takes.
    var valueCount: Int { self == .isBetween ? 2 : 1 }
}

/// One way a property can be compared with what someone asks for; the base class of
/// ``EqualToComparator`` and its siblings. Mirrors AppIntents' `EntityQueryComparator`: its
/// mapping transform turns the value asked for into the query's `ComparatorMappingType`, which
/// ``EntityPropertyQuery/entities(matching:mode:sortedBy:limit:)`` receives.
public class EntityQueryComparator<Property, PropertyType, InputType, ComparatorMappingType>
where Property: EntityProperty<PropertyType>, PropertyType: _IntentValue, InputType: _IntentValue {
    /// The comparison this comparator stands for.
    public let comparison: EntityQueryComparison
    let transform: ([InputType]) -> ComparatorMappingType

    init(_ comparison: EntityQueryComparison, transform: @escaping ([InputType]) -> ComparatorMappingType) {
        self.comparison = comparison
        self.transform = transform
    }

    /// The mapped value for the values written as strings, or nil if one stands for no `InputType`.
    func mapped(from strings: [String]) async throws -> ComparatorMappingType? {
        var values: [InputType] = []
        for string in strings {
            guard let value = try await InputType._parameterValue(from: string) else { return nil }
            values.append(value)
        }
        return transform(values)
    }
}

/// The property equals the value asked for.
public final class EqualToComparator<Property, PropertyType, ComparatorMappingType>: EntityQueryComparator<Property, PropertyType, PropertyType, ComparatorMappingType>
where Property: EntityProperty<PropertyType>, PropertyType: _IntentValue & Equatable {
    /// Declares `=` on the property; `mappingTransform` maps the value asked for.
    public init(mappingTransform: @escaping (PropertyType) -> ComparatorMappingType) {
        super.init(.equalTo) { mappingTransform($0[0]) }
    }
}

/// The property differs from the value asked for.
public final class NotEqualToComparator<Property, PropertyType, ComparatorMappingType>: EntityQueryComparator<Property, PropertyType, PropertyType, ComparatorMappingType>
where Property: EntityProperty<PropertyType>, PropertyType: _IntentValue & Equatable {
    /// Declares `!=` on the property; `mappingTransform` maps the value asked for.
    public init(mappingTransform: @escaping (PropertyType) -> ComparatorMappingType) {
        super.init(.notEqualTo) { mappingTransform($0[0]) }
    }
}

/// The property is less than the value asked for.
public final class LessThanComparator<Property, PropertyType, ComparatorMappingType>: EntityQueryComparator<Property, PropertyType, PropertyType, ComparatorMappingType>
where Property: EntityProperty<PropertyType>, PropertyType: _IntentValue & Comparable {
    /// Declares `<` on the property; `mappingTransform` maps the value asked for.
    public init(mappingTransform: @escaping (PropertyType) -> ComparatorMappingType) {
        super.init(.lessThan) { mappingTransform($0[0]) }
    }
}

/// The property is less than or equal to the value asked for.
public final class LessThanOrEqualToComparator<Property, PropertyType, ComparatorMappingType>: EntityQueryComparator<Property, PropertyType, PropertyType, ComparatorMappingType>
where Property: EntityProperty<PropertyType>, PropertyType: _IntentValue & Comparable {
    /// Declares `<=` on the property; `mappingTransform` maps the value asked for.
    public init(mappingTransform: @escaping (PropertyType) -> ComparatorMappingType) {
        super.init(.lessThanOrEqualTo) { mappingTransform($0[0]) }
    }
}

/// The property is greater than the value asked for.
public final class GreaterThanComparator<Property, PropertyType, ComparatorMappingType>: EntityQueryComparator<Property, PropertyType, PropertyType, ComparatorMappingType>
where Property: EntityProperty<PropertyType>, PropertyType: _IntentValue & Comparable {
    /// Declares `>` on the property; `mappingTransform` maps the value asked for.
    public init(mappingTransform: @escaping (PropertyType) -> ComparatorMappingType) {
        super.init(.greaterThan) { mappingTransform($0[0]) }
    }
}

/// The property is greater than or equal to the value asked for.
public final class GreaterThanOrEqualToComparator<Property, PropertyType, ComparatorMappingType>: EntityQueryComparator<Property, PropertyType, PropertyType, ComparatorMappingType>
where Property: EntityProperty<PropertyType>, PropertyType: _IntentValue & Comparable {
    /// Declares `>=` on the property; `mappingTransform` maps the value asked for.
    public init(mappingTransform: @escaping (PropertyType) -> ComparatorMappingType) {
        super.init(.greaterThanOrEqualTo) { mappingTransform($0[0]) }
    }
}

/// The property lies between two values asked for (AppIntents' `IsBetweenComparator`).
public final class IsBetweenComparator<Property, PropertyType, InputType, ComparatorMappingType>: EntityQueryComparator<Property, PropertyType, InputType, ComparatorMappingType>
where Property: EntityProperty<PropertyType>, PropertyType: _IntentValue, InputType: _IntentValue & Comparable, InputType == PropertyType.UnwrappedType {
    /// Declares `between … and …` on the property; `mappingTransform` maps the two values.
    public init(mappingTransform: @escaping (InputType, InputType) -> ComparatorMappingType) {
        super.init(.isBetween) { mappingTransform($0[0], $0[1]) }
    }
}

/// A text property contains the text asked for.
public final class ContainsComparator<Property, PropertyType, InputType, ComparatorMappingType>: EntityQueryComparator<Property, PropertyType, InputType, ComparatorMappingType>
where Property: EntityProperty<PropertyType>, PropertyType: _IntentValue, InputType: _IntentValue {
    /// Declares `contains` on a `String` property; `mappingTransform` maps the text asked for.
    public init(mappingTransform: @escaping (InputType) -> ComparatorMappingType) where PropertyType == String, InputType == String {
        super.init(.contains) { mappingTransform($0[0]) }
    }
}

/// A text property starts with the text asked for.
public final class HasPrefixComparator<Property, PropertyType, ComparatorMappingType>: EntityQueryComparator<Property, PropertyType, String, ComparatorMappingType>
where Property: EntityProperty<PropertyType>, PropertyType: _IntentValue {
    /// Declares `prefix` on a `String` property; `mappingTransform` maps the text asked for.
    public init(mappingTransform: @escaping (String) -> ComparatorMappingType) where PropertyType == String {
        super.init(.hasPrefix) { mappingTransform($0[0]) }
    }
}

/// A text property ends with the text asked for.
public final class HasSuffixComparator<Property, PropertyType, ComparatorMappingType>: EntityQueryComparator<Property, PropertyType, String, ComparatorMappingType>
where Property: EntityProperty<PropertyType>, PropertyType: _IntentValue {
    /// Declares `suffix` on a `String` property; `mappingTransform` maps the text asked for.
    public init(mappingTransform: @escaping (String) -> ComparatorMappingType) where PropertyType == String {
        super.init(.hasSuffix) { mappingTransform($0[0]) }
    }
}
