/// A string that a control shows to people: a title, a hint, a value text.
///
/// Mirrors Foundation's `LocalizedStringResource` as controls use it: built from string literals
/// and interpolations. Switchboard renders the key text itself (no localization tables on a board).
public struct LocalizedStringResource: Sendable, Hashable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The text, with interpolations already applied.
    public var key: String

    /// Creates a resource from a text.
    public init(_ key: String) { self.key = key }

    public init(stringLiteral value: String) { self.key = value }

    public init(stringInterpolation: DefaultStringInterpolation) {
        self.key = String(stringInterpolation: stringInterpolation)
    }

    public var description: String { key }
}

extension String {
    /// The text of a resource.
    public init(localized resource: LocalizedStringResource) { self = resource.key }
}
