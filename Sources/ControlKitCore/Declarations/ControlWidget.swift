/// A control: a button or toggle people place in Control Center, on the Lock Screen, or on an
/// Action button.
///
/// Mirrors WidgetKit's `ControlWidget`. The runtime creates the control and evaluates its `body`
/// each time the control reloads.
@MainActor @preconcurrency
public protocol ControlWidget {
    /// The control's configuration type.
    associatedtype Body: ControlWidgetConfiguration
    init()
    /// The control's configuration: static or configurable, its kind, its template. Statements
    /// may come before the configuration (``ControlWidgetConfigurationBuilder``).
    @ControlWidgetConfigurationBuilder var body: Body { get }
}

/// Builds a control's `body`: zero or more statements, then the one configuration.
///
/// Mirrors SwiftUI's `ControlWidgetConfigurationBuilder`.
@resultBuilder
@MainActor
public enum ControlWidgetConfigurationBuilder {
    /// A configuration written in the body.
    public static func buildExpression<Content: ControlWidgetConfiguration>(_ content: Content) -> Content { content }
    /// The body's one configuration, unmodified.
    public static func buildBlock<Content: ControlWidgetConfiguration>(_ content: Content) -> Content { content }
}

extension ControlWidget {
    /// Runs this one control as a Switchboard control extension, as a `@main` control does in a
    /// widget extension: the same as a ``WidgetBundle`` listing only this control, named after
    /// the control's type (see ``WidgetBundle/main()``).
    public static func main() async {
        await SingleControlBundle<Self>.main()
    }
}

/// The bundle of a control that is its extension's `@main`.
struct SingleControlBundle<Control: ControlWidget>: WidgetBundle {
    nonisolated static var bundleDisplayName: String { bundleDisplayName(ofTypeNamed: String(describing: Control.self)) }
    var body: ControlWidgetEntry<Control> { ControlWidgetEntry(control: Control()) }
}
