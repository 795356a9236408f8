/// An output switched on for its pulse time, then off: a garage-door opener, a doorbell.
///
/// ```swift
/// extension Pulse {
///     static let garage = Pulse("garage")
/// }
/// try await Pulse.garage.press()
/// ```
public struct Pulse: Sendable, Hashable {
    /// The device's id in devices.json.
    public let id: String
    private let center: DeviceCenter

    /// The pulse output with a devices.json id.
    public init(_ id: String, center: DeviceCenter = .shared) {
        self.id = id
        self.center = center
    }

    /// Pulses it; returns once it is off again.
    public func press() async throws {
        try await center.connectedService().pulse(id, for: DeviceCenter.controlKind)
    }

    public static func == (lhs: Pulse, rhs: Pulse) -> Bool { lhs.id == rhs.id && lhs.center === rhs.center }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}
