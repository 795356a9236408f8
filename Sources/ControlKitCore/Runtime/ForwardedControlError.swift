/// The answer of the place a request was performed at, when that is not here (a control on
/// another node): its code, and so whether it was refused, dropped, replaced or failed, is this
/// request's own. ``ControlCenter`` passes it on unchanged, under the control that performed it
/// here; any other error a control's `perform()` throws is this control's failure.
public struct ForwardedControlError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What the other place answered.
    public var error: ControlError

    public init(_ error: ControlError) {
        self.error = error
    }

    /// The answer's words; under its control's name when it names one.
    public var description: String { error.kind == nil && error.placement == nil ? error.detail : error.description }
}
