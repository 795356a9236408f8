/// A control that people do not configure: the same action wherever it is placed.
///
/// Mirrors WidgetKit's `StaticControlConfiguration`.
public struct StaticControlConfiguration<Provider: ControlValueProvider, Content: ControlWidgetTemplate>: ControlWidgetConfiguration {
    /// The control's unique identifier, such as `"com.example.PorchLight"`.
    public let kind: String
    let provider: Provider
    let content: (Provider.Value) -> Content

    /// A control whose template reads its value from a provider.
    public init(
        kind: String,
        provider: Provider,
        @ControlWidgetTemplateBuilder content: @escaping (Provider.Value) -> Content
    ) {
        self.kind = kind
        self.provider = provider
        self.content = content
    }

    public typealias Body = Never
}

extension StaticControlConfiguration where Provider == EmptyControlValueProvider {
    /// A control whose template needs no provider: its state is read as the template is built.
    public init(kind: String, @ControlWidgetTemplateBuilder content: @escaping () -> Content) {
        self.init(kind: kind, provider: EmptyControlValueProvider()) { _ in content() }
    }
}

extension StaticControlConfiguration: PrimitiveControlConfiguration {
    var traits: ConfigurationTraits { ConfigurationTraits() }
    var isConfigurable: Bool { false }
    var parameters: [ControlParameter] { get async { [] } }

    func find(_ find: EntityFind) async throws -> ControlParameter {
        throw ControlError.notSearchable(kind: kind)
    }

    func render(_ mode: RenderMode, configuration: [String: String]) async throws -> TemplateSnapshot {
        let value: Provider.Value
        switch mode {
        case .preview: value = provider.previewValue
        case .current: value = try await provider.currentValue()
        }
        return resolveTemplate(content(value))
    }
}
