/// A control that switches something on and off: a light, a fan, a timer.
///
/// Mirrors WidgetKit's `ControlWidgetToggle`. Its action is a ``SetValueIntent`` whose value is
/// the toggle's new state. The value label is built for each state: its symbol is the control's
/// symbol, its text replaces the default "On"/"Off" value text.
public struct ControlWidgetToggle<Label: View, ValueLabel: View, Action: SetValueIntent>: ControlWidgetTemplate
where Action.ValueType == Bool {
    let title: String
    let isOn: Bool
    let action: Action
    let onLabel: ResolvedLabel
    let offLabel: ResolvedLabel

    init(title: String, isOn: Bool, action: Action, valueLabel: (Bool) -> ValueLabel) {
        self.title = title
        self.isOn = isOn
        self.action = action
        self.onLabel = ResolvedLabel(valueLabel(true))
        self.offLabel = ResolvedLabel(valueLabel(false))
    }

    public typealias Body = Never
}

extension ControlWidgetToggle where Label == Text {
    /// A toggle titled with a string literal, and a value label built for each state.
    public init(
        _ titleKey: LocalizedStringKey,
        isOn: Bool,
        action: Action,
        @ViewBuilder valueLabel: @escaping (Bool) -> ValueLabel
    ) {
        self.init(title: titleKey.key, isOn: isOn, action: action, valueLabel: valueLabel)
    }

    /// A toggle titled with a string resource, and a value label built for each state.
    @_disfavoredOverload
    public init(
        _ title: LocalizedStringResource,
        isOn: Bool,
        action: Action,
        @ViewBuilder valueLabel: (Bool) -> ValueLabel
    ) {
        self.init(title: title.key, isOn: isOn, action: action, valueLabel: valueLabel)
    }

    /// A toggle whose title is any string value, such as an entity's name.
    @_disfavoredOverload
    public init<S: StringProtocol>(
        _ title: S,
        isOn: Bool,
        action: Action,
        @ViewBuilder valueLabel: (Bool) -> ValueLabel
    ) {
        self.init(title: String(title), isOn: isOn, action: action, valueLabel: valueLabel)
    }
}

extension ControlWidgetToggle where Label == Text, ValueLabel == Image {
    /// A toggle with a title and one symbol for both states.
    public init(_ title: LocalizedStringResource, systemImage: String, isOn: Bool, action: Action) {
        self.init(title: title.key, isOn: isOn, action: action) { _ in Image(systemName: systemImage) }
    }

    /// A toggle whose title is any string value, with one symbol for both states.
    @_disfavoredOverload
    public init<S: StringProtocol>(_ title: S, systemImage: String, isOn: Bool, action: Action) {
        self.init(title: String(title), isOn: isOn, action: action) { _ in Image(systemName: systemImage) }
    }
}

extension ControlWidgetToggle where ValueLabel == ControlWidgetToggleDefaultLabel {
    /// A toggle whose title is a view, with the default value labels: "On" and "Off".
    public init(isOn: Bool, action: Action, @ViewBuilder label: @escaping () -> Label) {
        self.init(isOn: isOn, action: action, label: label) { _ in ControlWidgetToggleDefaultLabel() }
    }
}

/// The value label of a ``ControlWidgetToggle`` made without one: "On" and "Off", with the
/// control's symbol.
///
/// Mirrors WidgetKit's `ControlWidgetToggleDefaultLabel`; you do not create it yourself.
public struct ControlWidgetToggleDefaultLabel: View {
    public typealias Body = Never
}

extension ControlWidgetToggleDefaultLabel: _PrimitiveView {
    func _resolve(into label: inout ResolvedLabel) {}
}

extension ControlWidgetToggle {
    /// A toggle whose title is a view.
    public init(
        isOn: Bool,
        action: Action,
        @ViewBuilder label: () -> Label,
        @ViewBuilder valueLabel: (Bool) -> ValueLabel
    ) {
        let title = ResolvedLabel(label()).text ?? Action.title.key
        self.init(title: title, isOn: isOn, action: action, valueLabel: valueLabel)
    }
}

extension ControlWidgetToggle: PrimitiveControlTemplate {
    var snapshot: TemplateSnapshot {
        let action = self.action
        return TemplateSnapshot(
            title: title,
            style: .toggle(isOn: isOn, on: onLabel, off: offLabel),
            action: ControlAction(action) { newValue in
                var intent = action
                intent.value = newValue ?? !isOn
                return try await intent.performOpeningIntents()
            }
        )
    }
}
