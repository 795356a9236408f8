/// A fixed set of choices for a parameter: the screens an ``OpenIntent`` opens, a fan's speeds.
///
/// Mirrors AppIntents' `AppEnum`.
public protocol AppEnum: _IntentValue, CaseIterable, RawRepresentable, Hashable
where RawValue: LosslessStringConvertible & Sendable {
    /// How the type is named to people.
    static var typeDisplayRepresentation: TypeDisplayRepresentation { get }
    /// How each case is shown to people.
    static var caseDisplayRepresentations: [Self: DisplayRepresentation] { get }
}

extension AppEnum {
    public var _parameterString: String { String(describing: rawValue) }

    public static func _parameterValue(from string: String) async throws -> Self? {
        guard let raw = RawValue(string) else { return nil }
        return Self(rawValue: raw)
    }

    public static func _parameterOptions() async throws -> [ParameterOption] {
        allCases.map { value in
            ParameterOption(
                id: value._parameterString,
                title: caseDisplayRepresentations[value]?.title.key ?? value._parameterString
            )
        }
    }

    public static func _defaultParameterValue() async -> Self? { allCases.first }

    public static var _parameterTypeName: String { typeDisplayRepresentation.name.key }

    /// How this case is shown to people.
    public var localizedStringResource: LocalizedStringResource {
        Self.caseDisplayRepresentations[self]?.title ?? LocalizedStringResource(_parameterString)
    }
}
