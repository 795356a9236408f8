/// The rules that turn a rendered template into what a space shows. Every rule is from the
/// WWDC24 controls session and article; where they are silent Switchboard's choice is noted.
public enum PresentationRules {
    /// The default value text of a toggle in each state.
    public static func defaultValueText(isOn: Bool) -> String { isOn ? "On" : "Off" }

    /// The action hint: what the Action button would do now, which is the action that leads to the
    /// *other* state of a toggle.
    ///
    /// - A hint set with `controlWidgetActionHint(_:)` on the target state's label: "Hold to <hint>"
    ///   ("Hold to Start").
    /// - Else a value text on the target state's label: "Hold for <text>" ("Hold for Running").
    /// - Else, for a toggle: "Hold to Turn On <display name>" / "Hold to Turn Off <display name>";
    ///   the control is named because "Turn On" alone does not say what, and by its display name
    ///   as the Action button's settings name it ("Hold to Turn On Lightswitch" for a toggle titled
    ///   "Hall Switch" with `.displayName("Lightswitch")`).
    /// - A button's own hint: "Hold to <hint>"; an `OpenIntent` button: "Hold to Open <display
    ///   name>"; any other button: "Hold for <display name>" ("Hold for Perform Action").
    ///
    /// `displayName` is the control's `.displayName(_:)` (its bundle's name when it sets none);
    /// without one, the title names it.
    public static func actionHint(for snapshot: TemplateSnapshot, displayName: String? = nil) -> String {
        let name = displayName ?? snapshot.title
        switch snapshot.style {
        case .toggle(let isOn, let on, let off):
            let target = isOn ? off : on
            if let hint = target.actionHint { return "Hold to \(hint)" }
            if let text = target.text { return "Hold for \(text)" }
            return "Hold to Turn \(isOn ? "Off" : "On") \(name)"
        case .button(let label):
            if let hint = label.actionHint { return "Hold to \(hint)" }
            if snapshot.action.opensTarget { return "Hold to Open \(name)" }
            return "Hold for \(name)"
        }
    }

    /// The hint shown while a privacy-sensitive control is redacted: it must not reveal the state,
    /// so it names the control only, by its display name.
    public static func redactedActionHint(displayName: String) -> String { "Hold for \(displayName)" }

    /// What a placement shows for a snapshot.
    ///
    /// - Title and value text are hidden on the Lock Screen and at the small size (symbol only).
    /// - Tint colours a toggle only while it is on (the system blue when none is set); a button
    ///   shows the tint it sets, and none by default.
    /// - Status shows only while `showsStatus` (the momentary window after an action); otherwise
    ///   the template's standing status, if any. A toggle shows the status of the state the action
    ///   asked for (`requested`), which is its current state unless that lags behind: a garage
    ///   door asked to open says "Opening…" while its contact still says closed.
    /// - While locked, a privacy-sensitive control hides its state: no value, value text, tint or
    ///   status, the off state's symbol, and a hint that names the control only.
    ///
    /// `ownDisplayName` is the display name that names the control in the action hint
    /// (``ControlDefinition/hintName``); without one the title does.
    public static func presentation(
        of snapshot: TemplateSnapshot,
        placement: ControlPlacement,
        displayName: String,
        isLocked: Bool,
        showsStatus: Bool,
        requested: Bool? = nil,
        stale: Bool,
        ownDisplayName: String? = nil
    ) -> ControlPresentation {
        let label = snapshot.currentLabel
        let statusLabel: ResolvedLabel
        switch (snapshot.style, requested) {
        case (.toggle(_, let on, let off), let requested?): statusLabel = requested ? on : off
        default: statusLabel = label
        }
        var presentation = ControlPresentation(
            id: placement.id, kind: placement.kind, template: snapshot.template,
            space: placement.space, size: placement.size, displayName: displayName,
            title: snapshot.title, value: snapshot.isOn, valueText: nil, symbol: label.symbol,
            tint: nil, status: (showsStatus ? statusLabel.status : nil) ?? snapshot.standingStatus,
            actionHint: actionHint(for: snapshot, displayName: ownDisplayName), stale: stale, disabled: snapshot.isDisabled
        )
        switch snapshot.style {
        case .toggle(let isOn, _, let off):
            presentation.valueText = label.text ?? defaultValueText(isOn: isOn)
            presentation.tint = isOn ? (snapshot.tint ?? Color.accentColor) : nil
            if isLocked && snapshot.isPrivacySensitive {
                presentation.value = nil
                presentation.valueText = nil
                presentation.tint = nil
                presentation.status = nil
                presentation.symbol = off.symbol
                presentation.actionHint = redactedActionHint(displayName: ownDisplayName ?? snapshot.title)
                presentation.redacted = true
            }
        case .button:
            presentation.tint = snapshot.tint
            if isLocked && snapshot.isPrivacySensitive {
                presentation.status = nil
                presentation.redacted = true
            }
        }
        if !placement.showsText {
            presentation.title = nil
            presentation.valueText = nil
        }
        return presentation
    }

    /// What a placement shows before it is configured: its name, and that it needs configuring.
    public static func unconfiguredPresentation(
        placement: ControlPlacement,
        displayName: String,
        template: ControlTemplateKind?,
        symbol: String?
    ) -> ControlPresentation {
        ControlPresentation(
            id: placement.id, kind: placement.kind, template: template,
            space: placement.space, size: placement.size, displayName: displayName,
            title: placement.showsText ? displayName : nil, value: nil, valueText: nil, symbol: symbol,
            tint: nil, status: nil, actionHint: nil, needsConfiguration: true
        )
    }
}
