extension View {
    /// Sets the action hint the Action button shows for the action that leads to this label's
    /// state: a verb phrase such as "Start", shown as "Hold to Start".
    public func controlWidgetActionHint(_ hint: LocalizedStringResource) -> ModifiedLabel<Self> {
        ModifiedLabel(content: self, actionHint: hint.key)
    }

    /// Sets the action hint from a text.
    public func controlWidgetActionHint(_ hint: Text) -> ModifiedLabel<Self> {
        ModifiedLabel(content: self, actionHint: hint.content)
    }

    /// Sets the action hint from any string value.
    @_disfavoredOverload
    public func controlWidgetActionHint<S: StringProtocol>(_ hint: S) -> ModifiedLabel<Self> {
        ModifiedLabel(content: self, actionHint: String(hint))
    }

    /// Sets a momentary status, shown for a few seconds after the control's action is performed.
    public func controlWidgetStatus(_ status: LocalizedStringResource) -> ModifiedLabel<Self> {
        ModifiedLabel(content: self, status: status.key)
    }

    /// Sets the momentary status from a text.
    public func controlWidgetStatus(_ status: Text) -> ModifiedLabel<Self> {
        ModifiedLabel(content: self, status: status.content)
    }

    /// Sets the momentary status from any string value.
    @_disfavoredOverload
    public func controlWidgetStatus<S: StringProtocol>(_ status: S) -> ModifiedLabel<Self> {
        ModifiedLabel(content: self, status: String(status))
    }
}

/// A view with an action hint or a status attached.
public struct ModifiedLabel<Content: View>: View {
    let content: Content
    var actionHint: String?
    var status: String?

    init(content: Content, actionHint: String? = nil, status: String? = nil) {
        self.content = content
        self.actionHint = actionHint
        self.status = status
    }

    public typealias Body = Never
}

extension ModifiedLabel: _PrimitiveView {
    func _resolve(into label: inout ResolvedLabel) {
        // The outermost modifier wins, as the one written last does in SwiftUI.
        if label.actionHint == nil, let actionHint { label.actionHint = actionHint }
        if label.status == nil, let status { label.status = status }
        resolveView(content, into: &label)
    }
}
