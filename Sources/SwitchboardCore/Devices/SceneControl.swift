import ControlKitCore
import SwitchboardConfiguration

/// A scene: a button that sets several devices, each to its value, at once ("All Lights Off",
/// "Movie"). Every device is set whatever the others do; when some fail, the perform fails saying
/// which did what, device by device, never all-or-nothing silence.
enum SceneControl {
    static func definition(
        _ control: ControlSettings, scene: [SceneStep], configuration: SwitchboardConfiguration, hub: DeviceHub, autoOff: AutoOffService
    ) -> ControlDefinition {
        let title = control.title ?? control.displayName ?? control.kind
        let policy: IntentAuthenticationPolicy = control.requiresAuthentication ? .requiresAuthentication : .alwaysAllowed
        let snapshot = TemplateSnapshot(
            title: title,
            style: .button(ResolvedLabel(symbol: control.symbolOn, text: title, actionHint: control.actionHintOn, status: control.statusOn)),
            tint: control.tint, isPrivacySensitive: control.privacySensitive,
            action: ControlAction(title: title, authenticationPolicy: policy) { _ in
                try await perform(scene, title: title, configuration: configuration, hub: hub, autoOff: autoOff)
                return .result()
            }
        )
        return ControlDefinition(
            kind: control.kind, displayName: control.displayName, description: control.description,
            isConfigurable: false, parameters: { [] }, render: { _, _ in snapshot }
        )
    }

    /// Sets every device of the scene concurrently.
    /// - Throws: ``SceneFailure`` listing each device's outcome, in devices.json's order, when any failed.
    static func perform(_ scene: [SceneStep], title: String, configuration: SwitchboardConfiguration, hub: DeviceHub, autoOff: AutoOffService) async throws {
        let order = Dictionary(configuration.devices.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        let scene = scene.sorted { (order[$0.device] ?? .max) < (order[$1.device] ?? .max) }
        let outcomes = await withTaskGroup(of: (Int, String?).self) { group -> [String?] in
            for (index, step) in scene.enumerated() {
                group.addTask {
                    guard let device = configuration.device(step.device) else { return (index, "not a device") }
                    do {
                        if device.kind == .pulse {
                            try await hub.pulse(device.id)
                        } else {
                            // The auto-off of a devices.json control bound to the device runs as
                            // when that control switches it.
                            let offAfter = configuration.controls.first { $0.autoOff != nil && $0.device == device.id }?.autoOff
                            try await autoOff.set(device.id, to: step.value, on: hub, offAfter: offAfter)
                        }
                        return (index, nil)
                    } catch {
                        return (index, (error as? ControlError)?.detail ?? String(describing: error))
                    }
                }
            }
            var results = [String?](repeating: nil, count: scene.count)
            for await (index, failure) in group { results[index] = failure }
            return results
        }
        let failed = outcomes.compactMap { $0 }.count
        guard failed > 0 else { return }
        let lines = zip(scene, outcomes).map { step, failure in
            let device = configuration.device(step.device)
            let done = device?.kind == .pulse ? "pulsed" : step.value ? "on" : "off"
            return "\(device?.name ?? step.device): \(failure ?? done)"
        }
        throw SceneFailure(description: "\(failed) of \(scene.count) devices failed: \(lines.joined(separator: "; "))")
    }
}

/// Some devices of a scene failed: each device's outcome.
struct SceneFailure: Error, CustomStringConvertible {
    let description: String
}
