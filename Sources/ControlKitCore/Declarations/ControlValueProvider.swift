/// Provides a control's value: a quick, canned preview for the controls gallery, and the current
/// value fetched (perhaps slowly, perhaps from another home system) each time the control reloads.
///
/// Mirrors WidgetKit's `ControlValueProvider`. Throwing from ``currentValue()`` keeps the control's
/// last good presentation, marks it stale, and retries later with backoff.
public protocol ControlValueProvider: Sendable {
    /// The value a control's content is built from: `Bool` for a plain toggle, or a richer struct.
    associatedtype Value: Sendable
    /// The value shown in the controls gallery: predetermined, quick, and the off state.
    var previewValue: Value { get }
    /// The value now.
    func currentValue() async throws -> Value
}

/// Provides a configurable control's value from its configuration ("which light").
///
/// Mirrors WidgetKit's `AppIntentControlValueProvider`.
public protocol AppIntentControlValueProvider: Sendable {
    /// The intent whose parameters configure the control.
    associatedtype Configuration: ControlConfigurationIntent
    /// The value a control's content is built from.
    associatedtype Value: Sendable
    /// The value shown in the controls gallery for a configuration.
    func previewValue(configuration: Configuration) -> Value
    /// The value now, for a configuration.
    func currentValue(configuration: Configuration) async throws -> Value
}

/// The provider of a control declared without one: its content needs no value.
public struct EmptyControlValueProvider: ControlValueProvider {
    public init() {}
    public var previewValue: Void { () }
    public func currentValue() async throws {}
}
