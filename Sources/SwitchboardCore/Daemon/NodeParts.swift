import ControlKitCore
import SwitchboardSupport
import SwitchboardConfiguration

/// The parts of a ``NodeRuntime`` that its MQTT bridge works with, held strongly. None of them
/// holds the bridge, so there is no cycle; and the bridge, with whatever its tasks and its
/// connection's thread are still doing, can outlive the runtime a reload replaced without reaching
/// a freed object.
public struct NodeParts: Sendable {
    public let configuration: SwitchboardConfiguration
    public let hub: DeviceHub
    public let center: ControlCenter
    /// The Home Assistant entities the bridge last announced.
    let homeAssistantRecord: HomeAssistantRecord
    /// The clock timers run on.
    let clock: AnyClock
    /// What went wrong with the node beyond this configuration, for the MQTT diagnostics.
    let problems: @Sendable () -> [String]
    /// The blinds, shutters and garage doors.
    var covers: CoverService? = nil
    /// The schedules and the automations, which Home Assistant can pause and resume.
    var schedules: ScheduleService? = nil
    var automations: AutomationService? = nil

    /// The schedules or the automations of this configuration.
    func pausables(_ kind: PausableKind) -> (any PausableByID)? {
        kind == .schedules ? schedules : automations
    }

    /// The device a placement of devices.json drives: its control's, or the one devices.json
    /// chose for it; nil for a placement made at run time or a control without one device.
    func device(ofPlacement id: String) -> String? {
        guard let placement = configuration.placements.first(where: { $0.id == id }) else { return nil }
        return placement.device ?? configuration.control(placement.control)?.device
    }

    /// The devices of other systems and other nodes that no placed control shows (one used only
    /// by a scene, a schedule, or a configurable control set to another device), so that
    /// `status` and `health` still tell of them.
    func unshownRemoteDevices() async -> [SocketReply.OtherDevice] {
        var shown = Set(configuration.extensions.flatMap(\.devices))
        for placement in await center.placements {
            if let chosen = placement.configuration[ConfiguredControls.deviceParameter] { shown.insert(chosen) }
            guard let control = configuration.control(placement.kind) else { continue }
            for device in [control.device, control.stateDevice].compactMap({ $0 }) { shown.insert(device) }
        }
        return configuration.devices.filter { ($0.mqtt != nil || $0.remote != nil) && !shown.contains($0.id) }.map { device in
            let reading = hub.remoteReading(device.id)
            return SocketReply.OtherDevice(id: device.id, name: device.name, value: reading.value, stale: reading.unavailable)
        }
    }

    /// Saves the placements that differ from devices.json, and the lock state.
    func persistRuntimeState() async throws {
        let current = await center.placements
        let locked = await center.isLocked
        let file = configuration.placements
        try hub.updatePersisted { state in
            state.locked = locked
            state.removedPlacements = file.map(\.id).filter { id in !current.contains { $0.id == id } }
            state.placements = current.compactMap { placement in
                let device = NodeRuntime.chosenDevice(placement)
                let saved = PersistedState.Placement(id: placement.id, control: placement.kind, space: placement.space.rawValue, size: placement.size?.rawValue, device: device)
                if let original = file.first(where: { $0.id == placement.id }),
                   original.control == placement.kind, original.space == placement.space, original.size == placement.size, original.device == device {
                    return nil
                }
                return saved
            }
        }
    }

    /// Saves a lock change just made; if it cannot be saved, takes it back (a lock that a restart
    /// would forget is no lock).
    /// - Returns: why it was taken back, or nil once it is saved.
    func persistLock(_ locked: Bool) async -> String? {
        do {
            try await persistRuntimeState()
            return nil
        } catch {
            await center.setLocked(!locked)
            return "\(locked ? "lock" : "unlock") not saved, so not done: \(error); free space in the state directory; Switchboard stays \(locked ? "unlocked" : "locked")"
        }
    }
}
