/// A control that people configure with an intent's parameters: which light, which timer.
///
/// Mirrors WidgetKit's `AppIntentControlConfiguration`. Each placement keeps its own configuration.
/// With a value provider, the content closure gets the provider's value for the configured intent;
/// without one, it gets the configured intent itself.
public struct AppIntentControlConfiguration<Configuration: ControlConfigurationIntent, Content: ControlWidgetTemplate>: ControlWidgetConfiguration {
    /// The control's unique identifier.
    public let kind: String
    let content: @MainActor (RenderMode, Configuration) async throws -> Content

    /// A configurable control whose value comes from a provider given the configuration.
    public init<Provider: AppIntentControlValueProvider>(
        kind: String,
        provider: Provider,
        @ControlWidgetTemplateBuilder content: @escaping (Provider.Value) -> Content
    ) where Configuration == Provider.Configuration {
        self.kind = kind
        self.content = { mode, intent in
            switch mode {
            case .preview: content(provider.previewValue(configuration: intent))
            case .current: content(try await provider.currentValue(configuration: intent))
            }
        }
    }

    /// A configurable control declared with its configuration intent's type and a provider.
    public init<Provider: AppIntentControlValueProvider>(
        kind: String,
        intent: Configuration.Type,
        provider: Provider,
        @ControlWidgetTemplateBuilder content: @escaping (Provider.Value) -> Content
    ) where Configuration == Provider.Configuration {
        self.init(kind: kind, provider: provider, content: content)
    }

    /// A configurable control without a value provider: the content closure receives the
    /// configured intent, for a preview and for the current value alike.
    public init(
        kind: String,
        intent: Configuration.Type = Configuration.self,
        @ControlWidgetTemplateBuilder content: @escaping (Configuration) -> Content
    ) {
        self.kind = kind
        self.content = { _, intent in content(intent) }
    }

    public typealias Body = Never
}

extension AppIntentControlConfiguration: PrimitiveControlConfiguration {
    var traits: ConfigurationTraits { ConfigurationTraits() }
    var isConfigurable: Bool { true }

    var parameters: [ControlParameter] {
        get async { await ControlParameter.parameters(of: Configuration()) }
    }

    func find(_ find: EntityFind) async throws -> ControlParameter {
        try await ControlParameter.find(find, in: Configuration(), kind: kind)
    }

    func render(_ mode: RenderMode, configuration: [String: String]) async throws -> TemplateSnapshot {
        let intent = try await Configuration.configured(with: configuration, kind: kind)
        var snapshot = resolveTemplate(try await content(mode, intent))
        snapshot.configurationIntent = intent
        return snapshot
    }
}
