extension DeviceError {
    /// No device has the id: `unknown device "nope"; devices: porch, fan`. Every device service
    /// says it this way.
    /// - Parameter devices: the ids the caller may use, in devices.json's order.
    public static func unknownDevice(_ id: String, devices: [String]) -> DeviceError {
        DeviceError(.unknownDevice, "unknown device \"\(id)\"; devices: \(devices.joined(separator: ", "))")
    }

    /// The call does not fit the device: `Garage Door ("garage") is a pulse: use Pulse("…").press()`.
    public static func wrongKind(_ device: DeviceDescription) -> DeviceError {
        let use = switch device.kind {
        case .relay, .mqtt: "use Relay(\"…\").set(_:) or isOn()"
        case .pulse: "use Pulse(\"…\").press()"
        case .input: "use Input(\"…\").isActive(); an input can be read, not switched"
        case .node: "use Relay(\"…\").set(_:) or Pulse(\"…\").press()"
        }
        return DeviceError(.wrongKind, "\(device.name) (\"\(device.id)\") is a \(device.kind.rawValue): \(use)")
    }
}
