extension ConfigurationLoader {
    /// Reads one element of `interlocks`.
    static func readInterlock(_ value: JSONValue, _ path: String, _ problems: inout [ConfigurationProblem]) -> InterlockSettings? {
        guard var reader = ObjectReader(value, at: path, problems: &problems) else { return nil }
        let id = reader.string("id", required: true, &problems) ?? ""
        let devices = reader.strings("devices", &problems)
        let deadTime = reader.duration("deadTime", in: .zero ... .seconds(60), default: .zero, &problems) ?? .zero
        reader.finish(&problems)
        return InterlockSettings(id: id, devices: devices, deadTime: deadTime)
    }

    /// Each interlock has two or more GPIO outputs, each in no other interlock; no scene turns on
    /// two outputs of one interlock.
    static func validateInterlocks(_ configuration: SwitchboardConfiguration, _ problems: inout [ConfigurationProblem]) {
        var owner: [String: String] = [:]
        for interlock in configuration.interlocks {
            let path = "interlocks[\(interlock.position)].devices"
            if interlock.devices.count < 2 {
                problems.append(ConfigurationProblem(path, "an interlock needs two or more outputs (a blind's up and down relays)"))
            }
            for id in interlock.devices {
                guard let device = configuration.device(id) else {
                    problems.append(ConfigurationProblem(path, "\"\(id)\" is not a device"))
                    continue
                }
                if !device.isOutput {
                    problems.append(ConfigurationProblem(path, "\"\(id)\" is a\(device.kind == .input ? "n" : "") \(device.kind.rawValue) device; an interlock holds GPIO outputs (relay or pulse)"))
                }
                if let other = owner[id] {
                    problems.append(ConfigurationProblem(path, "\"\(id)\" is in interlock \"\(other)\" already; a device is in one interlock at most"))
                }
                owner[id] = interlock.id
            }
        }
        // A scene that turns on two outputs of one interlock would end with only the last on.
        for control in configuration.controls {
            let on = (control.scene ?? []).filter(\.value).map(\.device)
            for interlock in configuration.interlocks {
                let both = on.filter { interlock.devices.contains($0) }
                guard both.count > 1 else { continue }
                problems.append(ConfigurationProblem(
                    "controls[\(control.position)].scene",
                    "turns on \(both.map { "\"\($0)\"" }.joined(separator: " and ")), which interlock \"\(interlock.id)\" keeps apart: only \"\(both[both.count - 1])\" would stay on; turn on one of them"
                ))
            }
        }
    }
}
