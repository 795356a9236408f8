import ControlKitCore
import SwitchboardSupport
import SwitchboardConfiguration

/// Turns the controls of devices.json into control definitions: they render from the devices'
/// state and perform by switching them, beside any compiled into a Swift bundle.
public enum ConfiguredControls {
    /// The configuration key of a configurable control: which device it drives.
    public static let deviceParameter = "device"

    public static func definitions(
        _ configuration: SwitchboardConfiguration, hub: DeviceHub, autoOff: AutoOffService
    ) -> [ControlDefinition] {
        configuration.controls.map { control in
            if let scene = control.scene { return SceneControl.definition(control, scene: scene, configuration: configuration, hub: hub, autoOff: autoOff) }
            let devices = control.devices.compactMap { configuration.device($0) }
            let fixed = control.device.flatMap { configuration.device($0) }
            let parameters = control.isConfigurable
                ? [ControlParameter(name: deviceParameter, title: "Device", type: "Device", options: devices.map { ParameterOption(id: $0.id, title: $0.name) })]
                : []
            return ControlDefinition(
                kind: control.kind,
                displayName: control.displayName,
                description: control.description,
                promptsForUserConfiguration: control.promptsForConfiguration,
                isConfigurable: control.isConfigurable,
                parameters: { parameters }
            ) { mode, values in
                let device: DeviceSettings
                if let fixed {
                    device = fixed
                } else if let chosen = values[deviceParameter] {
                    guard let match = devices.first(where: { $0.id == chosen }) else {
                        throw ControlError(.invalidConfiguration, kind: control.kind, detail: "\(deviceParameter): \"\(chosen)\" is not one of \(control.devices.joined(separator: ", "))")
                    }
                    device = match
                } else if mode == .preview, let first = devices.first {
                    // The gallery previews a configurable control with its first device.
                    device = first
                } else {
                    throw ControlError(.needsConfiguration, kind: control.kind, detail: "choose its device (\(control.devices.joined(separator: ", ")))")
                }
                let isOn: Bool
                switch mode {
                case .preview:
                    isOn = false
                case .current:
                    // The device it drives, or the one its state comes from (a garage door's contact).
                    let shown = control.stateDevice.flatMap { configuration.device($0) } ?? device
                    guard let value = try hub.value(of: shown.id) else {
                        let source = shown.mqtt.map { "no state message on \($0.stateTopic) yet" }
                            ?? shown.remote.map { "\($0.node) has not published \($0.control) (is it placed there?)" } ?? "no value yet"
                        throw ControlError(.unavailable, kind: control.kind, detail: "\(shown.name)'s state is not known: \(source)")
                    }
                    isOn = value
                }
                return snapshot(control, device: device, isOn: isOn, hub: hub, autoOff: autoOff, current: mode == .current)
            }
        }
    }

    static func snapshot(_ control: ControlSettings, device: DeviceSettings, isOn: Bool, hub: DeviceHub, autoOff: AutoOffService, current: Bool) -> TemplateSnapshot {
        let title = control.title ?? device.name
        let policy: IntentAuthenticationPolicy = control.requiresAuthentication ? .requiresAuthentication : .alwaysAllowed
        switch control.template {
        case .toggle:
            let on = ResolvedLabel(symbol: control.symbolOn, text: control.valueTextOn, actionHint: control.actionHintOn, status: control.statusOn)
            let off = ResolvedLabel(symbol: control.symbolOff, text: control.valueTextOff, actionHint: control.actionHintOff, status: control.statusOff)
            return TemplateSnapshot(
                title: title, style: .toggle(isOn: isOn, on: on, off: off), tint: control.tint,
                isPrivacySensitive: control.privacySensitive,
                standingStatus: current ? autoOff.status(device.id) : nil,
                // A countdown's deadline is saved with the switch (fsync): that action may block.
                action: ControlAction(title: title, authenticationPolicy: policy, mayBlock: control.autoOff != nil && device.kind != .pulse) { newValue in
                    let wanted = newValue ?? !isOn
                    if device.kind == .pulse {
                        // A garage door: one pulse moves it; its contact says where it is. Asked
                        // for the state it shows already, it does nothing.
                        if wanted != isOn { try await hub.pulse(device.id) }
                    } else {
                        try await autoOff.set(device.id, to: wanted, on: hub, offAfter: control.autoOff)
                    }
                    return .result()
                }
            )
        case .button:
            let label = ResolvedLabel(symbol: control.symbolOn, text: title, actionHint: control.actionHintOn, status: control.statusOn)
            return TemplateSnapshot(
                title: title, style: .button(label), tint: control.tint, isPrivacySensitive: control.privacySensitive,
                action: ControlAction(title: title, authenticationPolicy: policy, mayBlock: false) { _ in
                    // A control on another node is pressed there, whatever it is.
                    if device.kind == .pulse || device.kind == .node {
                        try await hub.pulse(device.id)
                    } else {
                        let current = try hub.value(of: device.id) ?? false
                        try await hub.set(device.id, to: !current)
                    }
                    return .result()
                }
            )
        }
    }
}
