import SwitchboardGPIO

/// A device declared in Swift, for those who prefer code to devices.json: the same devices with
/// the same defaults, added to devices.json's when the daemon loads it.
///
/// ```swift
/// exit(await SwitchboardDaemon.main(bundle: HomeBundle.self, devices: [
///     .relay("porch", name: "Porch Light", line: 17),
///     .pulse("garage", name: "Garage Door", line: 22, activeLow: true),
///     .mqtt("kitchen", name: "Kitchen Light", stateTopic: "zigbee2mqtt/kitchen_light", valueKey: "state",
///           commandTopic: "zigbee2mqtt/kitchen_light/set", onPayload: #"{"state":"ON"}"#, offPayload: #"{"state":"OFF"}"#),
///     .node("shed", name: "Shed Light", node: "shed-pi", control: "porch"),
/// ]))
/// ```
///
/// GPIO devices are on the chip with id `chip` in devices.json; `header` (the default), when
/// devices.json has no such chip, is the Raspberry Pi's 40-pin header wherever the kernel put it.
/// A device id declared both in Swift and in devices.json is a problem of the configuration.
public struct DeviceDeclaration: Sendable, Equatable {
    /// The device, as devices.json would give it.
    public let settings: DeviceSettings

    /// A relay: an output that stays on or off.
    public static func relay(
        _ id: String, name: String, line: Int, chip: String = "header", activeLow: Bool = false,
        drive: GPIODrive = .pushPull, restore: DeviceSettings.Restore = .last, onShutdown: DeviceSettings.Shutdown = .keep
    ) -> DeviceDeclaration {
        gpio(id, name, .relay, GPIOSettings(chip: chip, line: .offset(line), activeLow: activeLow, drive: drive, bias: .asIs, debounce: .zero), restore: restore, onShutdown: onShutdown)
    }

    /// A pulse output: on for `pulse`, then off (a garage-door opener).
    public static func pulse(
        _ id: String, name: String, line: Int, chip: String = "header", activeLow: Bool = false,
        drive: GPIODrive = .pushPull, pulse: Duration = .milliseconds(500)
    ) -> DeviceDeclaration {
        gpio(id, name, .pulse, GPIOSettings(chip: chip, line: .offset(line), activeLow: activeLow, drive: drive, bias: .asIs, debounce: .zero), restore: .off, pulse: pulse)
    }

    /// An input: a contact or a sensor, debounced.
    public static func input(
        _ id: String, name: String, line: Int, chip: String = "header", activeLow: Bool = false,
        bias: GPIOBias = .asIs, debounce: Duration = .milliseconds(20)
    ) -> DeviceDeclaration {
        gpio(id, name, .input, GPIOSettings(chip: chip, line: .offset(line), activeLow: activeLow, drive: .pushPull, bias: bias, debounce: debounce), restore: .off)
    }

    /// A device of another home system over MQTT, confirmed by its state topic, with its
    /// system's availability topic where its topics show one (Tasmota, Zigbee2MQTT, Shelly), as
    /// devices.json gives it; stale after `staleAfter` without a word, if given.
    public static func mqtt(
        _ id: String, name: String, stateTopic: String, valueKey: String? = nil, onValue: String = "ON", offValue: String = "OFF",
        commandTopic: String, onPayload: String? = nil, offPayload: String? = nil, timeout: Duration = .seconds(5),
        staleAfter: Duration? = nil
    ) -> DeviceDeclaration {
        var mqtt = MQTTDeviceSettings(
            stateTopic: stateTopic, valueKey: valueKey, onValue: onValue, offValue: offValue, commandTopic: commandTopic,
            onPayload: onPayload ?? onValue, offPayload: offPayload ?? offValue, timeout: timeout
        )
        mqtt.availability = MQTTAvailability.convention(stateTopic: stateTopic, commandTopic: commandTopic)
        mqtt.staleAfter = staleAfter
        return DeviceDeclaration(settings: DeviceSettings(id: id, name: name, kind: .mqtt, gpio: nil, pulse: .zero, restore: .last, onShutdown: .keep, mqtt: mqtt))
    }

    /// A control placed on another Switchboard node on the same broker (`control` is its
    /// placement's id there), performed through that node and shown from its presentation.
    public static func node(_ id: String, name: String, node: String, control: String, timeout: Duration = .seconds(5)) -> DeviceDeclaration {
        DeviceDeclaration(settings: DeviceSettings(
            id: id, name: name, kind: .node, gpio: nil, pulse: .zero, restore: .off, onShutdown: .keep, mqtt: nil,
            remote: RemoteControlSettings(node: node, control: control, timeout: timeout)
        ))
    }

    private static func gpio(
        _ id: String, _ name: String, _ kind: DeviceSettings.Kind, _ gpio: GPIOSettings,
        restore: DeviceSettings.Restore, onShutdown: DeviceSettings.Shutdown = .keep, pulse: Duration = .zero
    ) -> DeviceDeclaration {
        DeviceDeclaration(settings: DeviceSettings(id: id, name: name, kind: kind, gpio: gpio, pulse: pulse, restore: restore, onShutdown: onShutdown, mqtt: nil))
    }
}

extension ConfigurationLoader {
    /// Adds devices declared in Swift after the file's, with the header chip when they name it
    /// and the file has no chip of that id.
    package static func add(_ declarations: [DeviceDeclaration], to configuration: inout SwitchboardConfiguration, _ problems: inout [ConfigurationProblem]) {
        for declaration in declarations {
            var device = declaration.settings
            if configuration.device(device.id) != nil {
                problems.append(ConfigurationProblem("devices", "\"\(device.id)\" is declared in Swift and in devices.json; keep one of them"))
                continue
            }
            if !isIdentifier(device.id) {
                problems.append(ConfigurationProblem("devices", "\"\(device.id)\", declared in Swift, must be letters, digits, \"-\" or \"_\""))
                continue
            }
            if let chip = device.gpio?.chip, !configuration.chips.contains(where: { $0.id == chip }) {
                guard chip == "header" else {
                    problems.append(ConfigurationProblem("devices", "\"\(device.id)\", declared in Swift, is on chip \"\(chip)\", which devices.json's chips lack; add it there, or use the chip \"header\""))
                    continue
                }
                configuration.chips.append(ChipSettings(position: configuration.chips.count, id: "header", chip: "header", simulatedLines: 54))
            }
            device.position = configuration.devices.count
            configuration.devices.append(device)
        }
    }
}
