/// The `device_class` values Home Assistant accepts for each kind of entity Switchboard announces
/// (Home Assistant's `SwitchDeviceClass`, `ButtonDeviceClass`, `CoverDeviceClass` and `BinarySensorDeviceClass`; lights
/// and fans have none). Home Assistant refuses an entity whose class is not among its kind's, so
/// devices.json is checked against these before anything is announced.
enum HomeAssistantDeviceClasses {
    /// The Home Assistant entity kinds, by the name of their MQTT discovery component.
    enum Entity: String {
        case `switch`, light, fan, button, cover
        case binarySensor = "binary_sensor"
    }

    /// The device classes of `entity`.
    static func classes(of entity: Entity) -> [String] {
        switch entity {
        case .switch: ["outlet", "switch"]
        case .button: ["identify", "restart", "update"]
        case .light, .fan: []
        case .cover: ["awning", "blind", "curtain", "damper", "door", "garage", "gate", "shade", "shutter", "window"]
        case .binarySensor: [
            "battery", "battery_charging", "carbon_monoxide", "cold", "connectivity", "door", "garage_door",
            "gas", "heat", "light", "lock", "moisture", "motion", "moving", "occupancy", "opening", "plug",
            "power", "presence", "problem", "running", "safety", "smoke", "sound", "tamper", "update",
            "vibration", "window",
        ]
        }
    }

    /// Why `deviceClass` cannot be given to `entity`, or nil when it can.
    static func problem(_ deviceClass: String, for entity: Entity) -> String? {
        let classes = classes(of: entity)
        guard !classes.contains(deviceClass) else { return nil }
        if classes.isEmpty {
            return "Home Assistant's \(entity.rawValue) entities have no device class; leave \"deviceClass\" out"
        }
        return "\"\(deviceClass)\" is not a device class of a Home Assistant \(entity.rawValue), which Home Assistant would refuse; use one of \(classes.map { "\"\($0)\"" }.joined(separator: ", ")), or leave it out"
    }
}
