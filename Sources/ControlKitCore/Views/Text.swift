/// A run of text in a control's template, such as its title or value text.
public struct Text: View, Sendable, Hashable {
    /// The text shown.
    public let content: String

    /// Creates a text from a literal or interpolated string.
    public init(_ key: LocalizedStringKey) { content = key.key }

    /// Creates a text from a string resource.
    @_disfavoredOverload
    public init(_ resource: LocalizedStringResource) { content = resource.key }

    /// Creates a text from any string value.
    @_disfavoredOverload
    public init<S: StringProtocol>(_ content: S) { self.content = String(content) }

    /// Creates a text with its content verbatim.
    public init(verbatim content: String) { self.content = content }

    public typealias Body = Never
}

extension Text: _PrimitiveView {
    func _resolve(into label: inout ResolvedLabel) {
        if label.text == nil { label.text = content }
    }
}
