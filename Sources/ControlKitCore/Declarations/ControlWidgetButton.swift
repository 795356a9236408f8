/// A control that performs one action: open the garage door, run a scene.
///
/// Mirrors WidgetKit's `ControlWidgetButton`. The label's text is the button's title and its
/// image the symbol. The action label is what the button shows while its action is performed
/// (`actionLabel(true)`): on a board its text is the button's momentary status after a press
/// ("Opening…"), unless the label sets one with `controlWidgetStatus(_:)`.
public struct ControlWidgetButton<Label: View, ActionLabel: View, Action: AppIntent>: ControlWidgetTemplate {
    let action: Action
    let label: ResolvedLabel

    /// A button performing an intent, with a label, and an action label for while it performs.
    public init(action: Action, @ViewBuilder label: @escaping () -> Label, @ViewBuilder actionLabel: @escaping (Bool) -> ActionLabel) {
        self.init(action: action, label: ResolvedLabel(label()), actionLabel: ResolvedLabel(actionLabel(true)))
    }

    init(action: Action, label: ResolvedLabel, actionLabel: ResolvedLabel) {
        self.action = action
        var label = label
        if label.status == nil { label.status = actionLabel.status ?? actionLabel.text }
        self.label = label
    }

    public typealias Body = Never
}

extension ControlWidgetButton where ActionLabel == ControlWidgetButtonDefaultActionLabel {
    /// A button performing an intent, with a label.
    public init(action: Action, @ViewBuilder label: @escaping () -> Label) {
        self.init(action: action, label: ResolvedLabel(label()), actionLabel: ResolvedLabel())
    }
}

extension ControlWidgetButton where Label == Text {
    /// A button titled with a string literal, and an action label for while it performs.
    public init(_ titleKey: LocalizedStringKey, action: Action, @ViewBuilder actionLabel: @escaping (Bool) -> ActionLabel) {
        self.init(action: action, label: { Text(titleKey) }, actionLabel: actionLabel)
    }

    /// A button titled with a string resource, and an action label for while it performs.
    @_disfavoredOverload
    public init(_ titleResource: LocalizedStringResource, action: Action, @ViewBuilder actionLabel: @escaping (Bool) -> ActionLabel) {
        self.init(action: action, label: { Text(titleResource) }, actionLabel: actionLabel)
    }

    /// A button titled with any string value, such as an entity's name, and an action label.
    @_disfavoredOverload
    public init(_ title: some StringProtocol, action: Action, @ViewBuilder actionLabel: @escaping (Bool) -> ActionLabel) {
        let title = String(title)
        self.init(action: action, label: { Text(title) }, actionLabel: actionLabel)
    }
}

extension ControlWidgetButton where Label == ControlKitCore.Label<Text, Image>, ActionLabel == ControlWidgetButtonDefaultActionLabel {
    /// A button with a title and a symbol (a Switchboard shorthand for
    /// `ControlWidgetButton(action:) { Label(title, systemImage:) }`).
    public init(_ title: LocalizedStringResource, systemImage: String, action: Action) {
        self.init(action: action) { ControlKitCore.Label(title, systemImage: systemImage) }
    }
}

/// What a ``ControlWidgetButton`` made without an action label shows while it performs: its
/// label, with no status of its own.
///
/// Mirrors WidgetKit's `ControlWidgetButtonDefaultActionLabel`; you do not create it yourself.
public struct ControlWidgetButtonDefaultActionLabel: View {
    public typealias Body = Never
}

extension ControlWidgetButtonDefaultActionLabel: _PrimitiveView {
    func _resolve(into label: inout ResolvedLabel) {}
}

extension ControlWidgetButton: PrimitiveControlTemplate {
    var snapshot: TemplateSnapshot {
        let action = self.action
        return TemplateSnapshot(
            title: label.text ?? Action.title.key,
            style: .button(label),
            action: ControlAction(action) { _ in try await action.performOpeningIntents() }
        )
    }
}
