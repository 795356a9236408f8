/// A device that is on or off: a relay on a GPIO line, or a light or plug of another home system
/// over MQTT. Give your devices names as Apple's frameworks do:
///
/// ```swift
/// extension Relay {
///     static let porch = Relay("porch")
/// }
/// try await Relay.porch.set(true)
/// ```
public struct Relay: Sendable, Hashable {
    /// The device's id in devices.json.
    public let id: String
    private let center: DeviceCenter

    /// The relay with a devices.json id.
    public init(_ id: String, center: DeviceCenter = .shared) {
        self.id = id
        self.center = center
    }

    /// Whether it is on now.
    /// - Throws: ``DeviceError``: unknown device, `.unknownValue` while a device of another system
    ///   has not reported its state yet.
    public func isOn() async throws -> Bool {
        guard let value = try await center.connectedService().value(of: id, for: DeviceCenter.controlKind) else {
            throw DeviceError(.unknownValue, "\"\(id)\" has not reported its state yet; it is known after its first state message")
        }
        return value
    }

    /// Switches it on or off; returns once it is done (saved, and confirmed by a device of
    /// another system).
    public func set(_ isOn: Bool) async throws {
        try await center.connectedService().setValue(isOn, of: id, for: DeviceCenter.controlKind)
    }

    /// Switches it on.
    public func turnOn() async throws { try await set(true) }

    /// Switches it off.
    public func turnOff() async throws { try await set(false) }

    /// Switches it to the other state.
    public func toggle() async throws { try await set(!isOn()) }

    public static func == (lhs: Relay, rhs: Relay) -> Bool { lhs.id == rhs.id && lhs.center === rhs.center }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}
