/// The template of a control's content: a ``ControlWidgetToggle`` or a ``ControlWidgetButton``.
///
/// Mirrors WidgetKit's `ControlWidgetTemplate`.
@MainActor @preconcurrency
public protocol ControlWidgetTemplate {
    /// The template this one is made of.
    associatedtype Body: ControlWidgetTemplate
    /// The content of this template.
    var body: Body { get }
}

extension ControlWidgetTemplate where Body == Never {
    public var body: Never { fatalError("\(Self.self) is a primitive template and has no body") }
}

extension Never: ControlWidgetTemplate {}

/// A template the runtime reads directly.
@MainActor
protocol PrimitiveControlTemplate {
    var snapshot: TemplateSnapshot { get }
}

@MainActor
func resolveTemplate<T: ControlWidgetTemplate>(_ template: T) -> TemplateSnapshot {
    if let primitive = template as? any PrimitiveControlTemplate { return primitive.snapshot }
    return resolveTemplate(template.body)
}

/// Builds a control's template from its configuration's content closure.
@resultBuilder
@MainActor
public enum ControlWidgetTemplateBuilder {
    public static func buildBlock<Content: ControlWidgetTemplate>(_ content: Content) -> Content { content }
    public static func buildEither<TrueContent: ControlWidgetTemplate, FalseContent: ControlWidgetTemplate>(
        first: TrueContent
    ) -> ConditionalTemplate<TrueContent, FalseContent> {
        ConditionalTemplate(storage: .trueContent(first))
    }
    public static func buildEither<TrueContent: ControlWidgetTemplate, FalseContent: ControlWidgetTemplate>(
        second: FalseContent
    ) -> ConditionalTemplate<TrueContent, FalseContent> {
        ConditionalTemplate(storage: .falseContent(second))
    }
    public static func buildLimitedAvailability<Content: ControlWidgetTemplate>(_ content: Content) -> Content { content }
}

/// One of two templates, chosen by an `if` in a content closure.
public struct ConditionalTemplate<TrueContent: ControlWidgetTemplate, FalseContent: ControlWidgetTemplate>: ControlWidgetTemplate {
    enum Storage {
        case trueContent(TrueContent)
        case falseContent(FalseContent)
    }
    let storage: Storage
    public typealias Body = Never
}

extension ConditionalTemplate: PrimitiveControlTemplate {
    var snapshot: TemplateSnapshot {
        switch storage {
        case .trueContent(let template): resolveTemplate(template)
        case .falseContent(let template): resolveTemplate(template)
        }
    }
}

extension ControlWidgetTemplate {
    /// Tints the symbol and value text while a toggle is on (the system blue when unset).
    public func tint(_ tint: Color?) -> ModifiedTemplate<Self> {
        ModifiedTemplate(base: self) { $0.tint = tint }
    }

    /// Whether people can use the control: a disabled control still shows its value, marked
    /// disabled, but every surface's request to perform it (the CLI, MQTT, Home Assistant, the
    /// Action button) is refused with ``ControlError/Code/disabled`` and nothing runs.
    public func disabled(_ disabled: Bool) -> ModifiedTemplate<Self> {
        ModifiedTemplate(base: self) { $0.isDisabled = disabled }
    }

    /// Redacts the control's value while Switchboard is locked.
    public func privacySensitive(_ sensitive: Bool = true) -> ModifiedTemplate<Self> {
        ModifiedTemplate(base: self) { $0.isPrivacySensitive = sensitive }
    }

    /// Sets the action hint for the control's action, whatever its state.
    public func controlWidgetActionHint(_ hint: LocalizedStringResource) -> ModifiedTemplate<Self> {
        ModifiedTemplate(base: self) { $0.setActionHint(hint.key) }
    }

    /// Sets the action hint from any string value.
    @_disfavoredOverload
    public func controlWidgetActionHint<S: StringProtocol>(_ hint: S) -> ModifiedTemplate<Self> {
        ModifiedTemplate(base: self) { $0.setActionHint(String(hint)) }
    }

    /// Sets the momentary status shown after the action is performed.
    public func controlWidgetStatus(_ status: LocalizedStringResource) -> ModifiedTemplate<Self> {
        ModifiedTemplate(base: self) { $0.setStatus(status.key) }
    }

    /// Sets the status from any string value.
    @_disfavoredOverload
    public func controlWidgetStatus<S: StringProtocol>(_ status: S) -> ModifiedTemplate<Self> {
        ModifiedTemplate(base: self) { $0.setStatus(String(status)) }
    }
}

/// A template with a tint, privacy, hint or status applied.
public struct ModifiedTemplate<Base: ControlWidgetTemplate>: ControlWidgetTemplate {
    let base: Base
    let modify: (inout TemplateSnapshot) -> Void
    public typealias Body = Never
}

extension ModifiedTemplate: PrimitiveControlTemplate {
    var snapshot: TemplateSnapshot {
        var snapshot = resolveTemplate(base)
        modify(&snapshot)
        return snapshot
    }
}
