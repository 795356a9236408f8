/// A control that people configure with an intent's parameters: which light, which timer.
///
/// Mirrors WidgetKit's `AppIntentControlConfiguration`. Each placement keeps its own configuration.
public struct AppIntentControlConfiguration<Provider: AppIntentControlValueProvider, Content: ControlWidgetTemplate>: ControlWidgetConfiguration {
    /// The control's unique identifier.
    public let kind: String
    let provider: Provider
    let content: (Provider.Value) -> Content

    /// A configurable control whose value comes from a provider given the configuration.
    public init(
        kind: String,
        provider: Provider,
        @ControlWidgetTemplateBuilder content: @escaping (Provider.Value) -> Content
    ) {
        self.kind = kind
        self.provider = provider
        self.content = content
    }

    /// A configurable control declared with its configuration intent's type.
    public init(
        kind: String,
        intent: Provider.Configuration.Type,
        provider: Provider,
        @ControlWidgetTemplateBuilder content: @escaping (Provider.Value) -> Content
    ) {
        self.init(kind: kind, provider: provider, content: content)
    }

    public typealias Body = Never
}

extension AppIntentControlConfiguration: PrimitiveControlConfiguration {
    var traits: ConfigurationTraits { ConfigurationTraits() }
    var isConfigurable: Bool { true }

    var parameters: [ControlParameter] {
        get async { await ControlParameter.parameters(of: Provider.Configuration()) }
    }

    func render(_ mode: RenderMode, configuration: [String: String]) async throws -> TemplateSnapshot {
        let intent = try await Provider.Configuration.configured(with: configuration, kind: kind)
        let value: Provider.Value
        switch mode {
        case .preview: value = provider.previewValue(configuration: intent)
        case .current: value = try await provider.currentValue(configuration: intent)
        }
        return resolveTemplate(content(value))
    }
}
