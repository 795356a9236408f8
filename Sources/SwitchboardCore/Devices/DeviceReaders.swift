import SwitchboardSupport

/// Which control kinds read which devices: a Swift control's provider that reads `porch` makes
/// the control follow the porch, as devices.json's controls follow the device they are bound to.
public final class DeviceReaders: Sendable {
    private let readers = Locked<[String: Set<String>]>([:])

    public init() {}

    /// Notes that `kind` read `device`.
    public func record(_ device: String, readBy kind: String) {
        readers.withLock { _ = $0[device, default: []].insert(kind) }
    }

    /// The kinds that have read a device, sorted.
    public func kinds(reading device: String) -> [String] {
        readers.withLock { $0[device] }.map { $0.sorted() } ?? []
    }
}
