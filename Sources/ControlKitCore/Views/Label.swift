/// A title and a symbol together: in a toggle's value label the title becomes the value text
/// ("Running" instead of "On"), in a button's label it becomes the button's title.
public struct Label<Title: View, Icon: View>: View {
    /// The text part.
    public let title: Title
    /// The symbol part.
    public let icon: Icon

    /// Creates a label from any title and icon views.
    public init(@ViewBuilder title: () -> Title, @ViewBuilder icon: () -> Icon) {
        self.title = title()
        self.icon = icon()
    }

    public typealias Body = Never
}

extension Label: Sendable where Title: Sendable, Icon: Sendable {}

extension Label where Title == Text, Icon == Image {
    /// Creates a label with a text and a system symbol, as in `Label("Running", systemImage: "hourglass")`.
    public init(_ titleKey: LocalizedStringKey, systemImage name: String) {
        self.title = Text(titleKey)
        self.icon = Image(systemName: name)
    }

    /// Creates a label from a string resource and a system symbol.
    @_disfavoredOverload
    public init(_ title: LocalizedStringResource, systemImage name: String) {
        self.title = Text(title)
        self.icon = Image(systemName: name)
    }

    /// Creates a label with a text and an image from the app's assets. A board has no asset
    /// catalog: the image's name is kept as the label's symbol, as `systemImage` is, and each
    /// surface draws it its own way (the terminal shows its generic glyph for names it does not
    /// know).
    public init(_ titleKey: LocalizedStringKey, image name: String) {
        self.title = Text(titleKey)
        self.icon = Image(name)
    }

    /// Creates a label from a string resource and an image from the app's assets.
    @_disfavoredOverload
    public init(_ title: LocalizedStringResource, image name: String) {
        self.title = Text(title)
        self.icon = Image(name)
    }

    /// Creates a label from any string value and an image from the app's assets.
    @_disfavoredOverload
    public init<S: StringProtocol>(_ title: S, image name: String) {
        self.title = Text(title)
        self.icon = Image(name)
    }

    /// Creates a label from any string value and a system symbol.
    @_disfavoredOverload
    public init<S: StringProtocol>(_ title: S, systemImage name: String) {
        self.title = Text(title)
        self.icon = Image(systemName: name)
    }
}

extension Label: _PrimitiveView {
    func _resolve(into label: inout ResolvedLabel) {
        resolveView(title, into: &label)
        resolveView(icon, into: &label)
    }
}
