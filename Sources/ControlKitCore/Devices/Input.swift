/// A GPIO input: a door contact, a motion sensor. Controls that read it reload when it changes.
///
/// ```swift
/// extension Input {
///     static let garageClosed = Input("garage-closed")
/// }
/// let closed = try await Input.garageClosed.isActive()
/// ```
public struct Input: Sendable, Hashable {
    /// The device's id in devices.json.
    public let id: String
    private let center: DeviceCenter

    /// The input with a devices.json id.
    public init(_ id: String, center: DeviceCenter = .shared) {
        self.id = id
        self.center = center
    }

    /// Whether the input is active now (its logical level: active-low applied).
    public func isActive() async throws -> Bool {
        guard let value = try await center.connectedService().value(of: id, for: DeviceCenter.controlKind) else {
            throw DeviceError(.unknownValue, "\"\(id)\" has no value yet")
        }
        return value
    }

    public static func == (lhs: Input, rhs: Input) -> Bool { lhs.id == rhs.id && lhs.center === rhs.center }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}
