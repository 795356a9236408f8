import SwitchboardMQTT
import SwitchboardSupport
import SwitchboardConfiguration

extension MQTTBridge {
    /// Each device of another system's health, watched from when the bridge is made.
    static func initialHealth(_ configuration: SwitchboardConfiguration, at now: OffsetInstant) -> [String: DeviceHealth] {
        Dictionary(configuration.devices.compactMap { device in
            device.mqtt.map { (device.id, DeviceHealth(staleAfter: $0.staleAfter, since: now)) }
        }, uniquingKeysWith: { first, _ in first })
    }

    /// The previous configuration's health of each device this one leaves as it was (wherever it
    /// stands in the file); the others start afresh.
    static func carried(_ kept: Handover, into fresh: [String: DeviceHealth], _ configuration: SwitchboardConfiguration, at now: OffsetInstant) -> [String: DeviceHealth] {
        var health = fresh
        for (id, (settings, before)) in kept.health {
            guard health[id] != nil, let device = configuration.device(id) else { continue }
            var previous = settings
            previous.position = device.position
            if previous == device { health[id] = before.rebased(from: kept.handedOverAt, to: now) }
        }
        return health
    }

    /// Changes a device's health and makes its controls stale with the reason, or fresh again.
    func updateHealth(of id: String, _ change: (inout DeviceHealth) -> Void) {
        let reason = state.withLock { state -> String?? in
            guard var health = state.health[id] else { return nil }
            change(&health)
            state.health[id] = health
            return .some(health.reason)
        }
        guard case .some(let reason) = reason else { return }
        runtime.hub.setRemoteUnavailable(id, reason)
        healthWake.ring()
    }

    /// A message on a device's availability topic (`tele/plug/LWT`): offline makes its controls
    /// stale, naming what it said; anything that is neither payload is rejected and changes nothing.
    func handleAvailability(_ message: MQTTMessage) {
        let now = runtime.clock.now
        for device in availabilityDevices[message.topic] ?? [] {
            guard let availability = device.mqtt?.availability, let available = availability.available(message.payload) else {
                let expected = device.mqtt?.availability.map { "\($0.payloadAvailable)/\($0.payloadNotAvailable)" } ?? "online/offline"
                reject(message, "not an availability of \(device.id) (expected \(expected))")
                continue
            }
            let said = available ? availability.payloadAvailable : availability.payloadNotAvailable
            if !available { log(.warning, "mqtt: \(device.name) is offline: \(message.topic) said \(said)") }
            updateHealth(of: device.id) { $0.heardAvailability(available, said, on: message.topic, at: now) }
        }
    }

    /// Makes devices that have been silent for their `staleAfter` stale, on the runtime's clock.
    func serveHealth() async {
        var alarm = WakeAlarm(clock: runtime.clock, ringing: healthWake)
        await withDiscardingTaskGroup { group in
            for await _ in healthWake {
                let now = runtime.clock.now
                let silenced = state.withLock { state -> [(String, String)] in
                    var silenced: [(String, String)] = []
                    for (id, var health) in state.health {
                        let before = health.reason
                        health.tick(at: now)
                        state.health[id] = health
                        if let reason = health.reason, reason != before { silenced.append((id, reason)) }
                    }
                    return silenced
                }
                for (id, reason) in silenced.sorted(by: { $0.0 < $1.0 }) {
                    log(.warning, "mqtt: \(id) is stale: \(reason)")
                    runtime.hub.setRemoteUnavailable(id, reason)
                }
                if let next = state.withLock({ $0.health.values.compactMap(\.nextWake).min() }), let sleep = alarm.arm(at: next) {
                    group.addTask(operation: sleep)
                }
            }
        }
    }
}
