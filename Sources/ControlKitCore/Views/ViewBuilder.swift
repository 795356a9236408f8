/// Builds a view from the views listed in a closure, keeping their concrete types.
@resultBuilder
public enum ViewBuilder {
    public static func buildBlock() -> EmptyView { EmptyView() }
    public static func buildBlock<Content: View>(_ content: Content) -> Content { content }
    public static func buildPartialBlock<Content: View>(first: Content) -> Content { first }
    public static func buildPartialBlock<First: View, Next: View>(accumulated: First, next: Next) -> TupleView<First, Next> {
        TupleView(first: accumulated, second: next)
    }
    public static func buildEither<TrueContent: View, FalseContent: View>(first: TrueContent) -> ConditionalContent<TrueContent, FalseContent> {
        ConditionalContent(storage: .trueContent(first))
    }
    public static func buildEither<TrueContent: View, FalseContent: View>(second: FalseContent) -> ConditionalContent<TrueContent, FalseContent> {
        ConditionalContent(storage: .falseContent(second))
    }
    public static func buildOptional<Content: View>(_ content: Content?) -> Content? { content }
    public static func buildLimitedAvailability<Content: View>(_ content: Content) -> Content { content }
}

/// A view with nothing in it.
public struct EmptyView: View, Sendable {
    public init() {}
    public typealias Body = Never
}

extension EmptyView: _PrimitiveView {
    func _resolve(into label: inout ResolvedLabel) {}
}

/// Two views one after the other, as a ``ViewBuilder`` block lists them.
public struct TupleView<First: View, Second: View>: View {
    public let first: First
    public let second: Second
    public typealias Body = Never
}

extension TupleView: _PrimitiveView {
    func _resolve(into label: inout ResolvedLabel) {
        resolveView(first, into: &label)
        resolveView(second, into: &label)
    }
}

/// One of two views, chosen by an `if` or `switch` in a ``ViewBuilder``.
public struct ConditionalContent<TrueContent: View, FalseContent: View>: View {
    enum Storage {
        case trueContent(TrueContent)
        case falseContent(FalseContent)
    }
    let storage: Storage
    public typealias Body = Never
}

extension ConditionalContent: _PrimitiveView {
    func _resolve(into label: inout ResolvedLabel) {
        switch storage {
        case .trueContent(let view): resolveView(view, into: &label)
        case .falseContent(let view): resolveView(view, into: &label)
        }
    }
}

extension Optional: View where Wrapped: View {
    public typealias Body = Never
}

extension Optional: _PrimitiveView where Wrapped: View {
    func _resolve(into label: inout ResolvedLabel) {
        if let view = self { resolveView(view, into: &label) }
    }
}
