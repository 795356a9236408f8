/// A rendered template as plain data: what a control extension sends its daemon for a `snapshot`
/// command. The daemon rebuilds a ``TemplateSnapshot`` from it whose action asks the extension to
/// `act`, so the daemon's own rules (placements, lock, presentation) apply to extension controls.
public struct ControlSnapshot: Sendable, Hashable, Codable {
    public var title: String
    public var template: ControlTemplateKind
    /// A toggle's state.
    public var isOn: Bool?
    /// A toggle's labels for on and off, or a button's label as `on`.
    public var on: ResolvedLabel
    public var off: ResolvedLabel?
    public var tint: Color?
    public var privacySensitive: Bool
    public var standingStatus: String?
    /// True when the template is disabled; absent otherwise.
    public var disabled: Bool?
    /// The intent's title and policy.
    public var actionTitle: String
    public var authenticationPolicy: IntentAuthenticationPolicy
    public var opensTarget: Bool
    /// True when the intent's `openAppWhenRun` is (absent otherwise).
    public var opensApp: Bool?

    /// The data of a rendered template.
    public init(_ snapshot: TemplateSnapshot) {
        title = snapshot.title
        template = snapshot.template
        switch snapshot.style {
        case .toggle(let isOn, let on, let off):
            self.isOn = isOn
            self.on = on
            self.off = off
        case .button(let label):
            on = label
        }
        tint = snapshot.tint
        privacySensitive = snapshot.isPrivacySensitive
        standingStatus = snapshot.standingStatus
        disabled = snapshot.isDisabled ? true : nil
        actionTitle = snapshot.action.title
        authenticationPolicy = snapshot.action.authenticationPolicy
        opensTarget = snapshot.action.opensTarget
        opensApp = snapshot.action.opensApp ? true : nil
    }

    /// The template again, with an action that runs `perform` (which asks the extension to act).
    public func template(perform: @escaping @Sendable (_ newValue: Bool?) async throws -> any IntentResult) -> TemplateSnapshot {
        let style: TemplateSnapshot.Style = switch template {
        case .toggle: .toggle(isOn: isOn ?? false, on: on, off: off ?? ResolvedLabel())
        case .button: .button(on)
        }
        return TemplateSnapshot(
            title: title, style: style, tint: tint, isPrivacySensitive: privacySensitive, standingStatus: standingStatus,
            isDisabled: disabled ?? false,
            action: ControlAction(title: actionTitle, authenticationPolicy: authenticationPolicy, opensTarget: opensTarget, opensApp: opensApp ?? false, perform: perform)
        )
    }
}
