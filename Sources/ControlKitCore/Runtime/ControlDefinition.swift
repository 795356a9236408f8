/// A kind of control the runtime knows: from a Swift ``ControlWidget`` or from devices.json.
public struct ControlDefinition: Sendable {
    /// Which value a render uses.
    public enum Mode: Sendable {
        /// The provider's preview value: the gallery, and before a first good reload.
        case preview
        /// The provider's current value.
        case current
    }

    /// The control's unique identifier.
    public let kind: String
    /// The name set with `displayName(_:)`; nil means the bundle's name.
    public let displayName: String?
    /// The description set with `description(_:)`.
    public let description: String?
    /// The name the default action hint gives the control: its own display name, as the Action
    /// button names a control ("Hold to Turn On Lightswitch"). A configurable control has none:
    /// its title names what its configuration chose ("Hold to Turn On Porch Light" beside "Hold to
    /// Turn On Kitchen Light"), which one display name for all of them would not tell apart.
    public var hintName: String? { isConfigurable ? nil : displayName }
    /// Whether placing the control asks for a configuration first.
    public let promptsForUserConfiguration: Bool
    /// Whether the control has configuration parameters.
    public let isConfigurable: Bool
    /// The push handler its configuration names, if any.
    public let pushHandler: ControlPushHandlerType?
    private let loadParameters: @Sendable () async -> [ControlParameter]
    private let renderTemplate: @Sendable (Mode, [String: String]) async throws -> TemplateSnapshot
    private let findChoices: (@Sendable (EntityFind) async throws -> ControlParameter)?

    /// A definition from its parts: used for controls declared in devices.json.
    public init(
        kind: String,
        displayName: String?,
        description: String?,
        promptsForUserConfiguration: Bool = false,
        isConfigurable: Bool,
        pushHandler: ControlPushHandlerType? = nil,
        parameters: @escaping @Sendable () async -> [ControlParameter],
        find: (@Sendable (EntityFind) async throws -> ControlParameter)? = nil,
        render: @escaping @Sendable (Mode, [String: String]) async throws -> TemplateSnapshot
    ) {
        self.kind = kind
        self.displayName = displayName
        self.description = description
        self.promptsForUserConfiguration = promptsForUserConfiguration
        self.isConfigurable = isConfigurable
        self.pushHandler = pushHandler
        self.loadParameters = parameters
        self.renderTemplate = render
        self.findChoices = find
    }

    /// The definition of a Swift control: its body is evaluated again, on the main actor, at every render.
    @MainActor
    public init<Control: ControlWidget>(_ control: Control.Type) {
        let configuration = resolveConfiguration(Control().body)
        let traits = configuration.traits
        self.init(
            kind: configuration.kind,
            displayName: traits.displayName,
            description: traits.description,
            promptsForUserConfiguration: traits.promptsForUserConfiguration,
            isConfigurable: configuration.isConfigurable,
            pushHandler: traits.pushHandler,
            parameters: { @MainActor in await resolveConfiguration(Control().body).parameters },
            find: { @MainActor find in try await resolveConfiguration(Control().body).find(find) },
            render: { @MainActor mode, values in
                try await resolveConfiguration(Control().body).render(mode, configuration: values)
            }
        )
    }

    /// The configuration parameters, with their choices.
    public func parameters() async -> [ControlParameter] { await loadParameters() }

    /// The choices of a configuration parameter that a find selects: what the entity's
    /// ``EntityPropertyQuery`` answers.
    /// - Throws: ``ControlError`` `.wrongRequest` when the control has nothing to find, or the
    ///   find names a property, comparison or value the query does not have.
    public func find(_ find: EntityFind) async throws -> ControlParameter {
        guard let findChoices else { throw ControlError.notSearchable(kind: kind) }
        return try await findChoices(find)
    }

    /// Renders the control's template for a configuration. Device reads in its provider are
    /// made for this kind (``DeviceCenter/controlKind``), so its controls follow those devices.
    public func render(_ mode: Mode, configuration: [String: String]) async throws -> TemplateSnapshot {
        try await DeviceCenter.$controlKind.withValue(kind) { try await renderTemplate(mode, configuration) }
    }

    /// Renders the control's current value for a configuration and performs its action: how a
    /// control extension carries out a perform the daemon has already allowed.
    /// - Parameter newValue: a toggle's new state; nil for a button.
    /// A control whose current value cannot be read (a light that has not reported yet) acts
    /// with its preview's action, as the daemon shows and performs it.
    public func act(configuration: [String: String], newValue: Bool?) async throws -> any IntentResult {
        let snapshot: TemplateSnapshot
        do {
            snapshot = try await render(.current, configuration: configuration)
        } catch let error as ControlError where error.code == .needsConfiguration || error.code == .invalidConfiguration {
            throw error
        } catch {
            snapshot = try await render(.preview, configuration: configuration)
        }
        return try await DeviceCenter.$controlKind.withValue(kind) { try await snapshot.action.perform(newValue: newValue) }
    }
}

