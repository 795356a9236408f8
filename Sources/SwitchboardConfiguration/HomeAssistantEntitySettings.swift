/// How a placement appears in Home Assistant: devices.json's optional `homeAssistant` block on a
/// placement. Every field is optional; without the block a toggle is a `switch` and a button a
/// `button`, with the icon of the symbol the control shows, enabled, on the node's device.
public struct HomeAssistantEntitySettings: Sendable, Equatable {
    /// The Home Assistant entity kind of a toggle.
    public enum Component: String, Sendable, CaseIterable {
        case `switch`
        case light
        case fan
    }

    /// The kind of entity for a toggle (a button is always a `button`).
    public var component: Component?
    /// Home Assistant's `device_class` (`outlet` for a switch, `restart` for a button …).
    public var deviceClass: String?
    /// An `mdi:` icon that replaces the one mapped from the control's symbol.
    public var icon: String?
    /// `config` or `diagnostic`: shown apart from the controls in Home Assistant.
    public var entityCategory: EntityCategory?
    /// False: Home Assistant adds the entity disabled, for the user to enable.
    public var enabled: Bool
    /// A Home Assistant area: the placement becomes a device of its own in that area (its
    /// `suggested_area`), linked to the node's device.
    public var area: String?

    public enum EntityCategory: String, Sendable, CaseIterable {
        case config
        case diagnostic
    }

    public init(component: Component? = nil, deviceClass: String? = nil, icon: String? = nil, entityCategory: EntityCategory? = nil, enabled: Bool = true, area: String? = nil) {
        self.component = component
        self.deviceClass = deviceClass
        self.icon = icon
        self.entityCategory = entityCategory
        self.enabled = enabled
        self.area = area
    }
}
