/// devices.json's `homekit` block: the node as a HomeKit bridge (docs/homekit.md). Without the
/// block the bridge is off.
public struct HomeKitSettings: Sendable, Equatable {
    /// The bridge's name in the Home app; the node's `name` (or its id) when not given.
    public var name: String?
    /// The TCP port the bridge listens on, on every address.
    public var port: Int
    /// The setup code, "XXX-XX-XXX"; nil: one is made on first start and kept in the state
    /// directory (`switchboard homekit` shows it).
    public var setupCode: String?

    /// The port HAP bridges use by default.
    public static let defaultPort = 51826

    public init(name: String? = nil, port: Int = HomeKitSettings.defaultPort, setupCode: String? = nil) {
        self.name = name
        self.port = port
        self.setupCode = setupCode
    }
}
