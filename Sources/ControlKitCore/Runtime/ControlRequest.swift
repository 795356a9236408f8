/// What someone asks a placed control to do.
public enum ControlRequest: Sendable, Hashable {
    /// Set a toggle to a state.
    case setValue(Bool)
    /// Flip a toggle.
    case toggle
    /// Press a button.
    case press
}

/// The outcome of a performed action.
public struct PerformOutcome: Sendable, Hashable {
    /// The control after it reloaded.
    public var presentation: ControlPresentation
    /// The dialog `perform()` returned, if any.
    public var dialog: String?
}
