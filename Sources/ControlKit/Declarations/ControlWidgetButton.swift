/// A control that performs one action: open the garage door, run a scene.
///
/// Mirrors WidgetKit's `ControlWidgetButton`. The label's text is the button's title and its
/// image the symbol.
public struct ControlWidgetButton<Label: View, Action: AppIntent>: ControlWidgetTemplate {
    let action: Action
    let label: ResolvedLabel

    /// A button performing an intent, with a label.
    public init(action: Action, @ViewBuilder label: () -> Label) {
        self.action = action
        self.label = ResolvedLabel(label())
    }

    public typealias Body = Never
}

extension ControlWidgetButton where Label == ControlKit.Label<Text, Image> {
    /// A button with a title and a symbol.
    public init(_ title: LocalizedStringResource, systemImage: String, action: Action) {
        self.init(action: action) { ControlKit.Label(title, systemImage: systemImage) }
    }
}

extension ControlWidgetButton: PrimitiveControlTemplate {
    var snapshot: TemplateSnapshot {
        let action = self.action
        return TemplateSnapshot(
            title: label.text ?? Action.title.key,
            style: .button(label),
            action: ControlAction(action) { _ in try await action.perform() }
        )
    }
}
