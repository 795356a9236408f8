extension ConfigurationLoader {
    /// A control's `scene`: an object of device ids and the values it gives them, in file order.
    static func readScene(_ reader: inout ObjectReader, _ problems: inout [ConfigurationProblem]) -> [SceneStep]? {
        guard let value = reader.value("scene") else { return nil }
        guard case .object(let members) = value, !members.isEmpty else {
            problems.append(ConfigurationProblem(reader.child("scene"), "expected an object of devices and their values, such as {\"porch\": false, \"kitchen\": false}"))
            return nil
        }
        var steps: [SceneStep] = []
        for member in members {
            guard case .bool(let on) = member.value else {
                problems.append(ConfigurationProblem(reader.child("scene") + "." + member.key, "expected true (on) or false (off), found \(member.value.kindDescription)"))
                continue
            }
            steps.append(SceneStep(device: member.key, value: on))
        }
        return steps
    }

    /// A scene's devices exist and can be set.
    static func validateScene(_ control: ControlSettings, _ configuration: SwitchboardConfiguration, _ problems: inout [ConfigurationProblem]) {
        for step in control.scene ?? [] {
            let path = "controls[\(control.position)].scene.\(step.device)"
            guard let device = configuration.device(step.device) else {
                problems.append(ConfigurationProblem(path, "\"\(step.device)\" is not a device; devices: \(configuration.devices.map(\.id).joined(separator: ", "))"))
                continue
            }
            if device.kind == .input {
                problems.append(ConfigurationProblem(path, "\"\(step.device)\" is an input, which a scene cannot set"))
            }
            if device.kind == .pulse && !step.value {
                problems.append(ConfigurationProblem(path, "\"\(step.device)\" is a pulse output: true pulses it; false would do nothing"))
            }
        }
    }
}
