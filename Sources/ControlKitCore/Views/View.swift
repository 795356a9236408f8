/// A piece of a control's template: a text, a symbol image, a label, or a view composed of them.
///
/// Controls do not draw arbitrary views: a template keeps only a symbol, a text, an action hint
/// and a status from its views, as WidgetKit does. Define your own view with a `body` built from
/// ``Text``, ``Image`` and ``Label``.
public protocol View {
    /// The type of view this view is made of.
    associatedtype Body: View
    /// The content of this view.
    @ViewBuilder var body: Body { get }
}

extension Never: View {
    public typealias Body = Never
    public var body: Never { fatalError("Never has no body") }
}

extension View where Body == Never {
    /// Primitive views have no body: ControlKit reads them directly.
    public var body: Never { fatalError("\(Self.self) is a primitive view and has no body") }
}

/// A view that ControlKit reads directly rather than through its body.
protocol _PrimitiveView {
    func _resolve(into label: inout ResolvedLabel)
}

/// Reads what a control needs from a view: its symbol, text, action hint and status.
/// The first symbol and the first text found win, as the first image and text of a label would.
func resolveView<V: View>(_ view: V, into label: inout ResolvedLabel) {
    if let primitive = view as? any _PrimitiveView {
        primitive._resolve(into: &label)
    } else {
        resolveView(view.body, into: &label)
    }
}

/// What a control template keeps from a value label or a button label.
public struct ResolvedLabel: Sendable, Hashable, Codable {
    /// The symbol's name, if the label has an image.
    public var symbol: String?
    /// The label's text: a toggle's value text or a button's title.
    public var text: String?
    /// The verb phrase set with `controlWidgetActionHint(_:)`: the action that leads to this label's state.
    public var actionHint: String?
    /// The momentary status set with `controlWidgetStatus(_:)`.
    public var status: String?

    /// A label with the given parts.
    public init(symbol: String? = nil, text: String? = nil, actionHint: String? = nil, status: String? = nil) {
        self.symbol = symbol
        self.text = text
        self.actionHint = actionHint
        self.status = status
    }

    /// Resolves any view.
    public init<V: View>(_ view: V) {
        self.init()
        resolveView(view, into: &self)
    }
}
