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
    /// The control's configuration: static or configurable, its kind, its template.
    var body: Body { get }
}
