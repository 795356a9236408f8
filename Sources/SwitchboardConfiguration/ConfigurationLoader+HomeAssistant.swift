import SwitchboardSupport
extension ConfigurationLoader {
    /// Reads a placement's `homeAssistant` block.
    static func readHomeAssistant(_ value: JSONValue, at path: String, _ problems: inout [ConfigurationProblem]) -> HomeAssistantEntitySettings? {
        guard var reader = ObjectReader(value, at: path, problems: &problems) else { return nil }
        let component: HomeAssistantEntitySettings.Component? = reader.choice("component", default: nil, required: false, &problems)
        let deviceClass = readDeviceClass(&reader, &problems)
        let icon = reader.string("icon", &problems)
        if let icon, !isIcon(icon) {
            problems.append(ConfigurationProblem(reader.child("icon"), "\"\(icon)\" is not an icon name such as \"mdi:lightbulb\""))
        }
        let category: HomeAssistantEntitySettings.EntityCategory? = reader.choice("entityCategory", default: nil, required: false, &problems)
        let enabled = reader.bool("enabled", default: true, &problems)
        let area = reader.string("area", &problems)
        if let area, area.trimmingCharacters().isEmpty {
            problems.append(ConfigurationProblem(reader.child("area"), "is empty; give the Home Assistant area's name, such as \"Porch\", or leave it out"))
        }
        reader.finish(&problems)
        return HomeAssistantEntitySettings(component: component, deviceClass: deviceClass, icon: icon, entityCategory: category, enabled: enabled, area: area)
    }

    /// `deviceClass`: a Home Assistant device class, lower-case letters and "_".
    static func readDeviceClass(_ reader: inout ObjectReader, _ problems: inout [ConfigurationProblem]) -> String? {
        let deviceClass = reader.string("deviceClass", &problems)
        if let deviceClass, deviceClass.isEmpty || !deviceClass.utf8.allSatisfy({ ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || $0 == UInt8(ascii: "_") }) {
            problems.append(ConfigurationProblem(reader.child("deviceClass"), "\"\(deviceClass)\" is not a Home Assistant device class (lower-case letters and \"_\", such as \"outlet\" or \"door\")"))
            return nil
        }
        return deviceClass
    }

    /// A `homeAssistant` block belongs to a Control Center placement, and only a toggle is a light or a fan.
    static func validateHomeAssistant(_ configuration: SwitchboardConfiguration, _ problems: inout [ConfigurationProblem]) {
        for placement in configuration.placements {
            guard let settings = placement.homeAssistant else { continue }
            let path = "placements[\(placement.position)].homeAssistant"
            if placement.space != .controlCenter {
                problems.append(ConfigurationProblem(path, "only Control Center placements are Home Assistant entities; move the block to the control's Control Center placement"))
            }
            let isButton = configuration.control(placement.control)?.template == .button
            if let component = settings.component, component != .switch, isButton {
                problems.append(ConfigurationProblem(path + ".component", "\"\(placement.control)\" is a button, which Home Assistant shows as a button; \"\(component.rawValue)\" is for toggles"))
            } else if let deviceClass = settings.deviceClass, let control = configuration.control(placement.control) {
                // A control of a Swift bundle is not known here: only devices.json's are checked.
                let isButton = control.template == .button
                let entity: HomeAssistantDeviceClasses.Entity = isButton ? .button : (HomeAssistantDeviceClasses.Entity(rawValue: (settings.component ?? .switch).rawValue) ?? .switch)
                if let problem = HomeAssistantDeviceClasses.problem(deviceClass, for: entity) {
                    problems.append(ConfigurationProblem(path + ".deviceClass", problem))
                }
            }
        }
    }

    /// `prefix:name`, both parts lower-case letters, digits and "-".
    private static func isIcon(_ text: String) -> Bool {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        return parts.count == 2 && parts.allSatisfy { part in
            !part.isEmpty && part.utf8.allSatisfy { ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "-") }
        }
    }
}
