#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SwitchboardConfiguration

/// What a ``DeviceHub`` knows of the devices that live elsewhere (other systems' devices, from
/// their state messages; controls on other nodes, from their presentations), carried into the
/// next configuration's hub on a reload. A device whose settings the reload leaves as they were
/// keeps its value: its system may not publish it again (Zigbee2MQTT does not retain by default),
/// and a reload that changed nothing about it must not make it unknown. A changed device starts
/// unknown, as its state may now come from elsewhere.
public struct RemoteKnowledge: Sendable {
    var settings: [String: DeviceSettings]
    var values: [String: Bool]
    var unavailable: [String: String]
    /// Where each motor cover was, with its settings then: a reload that leaves a cover alone
    /// keeps its position.
    var coverPositions: [String: (settings: CoverSettings, position: Int)] = [:]
    /// The wall-clock instant up to which the previous configuration's schedules were checked:
    /// a run due while the node reloaded fires once the next configuration starts.
    var schedulesCheckedUntil: Date?
    /// The automations' runs in progress: one whose automation the reload leaves as it was goes on.
    var automationRuns: [AutomationRunHandover] = []

    /// Nothing known: a node's first configuration.
    public static let none = RemoteKnowledge(settings: [:], values: [:], unavailable: [:])

    /// The value and unavailability to start `device` with, if it is the same device as before.
    func carried(for device: DeviceSettings) -> (value: Bool?, unavailable: String?)? {
        guard device.mqtt != nil || device.remote != nil, var before = settings[device.id] else { return nil }
        // Where it stands in the file is not what it is.
        before.position = device.position
        guard before == device else { return nil }
        return (values[device.id], unavailable[device.id])
    }
}
