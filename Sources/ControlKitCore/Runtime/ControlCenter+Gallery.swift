/// A control as the controls gallery shows it: its preview, in the inactive state.
public struct ControlGalleryItem: Sendable, Hashable, Codable {
    /// The control's kind.
    public var kind: String
    /// The name people see.
    public var displayName: String
    /// What it does, shown when configuring.
    public var description: String?
    /// Whether people configure it, and with what.
    public var isConfigurable: Bool
    public var parameters: [ControlParameter]
    /// The preview: the provider's preview value, untinted, at the medium Control Center size.
    public var presentation: ControlPresentation
    /// True when its configuration names a push handler (absent otherwise).
    public var pushes: Bool?
}

extension ControlCenter {
    /// Every registered control in registration (bundle) order, rendered with its preview value in
    /// the inactive state: untinted, no status, no placement.
    public func gallery() async -> [ControlGalleryItem] {
        var items: [ControlGalleryItem] = []
        for kind in definitionOrder {
            guard let definition = definitions[kind] else { continue }
            let name = displayName(of: kind)
            let preview = ControlPlacement(id: "", kind: kind, space: .controlCenter, size: .medium)
            var presentation: ControlPresentation
            if let snapshot = try? await definition.render(.preview, configuration: [:]) {
                presentation = PresentationRules.presentation(
                    of: snapshot, placement: preview, displayName: name,
                    isLocked: false, showsStatus: false, stale: false,
                    ownDisplayName: definition.hintName
                )
                presentation.tint = nil
                presentation.needsConfiguration = definition.isConfigurable && definition.promptsForUserConfiguration
            } else {
                presentation = PresentationRules.unconfiguredPresentation(placement: preview, displayName: name, template: nil, symbol: nil)
            }
            presentation.id = nil
            items.append(ControlGalleryItem(
                kind: kind, displayName: name, description: definition.description,
                isConfigurable: definition.isConfigurable, parameters: await definition.parameters(),
                presentation: presentation, pushes: definition.pushHandler != nil ? true : nil
            ))
        }
        return items
    }
}
