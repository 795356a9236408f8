/// The key of a localized string: what a string literal in a `Text`, `Label` or template title
/// is, as in SwiftUI.
///
/// Mirrors SwiftUI's `LocalizedStringKey`. Switchboard has no localization tables on a board, so
/// the key, with its interpolations applied, is the text shown.
public struct LocalizedStringKey: Sendable, Hashable, ExpressibleByStringInterpolation {
    /// The text, with interpolations already applied.
    let key: String

    /// Creates a key from a text.
    public init(_ value: String) { key = value }

    public init(stringLiteral value: String) { key = value }

    public init(stringInterpolation: DefaultStringInterpolation) {
        key = String(stringInterpolation: stringInterpolation)
    }
}
