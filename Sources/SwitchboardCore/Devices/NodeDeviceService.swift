import ControlKitCore
import SwitchboardConfiguration
import SwitchboardExtensionHost

/// The board's devices for Swift control code: a bundle embedded in the daemon, or a control
/// extension's device requests. Every call goes to the configuration serving now (a SIGHUP
/// replaces it), with devices.json's semantics: the journal before "done", auto-off, confirmation
/// by state echo for devices of other systems, and reloads of every control bound to the device.
public struct NodeDeviceService: ExtensionDevices {
    /// The configuration serving now; nil while none does.
    let runtime: @Sendable () -> NodeRuntime?
    /// The devices the caller may use; nil for all (a bundle compiled into the daemon).
    let allowed: Set<String>?
    /// Who is calling, for messages (`extension "home"`).
    let caller: String
    /// Whether the caller's changes obey the node's lock as every other door does (a control
    /// extension's): while locked, a device that a control requiring authentication drives is
    /// not changed, unless ``authenticated``.
    let obeysLock: Bool
    /// Whether the caller acts for an authenticated request now (a control extension performing
    /// an action the local CLI asked for), which may change such a device while locked.
    public var authenticated = false

    public init(caller: String, allowed: Set<String>?, obeysLock: Bool = false, runtime: @escaping @Sendable () -> NodeRuntime?) {
        self.caller = caller
        self.allowed = allowed
        self.obeysLock = obeysLock
        self.runtime = runtime
    }

    public func devices() async throws -> [DeviceDescription] {
        try serving().configuration.devices.filter(mayUse).map(Self.description)
    }

    public func value(of device: String, for kind: String?) async throws -> Bool? {
        let (runtime, settings) = try resolve(device)
        if let kind { runtime.readers.record(settings.id, readBy: kind) }
        do {
            return try runtime.hub.value(of: settings.id)
        } catch {
            throw DeviceError(.failed, "\(settings.name) (\"\(settings.id)\") could not be read: \(error)")
        }
    }

    public func setValue(_ value: Bool, of device: String, for kind: String?) async throws {
        let (runtime, settings) = try resolve(device)
        guard settings.kind == .relay || settings.kind == .mqtt || settings.kind == .node else {
            throw DeviceError.wrongKind(Self.description(settings))
        }
        try await refuseWhileLocked(settings, runtime, for: kind)
        if let kind { runtime.readers.record(settings.id, readBy: kind) }
        let autoOff = runtime.configuration.controls.first { $0.autoOff != nil && ($0.device == settings.id || $0.devices.contains(settings.id)) }?.autoOff
        do {
            try await runtime.autoOff.set(settings.id, to: value, on: runtime.hub, offAfter: autoOff)
        } catch {
            throw DeviceError(.failed, String(describing: error))
        }
    }

    public func pulse(_ device: String, for kind: String?) async throws {
        let (runtime, settings) = try resolve(device)
        guard settings.kind == .pulse || settings.kind == .node else {
            throw DeviceError.wrongKind(Self.description(settings))
        }
        try await refuseWhileLocked(settings, runtime, for: kind)
        do {
            try await runtime.hub.pulse(settings.id)
        } catch {
            throw DeviceError(.failed, "\(settings.name) (\"\(settings.id)\") was not pulsed: \(error)")
        }
    }

    private func serving() throws -> NodeRuntime {
        guard let runtime = runtime() else { throw DeviceError(.noService, "switchboardd is between configurations; try again") }
        return runtime
    }

    /// Refuses a change, while the node is locked, of a device that a control requiring
    /// authentication drives: a devices.json control (its device, one of its devices, a device of
    /// its scene), or a placed Swift control whose action requires authentication and that reads
    /// or drives the device (the call's own kind among them), as the CLI and MQTT refuse that
    /// control's command then.
    private func refuseWhileLocked(_ device: DeviceSettings, _ runtime: NodeRuntime, for kind: String?) async throws {
        guard obeysLock, !authenticated, runtime.center.isLockedNow else { return }
        var guarding = runtime.configuration.controls.filter { control in
            control.requiresAuthentication
                && (control.device == device.id || control.devices.contains(device.id) || control.scene?.contains { $0.device == device.id } == true)
        }.map(\.kind)
        for reader in Set(runtime.readers.kinds(reading: device.id) + (kind.map { [$0] } ?? [])).sorted() where !guarding.contains(reader) {
            if await runtime.center.requiresAuthentication(kind: reader) { guarding.append(reader) }
        }
        guard !guarding.isEmpty else { return }
        let kinds = guarding.map { "\"\($0)\"" }.joined(separator: ", ")
        throw DeviceError(.notAllowed, "Switchboard is locked and \(device.name) (\"\(device.id)\") is driven by \(kinds), which requires authentication: \(caller) may change it only while unlocked (switchboard unlock) or while performing a command from the local CLI; nothing was done")
    }

    private func mayUse(_ device: DeviceSettings) -> Bool { allowed?.contains(device.id) ?? true }

    /// The device, if it exists and the caller may use it.
    private func resolve(_ id: String) throws -> (NodeRuntime, DeviceSettings) {
        let runtime = try serving()
        let usable = runtime.configuration.devices.filter(mayUse).map(\.id)
        guard let settings = runtime.configuration.device(id) else {
            throw DeviceError.unknownDevice(id, devices: usable)
        }
        guard mayUse(settings) else {
            throw DeviceError(.notAllowed, "\(caller) may not use device \"\(id)\"; devices.json allows it \(usable.isEmpty ? "none" : usable.joined(separator: ", "))")
        }
        return (runtime, settings)
    }

    static func description(_ device: DeviceSettings) -> DeviceDescription {
        let kind: DeviceKind = switch device.kind {
        case .relay: .relay
        case .pulse: .pulse
        case .input: .input
        case .mqtt: .mqtt
        case .node: .node
        }
        return DeviceDescription(id: device.id, name: device.name, kind: kind)
    }
}
