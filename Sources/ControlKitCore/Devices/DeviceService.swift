/// What a device is, as the board describes it to control code.
public struct DeviceDescription: Sendable, Hashable, Codable {
    /// The device's id in devices.json (`porch`).
    public var id: String
    /// The name people see (`Porch Light`).
    public var name: String
    /// What it is, and so what can be done with it.
    public var kind: DeviceKind

    public init(id: String, name: String, kind: DeviceKind) {
        self.id = id
        self.name = name
        self.kind = kind
    }
}

/// The kinds of device a board has.
public enum DeviceKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// A GPIO output that stays on or off: read it and set it (``Relay``).
    case relay
    /// A GPIO output switched on for its pulse time, then off: press it (``Pulse``).
    case pulse
    /// A GPIO input, a contact or a sensor: read it (``Input``).
    case input
    /// A device living in another home system, switched over MQTT and confirmed by its state
    /// topic: read it and set it, as a relay (``Relay``).
    case mqtt
    /// A control placed on another Switchboard node, performed there through the broker: read it
    /// and set it as a relay (``Relay``), or press it as a pulse (``Pulse``).
    case node
}

/// Where control code's device calls go: the daemon's devices in switchboardd (or in a program
/// that embeds a bundle), the daemon over the line protocol in a control extension.
///
/// Hosts install one with ``DeviceCenter/connect(_:)``; control code uses ``Relay``, ``Pulse``
/// and ``Input``, never this directly.
public protocol DeviceService: Sendable {
    /// The devices control code may use.
    func devices() async throws -> [DeviceDescription]
    /// A device's value now; nil while it is not known yet (a device of another system before its
    /// first state message).
    /// - Parameter kind: the control kind being rendered or performed, if any: its controls
    ///   reload whenever the device changes.
    func value(of device: String, for kind: String?) async throws -> Bool?
    /// Switches a relay or a device of another system, with the daemon's semantics: saved before
    /// it is done, auto-off, confirmation by state echo.
    func setValue(_ value: Bool, of device: String, for kind: String?) async throws
    /// Pulses a pulse output: on for its pulse time, then off.
    func pulse(_ device: String, for kind: String?) async throws
}
