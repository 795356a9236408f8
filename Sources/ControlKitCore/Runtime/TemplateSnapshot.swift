/// A rendered template: everything the runtime keeps from a control's content for one value.
///
/// Templates are evaluated on the main actor; their snapshot is plain data every surface can read.
public struct TemplateSnapshot: Sendable {
    /// A toggle with its state and the labels for both states, or a button with its label.
    public enum Style: Sendable {
        case toggle(isOn: Bool, on: ResolvedLabel, off: ResolvedLabel)
        case button(ResolvedLabel)
    }

    /// The control's title.
    public var title: String
    /// Toggle or button.
    public var style: Style
    /// The tint set with `tint(_:)`, if any.
    public var tint: Color?
    /// Whether `privacySensitive()` was applied.
    public var isPrivacySensitive: Bool
    /// A status that shows for as long as the template says so, not only after an action: a
    /// Switchboard addition for states with a time limit ("Off in 9:41"). A momentary status from
    /// `controlWidgetStatus` shows in its place during its window.
    public var standingStatus: String?
    /// Whether `disabled(true)` was applied: the control shows, but does not perform.
    public var isDisabled: Bool
    /// The configured intent this render used, for a configurable control.
    var configurationIntent: (any ControlConfigurationIntent)?
    /// The control's action.
    public var action: ControlAction

    /// Creates a snapshot; used by the templates and by controls declared in devices.json.
    public init(title: String, style: Style, tint: Color? = nil, isPrivacySensitive: Bool = false, standingStatus: String? = nil,
                isDisabled: Bool = false, action: ControlAction) {
        self.title = title
        self.style = style
        self.tint = tint
        self.isPrivacySensitive = isPrivacySensitive
        self.standingStatus = standingStatus
        self.isDisabled = isDisabled
        self.action = action
    }

    /// Toggle or button.
    public var template: ControlTemplateKind {
        switch style {
        case .toggle: .toggle
        case .button: .button
        }
    }

    /// A toggle's state; nil for a button.
    public var isOn: Bool? {
        if case .toggle(let isOn, _, _) = style { return isOn }
        return nil
    }

    /// The label of the state the control is in now.
    public var currentLabel: ResolvedLabel {
        switch style {
        case .toggle(let isOn, let on, let off): isOn ? on : off
        case .button(let label): label
        }
    }

    mutating func setActionHint(_ hint: String) {
        updateLabels { $0.actionHint = hint }
    }

    mutating func setStatus(_ status: String) {
        updateLabels { $0.status = status }
    }

    private mutating func updateLabels(_ update: (inout ResolvedLabel) -> Void) {
        switch style {
        case .toggle(let isOn, var on, var off):
            update(&on)
            update(&off)
            style = .toggle(isOn: isOn, on: on, off: off)
        case .button(var label):
            update(&label)
            style = .button(label)
        }
    }
}

/// Whether a control is a toggle or a button.
public enum ControlTemplateKind: String, Sendable, Hashable, Codable, CaseIterable {
    case toggle
    case button
}

/// A control's action, with the intent erased: what runs when the control performs.
public struct ControlAction: Sendable {
    /// The intent's title.
    public let title: String
    /// Whether the action needs Switchboard unlocked or an authenticated caller.
    public let authenticationPolicy: IntentAuthenticationPolicy
    /// Whether the intent is an ``OpenIntent``.
    public let opensTarget: Bool
    /// Whether the intent's `openAppWhenRun` is true.
    public let opensApp: Bool
    /// Whether the action may block its thread (storage it waits for, a control's own code): the
    /// center then runs it off its loop, on the cooperative pool. An action that only suspends
    /// runs where the center was asked, on the center's loop for a command that arrived there.
    public let mayBlock: Bool
    private let body: @Sendable (Bool?) async throws -> any IntentResult

    /// An action with its policy and body given directly (controls declared in devices.json).
    public init(
        title: String,
        authenticationPolicy: IntentAuthenticationPolicy = .alwaysAllowed,
        opensTarget: Bool = false,
        opensApp: Bool = false,
        mayBlock: Bool = true,
        perform: @escaping @Sendable (_ newValue: Bool?) async throws -> any IntentResult
    ) {
        self.title = title
        self.authenticationPolicy = authenticationPolicy
        self.opensTarget = opensTarget
        self.opensApp = opensApp
        self.mayBlock = mayBlock
        self.body = perform
    }

    /// An action that performs an intent.
    init<Intent: AppIntent>(_ intent: Intent, perform: @escaping @Sendable (Bool?) async throws -> any IntentResult) {
        self.init(
            title: Intent.title.key,
            authenticationPolicy: Intent.authenticationPolicy,
            opensTarget: intent is any OpenIntent,
            opensApp: Intent.openAppWhenRun,
            perform: perform
        )
    }

    /// Performs the action; a toggle's new state is `newValue`.
    public func perform(newValue: Bool?) async throws -> any IntentResult {
        try await body(newValue)
    }
}
