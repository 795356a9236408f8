import ControlKitCore

/// What an Action button says, and when.
public struct ActionButtonAnnouncement: Sendable, Equatable, Codable {
    public enum Phase: String, Sendable, Equatable, Codable {
        /// Pressed: what holding would do.
        case hint
        /// Held: the action was performed.
        case performed
        /// Released before the hold time.
        case cancelled
        /// Nothing was done: locked, or not configured.
        case refused
        /// The action's `perform()` threw.
        case failed
    }

    public var phase: Phase
    public var text: String
    /// The placement the button is bound to.
    public var control: String
    /// Why it failed, for the log and MQTT (not spoken): the error, naming what went wrong where.
    public var reason: String?

    public init(phase: Phase, text: String, control: String, reason: String? = nil) {
        self.phase = phase
        self.text = text
        self.control = control
        self.reason = reason
    }

    /// The hint on press: the control's action hint as ControlKit renders it ("Hold to Turn On
    /// Porch Light"), or why holding will do nothing.
    public static func onPress(_ presentation: ControlPresentation, locked: Bool, requiresAuthentication: Bool) -> ActionButtonAnnouncement {
        let id = presentation.id ?? presentation.kind
        if presentation.needsConfiguration {
            return ActionButtonAnnouncement(phase: .refused, text: "\(presentation.displayName) needs configuring", control: id)
        }
        if locked && requiresAuthentication {
            return ActionButtonAnnouncement(phase: .refused, text: "Unlock Switchboard to use \(name(presentation))", control: id)
        }
        return ActionButtonAnnouncement(phase: .hint, text: presentation.actionHint ?? "Hold for \(name(presentation))", control: id)
    }

    /// After performing: the control's status if it shows one, else its new value text, else its
    /// name. A toggle that reached the state asked for (`before`'s value flipped) says that state
    /// first, then any status it shows: "On, Off in 0:30" for a light with an auto-off, never the
    /// countdown alone, which would sound as if it had turned off. One still on its way (a garage
    /// door whose contact has not moved yet) says its status: "Opening…".
    public static func performed(_ presentation: ControlPresentation, dialog: String?, before: ControlPresentation? = nil) -> ActionButtonAnnouncement {
        let id = presentation.id ?? presentation.kind
        if let was = before?.value, let now = presentation.value, now != was, let valueText = presentation.valueText {
            let text = presentation.status.map { $0 == valueText ? valueText : "\(valueText), \($0)" } ?? valueText
            return ActionButtonAnnouncement(phase: .performed, text: text, control: id)
        }
        let text = presentation.status ?? presentation.valueText ?? dialog ?? name(presentation)
        return ActionButtonAnnouncement(phase: .performed, text: text, control: id)
    }

    public static func cancelled(_ presentation: ControlPresentation) -> ActionButtonAnnouncement {
        ActionButtonAnnouncement(phase: .cancelled, text: "Cancelled", control: presentation.id ?? presentation.kind)
    }

    /// A refusal or failure when performing.
    public static func notPerformed(_ presentation: ControlPresentation, error: ControlError) -> ActionButtonAnnouncement {
        let id = presentation.id ?? presentation.kind
        switch error.code {
        case .authenticationRequired:
            return ActionButtonAnnouncement(phase: .refused, text: "Unlock Switchboard to use \(name(presentation))", control: id)
        case .needsConfiguration:
            return ActionButtonAnnouncement(phase: .refused, text: "\(presentation.displayName) needs configuring", control: id)
        case .performFailed:
            return ActionButtonAnnouncement(phase: .failed, text: "\(name(presentation)) failed", control: id, reason: error.description)
        default:
            return ActionButtonAnnouncement(phase: .refused, text: "\(name(presentation)) is unavailable", control: id)
        }
    }

    static func name(_ presentation: ControlPresentation) -> String { presentation.title ?? presentation.displayName }
}
