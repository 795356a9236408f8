/// Something a ``WidgetBundle`` lists. Controls are ``ControlWidget``s; Home Screen widgets may be
/// listed too, so that bundles written for WidgetKit compile, but Switchboard shows only controls.
@MainActor @preconcurrency
public protocol Widget {
    /// The widget's configuration type.
    associatedtype Body: WidgetConfiguration
    /// The widget's configuration.
    var body: Body { get }
}

/// A Home Screen widget's configuration. Switchboard shows none, but accepts them.
@MainActor @preconcurrency
public protocol WidgetConfiguration {}

/// A widget configuration with nothing in it.
public struct EmptyWidgetConfiguration: WidgetConfiguration {
    public init() {}
}

/// The controls (and widgets) an extension provides, in the order the controls gallery lists them.
///
/// Mark a bundle `@main` and its executable becomes a Switchboard control extension: see ``main()``.
@MainActor @preconcurrency
public protocol WidgetBundle {
    /// The type of the bundle's content.
    associatedtype Body: Widget
    init()
    /// The bundle's widgets and controls, listed in gallery order.
    @WidgetBundleBuilder var body: Body { get }
    /// The default display name of the bundle's controls (a Switchboard addition, with a default).
    nonisolated static var bundleDisplayName: String { get }
}

extension WidgetBundle {
    /// The bundle's name, the default display name of its controls: the type's name without a
    /// trailing "Bundle" or "Extension", in words ("ProductivityExtensionBundle" → "Productivity").
    nonisolated public static var bundleDisplayName: String {
        bundleDisplayName(ofTypeNamed: String(describing: Self.self))
    }

    /// A type's name as a bundle's display name.
    nonisolated static func bundleDisplayName(ofTypeNamed typeName: String) -> String {
        var name = typeName
        for suffix in ["Bundle", "Extension"] where name.hasSuffix(suffix) && name.count > suffix.count {
            name.removeLast(suffix.count)
        }
        var words = ""
        for (index, character) in name.enumerated() {
            let previous = index > 0 ? name[name.index(name.startIndex, offsetBy: index - 1)] : nil
            if character.isUppercase, let previous, previous.isLowercase || previous.isNumber { words.append(" ") }
            words.append(character)
        }
        return words
    }

    /// The definitions of the bundle's controls, in bundle order.
    public var controlDefinitions: [ControlDefinition] {
        var definitions: [ControlDefinition] = []
        collectControls(body, into: &definitions)
        return definitions
    }
}

/// Builds a bundle's content from the widgets and controls listed in its `body`.
@resultBuilder
@MainActor
public enum WidgetBundleBuilder {
    public static func buildExpression<W: Widget>(_ widget: W) -> W { widget }
    public static func buildExpression<C: ControlWidget>(_ control: C) -> ControlWidgetEntry<C> { ControlWidgetEntry(control: control) }
    public static func buildBlock() -> EmptyWidgetBundleContent { EmptyWidgetBundleContent() }
    public static func buildPartialBlock<W: Widget>(first: W) -> W { first }
    public static func buildPartialBlock<First: Widget, Next: Widget>(accumulated: First, next: Next) -> WidgetPair<First, Next> {
        WidgetPair(first: accumulated, second: next)
    }
    public static func buildOptional<W: Widget>(_ widget: W?) -> OptionalWidget<W> { OptionalWidget(widget: widget) }
}

/// A control as the bundle builder lists it.
public struct ControlWidgetEntry<Control: ControlWidget>: Widget {
    let control: Control
    public var body: EmptyWidgetConfiguration { EmptyWidgetConfiguration() }
}

/// Two entries of a bundle, one after the other.
public struct WidgetPair<First: Widget, Second: Widget>: Widget {
    let first: First
    let second: Second
    public var body: EmptyWidgetConfiguration { EmptyWidgetConfiguration() }
}

/// An entry listed under an `if`.
public struct OptionalWidget<Wrapped: Widget>: Widget {
    let widget: Wrapped?
    public var body: EmptyWidgetConfiguration { EmptyWidgetConfiguration() }
}

/// A bundle with nothing in it.
public struct EmptyWidgetBundleContent: Widget {
    public var body: EmptyWidgetConfiguration { EmptyWidgetConfiguration() }
}

/// Bundle content that holds controls.
@MainActor
protocol BundleContent {
    func collect(into definitions: inout [ControlDefinition])
}

@MainActor
func collectControls<W: Widget>(_ widget: W, into definitions: inout [ControlDefinition]) {
    (widget as? any BundleContent)?.collect(into: &definitions)
}

extension ControlWidgetEntry: BundleContent {
    func collect(into definitions: inout [ControlDefinition]) { definitions.append(ControlDefinition(Control.self)) }
}

extension WidgetPair: BundleContent {
    func collect(into definitions: inout [ControlDefinition]) {
        collectControls(first, into: &definitions)
        collectControls(second, into: &definitions)
    }
}

extension OptionalWidget: BundleContent {
    func collect(into definitions: inout [ControlDefinition]) {
        if let widget { collectControls(widget, into: &definitions) }
    }
}
