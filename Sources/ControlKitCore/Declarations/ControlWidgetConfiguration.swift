/// A control's configuration: its kind, whether people configure it, and its template.
///
/// Mirrors WidgetKit's `ControlWidgetConfiguration`. Use ``StaticControlConfiguration`` or
/// ``AppIntentControlConfiguration`` and the modifiers below.
@MainActor @preconcurrency
public protocol ControlWidgetConfiguration {
    /// The configuration this one is made of.
    associatedtype Body: ControlWidgetConfiguration
    /// The content of this configuration.
    var body: Body { get }
}

extension ControlWidgetConfiguration where Body == Never {
    public var body: Never { fatalError("\(Self.self) is a primitive configuration and has no body") }
}

extension Never: ControlWidgetConfiguration {}

extension ControlWidgetConfiguration {
    /// The name people see for the control in the gallery; defaults to the bundle's name.
    public func displayName(_ name: LocalizedStringResource) -> ModifiedControlConfiguration<Self> {
        ModifiedControlConfiguration(base: self) { $0.displayName = name.key }
    }

    /// The name from any string value.
    @_disfavoredOverload
    public func displayName<S: StringProtocol>(_ name: S) -> ModifiedControlConfiguration<Self> {
        ModifiedControlConfiguration(base: self) { $0.displayName = String(name) }
    }

    /// What the control does, shown when configuring it.
    public func description(_ description: LocalizedStringResource) -> ModifiedControlConfiguration<Self> {
        ModifiedControlConfiguration(base: self) { $0.description = description.key }
    }

    /// The description from any string value.
    @_disfavoredOverload
    public func description<S: StringProtocol>(_ description: S) -> ModifiedControlConfiguration<Self> {
        ModifiedControlConfiguration(base: self) { $0.description = String(description) }
    }

    /// Asks people to configure the control when they place it: until they do, it shows that it
    /// needs configuring and refuses to perform.
    public func promptsForUserConfiguration() -> ModifiedControlConfiguration<Self> {
        ModifiedControlConfiguration(base: self) { $0.promptsForUserConfiguration = true }
    }
}

/// A configuration with a display name, description or configuration prompt applied.
public struct ModifiedControlConfiguration<Base: ControlWidgetConfiguration>: ControlWidgetConfiguration {
    let base: Base
    let modify: (inout ConfigurationTraits) -> Void
    public typealias Body = Never
}

/// What the configuration modifiers set.
struct ConfigurationTraits: Sendable {
    var displayName: String?
    var description: String?
    var promptsForUserConfiguration = false
    var pushHandler: ControlPushHandlerType?
}

/// A configuration the runtime can render.
@MainActor
protocol PrimitiveControlConfiguration {
    var kind: String { get }
    var traits: ConfigurationTraits { get }
    var isConfigurable: Bool { get }
    /// The parameters of the configuration intent, for configurable controls.
    var parameters: [ControlParameter] { get async }
    /// Renders the template from the preview value or the current one.
    func render(_ mode: RenderMode, configuration: [String: String]) async throws -> TemplateSnapshot
    /// The choices of a parameter that a find selects (``EntityFind``).
    func find(_ find: EntityFind) async throws -> ControlParameter
}

typealias RenderMode = ControlDefinition.Mode

@MainActor
func resolveConfiguration<C: ControlWidgetConfiguration>(_ configuration: C) -> any PrimitiveControlConfiguration {
    if let primitive = configuration as? any PrimitiveControlConfiguration { return primitive }
    return resolveConfiguration(configuration.body)
}

extension ModifiedControlConfiguration: PrimitiveControlConfiguration {
    private var resolvedBase: any PrimitiveControlConfiguration { resolveConfiguration(base) }
    var kind: String { resolvedBase.kind }
    var traits: ConfigurationTraits {
        var traits = resolvedBase.traits
        modify(&traits)
        return traits
    }
    var isConfigurable: Bool { resolvedBase.isConfigurable }
    var parameters: [ControlParameter] { get async { await resolvedBase.parameters } }
    func render(_ mode: RenderMode, configuration: [String: String]) async throws -> TemplateSnapshot {
        try await resolvedBase.render(mode, configuration: configuration)
    }
    func find(_ find: EntityFind) async throws -> ControlParameter { try await resolvedBase.find(find) }
}
