import ControlKitCore
import SwitchboardSupport

/// A home in memory for control code's ``Relay``, ``Pulse`` and ``Input`` calls: a
/// ``DeviceService`` a test connects to a ``DeviceCenter`` (its own, or `.shared` for code that
/// uses the default center, from a `.serialized` suite: `.shared` is the process's), sets and reads
/// by hand, makes unreachable as a hub that went offline, and asks what calls it got.
///
/// It answers as switchboardd does: the same unknown-device and wrong-kind errors, nil for a device
/// of another system that has not reported its state, relays and MQTT devices switched, pulse
/// outputs pressed, inputs read only.
public final class InMemoryDevices: DeviceService {
    /// A call control code made, with the control kind it was made for.
    public enum Call: Sendable, Hashable {
        case devices
        case value(String, kind: String?)
        case set(String, Bool, kind: String?)
        case pulse(String, kind: String?)
    }

    private struct State {
        var values: [String: Bool]
        var presses: [String: Int] = [:]
        var unreachable: String?
        var calls: [Call] = []
    }

    private let devices: [DeviceDescription]
    // Invariant: every read and write of the state goes through the lock, never across an await.
    private let state: Locked<State>

    /// A home with `devices`, in that order; every relay, pulse output and input starts off, and
    /// devices of other systems (`.mqtt`) start unknown unless `values` says otherwise.
    public init(_ devices: [DeviceDescription], values: [String: Bool] = [:]) {
        self.devices = devices
        var initial: [String: Bool] = [:]
        for device in devices where device.kind != .mqtt { initial[device.id] = false }
        state = Locked(State(values: initial.merging(values) { $1 }))
    }

    /// Makes `center`'s device calls come here.
    public func connect(to center: DeviceCenter = .shared) {
        center.connect(self)
    }

    /// A device's value now, as a meter on it would read (nil: not known yet).
    public func value(_ id: String) -> Bool? { state.withLock { $0.values[id] } }

    /// Sets a device as a person at the switch, or a state message, would: no call is recorded.
    public func set(_ id: String, to value: Bool?) { state.withLock { $0.values[id] = value } }

    /// How many times a pulse output was pressed.
    public func presses(of id: String) -> Int { state.withLock { $0.presses[id] ?? 0 } }

    /// The calls made so far, in order.
    public var calls: [Call] { state.withLock { $0.calls } }

    /// Makes every call fail with `reason` (as a hub that went offline would), or work again (nil).
    public func setUnreachable(_ reason: String?) { state.withLock { $0.unreachable = reason } }

    public func devices() async throws -> [DeviceDescription] {
        try state.withLock { state in
            state.calls.append(.devices)
            if let reason = state.unreachable { throw DeviceError(.failed, "the devices could not be listed: \(reason)") }
            return devices
        }
    }

    public func value(of id: String, for kind: String?) async throws -> Bool? {
        let device = try resolve(id)
        return try state.withLock { state in
            state.calls.append(.value(id, kind: kind))
            if let reason = state.unreachable { throw DeviceError(.failed, "\(device.name) (\"\(id)\") could not be read: \(reason)") }
            return state.values[id]
        }
    }

    public func setValue(_ value: Bool, of id: String, for kind: String?) async throws {
        let device = try resolve(id)
        guard device.kind == .relay || device.kind == .mqtt else { throw DeviceError.wrongKind(device) }
        try state.withLock { state in
            state.calls.append(.set(id, value, kind: kind))
            if let reason = state.unreachable { throw DeviceError(.failed, "\(device.name) (\"\(id)\") was not switched: \(reason)") }
            state.values[id] = value
        }
    }

    public func pulse(_ id: String, for kind: String?) async throws {
        let device = try resolve(id)
        guard device.kind == .pulse else { throw DeviceError.wrongKind(device) }
        try state.withLock { state in
            state.calls.append(.pulse(id, kind: kind))
            if let reason = state.unreachable { throw DeviceError(.failed, "\(device.name) (\"\(id)\") was not pulsed: \(reason)") }
            state.presses[id, default: 0] += 1
        }
    }

    private func resolve(_ id: String) throws -> DeviceDescription {
        guard let device = devices.first(where: { $0.id == id }) else { throw DeviceError.unknownDevice(id, devices: devices.map(\.id)) }
        return device
    }
}
