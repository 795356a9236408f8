import SwitchboardGPIO

extension ConfigurationLoader {
    /// Checks what refers to what: unique ids, devices that exist and fit their controls,
    /// placements of controls that exist, lines used once.
    static func validateReferences(_ configuration: SwitchboardConfiguration, swiftKinds: [String], allowsUnknownKinds: Bool = false, _ problems: inout [ConfigurationProblem]) {
        reportDuplicates(configuration.chips.map { ($0.id, $0.position) }, "chips", "id", &problems)
        reportDuplicates(configuration.devices.map { ($0.id, $0.position) }, "devices", "id", &problems)
        reportDuplicates(configuration.controls.map { ($0.kind, $0.position) }, "controls", "kind", &problems)
        reportDuplicates(configuration.placements.map { ($0.id, $0.position) }, "placements", "id", &problems)
        reportDuplicates(configuration.actionButtons.map { ($0.id, $0.position) }, "actionButtons", "id", &problems)

        let chipIDs = configuration.chips.map(\.id)
        var usedLines: [String: String] = [:]
        func checkGPIO(_ gpio: GPIOSettings?, at path: String) {
            guard let gpio else { return }
            guard chipIDs.contains(gpio.chip) else {
                let known = chipIDs.isEmpty ? "none are declared in \"chips\"" : "declared chips: \(chipIDs.joined(separator: ", "))"
                problems.append(ConfigurationProblem("\(path).chip", "\"\(gpio.chip)\" is not a chip; \(known)"))
                return
            }
            let key = "\(gpio.chip)/\(gpio.line)"
            if let other = usedLines[key] {
                problems.append(ConfigurationProblem("\(path).line", "\(gpio.line) on \(gpio.chip) is also used by \(other)"))
            } else {
                usedLines[key] = path
            }
        }
        for device in configuration.devices {
            let index = device.position
            checkGPIO(device.gpio, at: "devices[\(index)].gpio")
            if device.kind == .mqtt, configuration.mqtt == nil {
                problems.append(ConfigurationProblem("devices[\(index)]", "an mqtt device needs the top-level \"mqtt\" settings"))
            }
            if let remote = device.remote {
                if configuration.mqtt == nil {
                    problems.append(ConfigurationProblem("devices[\(index)]", "a node device reaches \(remote.node) through the broker: it needs the top-level \"mqtt\" settings"))
                }
                if remote.node == configuration.node {
                    problems.append(ConfigurationProblem("devices[\(index)].node", "\"\(remote.node)\" is this node; a node device names a control on another node (bind this node's controls to its own devices)"))
                }
            }
            // A device of another system on this node's own topics would feed the node's commands
            // and states back into itself: a loop.
            if let mqtt = device.mqtt, let base = configuration.mqtt?.baseTopic {
                let topics = [("stateTopic", mqtt.stateTopic), ("commandTopic", mqtt.commandTopic)]
                    + mqtt.extraStateTopics.enumerated().map { ("extraStateTopics[\($0.offset)].topic", $0.element.topic) }
                for (key, topic) in topics where topic == base || topic.hasPrefix(base + "/") {
                    problems.append(ConfigurationProblem(
                        "devices[\(index)].mqtt.\(key)",
                        "\"\(topic)\" is under this node's own topics (\(base)/#), which would loop back into the node; give the other system's topic"
                    ))
                }
            }
        }
        for button in configuration.buttons {
            checkGPIO(button.gpio, at: "buttons[\(button.position)].gpio")
        }
        for button in configuration.actionButtons {
            let index = button.position
            checkGPIO(button.gpio, at: "actionButtons[\(index)].gpio")
            if let placement = configuration.placements.first(where: { $0.id == button.placement }) {
                // A toggle showing an input has nothing to perform: holding the button would only fail.
                if let id = placement.device ?? configuration.control(placement.control)?.device, configuration.device(id)?.kind == .input {
                    problems.append(ConfigurationProblem("actionButtons[\(index)].placement", "\"\(button.placement)\" shows the input \"\(id)\", which an Action button cannot switch; place a control that drives a relay, pulse or mqtt device"))
                }
            } else {
                problems.append(ConfigurationProblem("actionButtons[\(index)].placement", "\"\(button.placement)\" is not a placement; placements: \(list(configuration.placements.map(\.id)))"))
            }
            for announcer in button.announce {
                if case .led(let led) = announcer, configuration.device(led)?.isOutput != true {
                    problems.append(ConfigurationProblem("actionButtons[\(index)].announce", "\"\(led)\" is not an output device (an LED must be a relay or pulse output)"))
                }
                if announcer == .mqtt, configuration.mqtt == nil {
                    problems.append(ConfigurationProblem("actionButtons[\(index)].announce", "\"mqtt\" needs the top-level \"mqtt\" settings"))
                }
            }
        }

        for control in configuration.controls {
            let path = "controls[\(control.position)]"
            if let id = control.device {
                checkControlDevice(id, control, configuration, at: "\(path).device", &problems)
            }
            validateScene(control, configuration, &problems)
            if let id = control.stateDevice {
                if let device = configuration.device(id) {
                    if device.kind == .pulse {
                        problems.append(ConfigurationProblem("\(path).stateDevice", "\"\(id)\" is a pulse output, which has no state to show; give an input, a relay or an mqtt device"))
                    }
                } else {
                    problems.append(ConfigurationProblem("\(path).stateDevice", "\"\(id)\" is not a device; devices: \(list(configuration.devices.map(\.id)))"))
                }
            }
            for id in control.devices {
                checkControlDevice(id, control, configuration, at: "\(path).devices", &problems)
            }
        }

        validateExtensions(configuration, &problems)
        validateInterlocks(configuration, &problems)
        validateHomeAssistant(configuration, &problems)
        validateButtons(configuration, &problems)
        validateSchedules(configuration, &problems)
        validateAutomations(configuration, &problems)
        validateCovers(configuration, &problems)

        for placement in configuration.placements {
            let path = "placements[\(placement.position)]"
            if swiftKinds.contains(placement.control) { continue }
            if configuration.cover(ofKind: placement.control) != nil {
                if placement.device != nil {
                    problems.append(ConfigurationProblem("\(path).device", "\"\(placement.control)\" is a cover's control, which drives its cover; leave \"device\" out"))
                }
                continue
            }
            if allowsUnknownKinds, configuration.control(placement.control) == nil { continue }
            guard let control = configuration.control(placement.control) else {
                problems.append(ConfigurationProblem("\(path).control", "\"\(placement.control)\" is not a control; controls: \(list(configuration.controls.map(\.kind) + configuration.covers.flatMap { [$0.toggleKind, $0.stopKind] } + swiftKinds))"))
                continue
            }
            if let device = placement.device {
                if !control.isConfigurable {
                    problems.append(ConfigurationProblem("\(path).device", "\"\(control.kind)\" always drives \"\(control.device ?? "")\"; only a control with \"devices\" is configured per placement"))
                } else if !control.devices.contains(device) {
                    problems.append(ConfigurationProblem("\(path).device", "\"\(device)\" is not one of \"\(control.kind)\"'s devices (\(control.devices.joined(separator: ", ")))"))
                }
            }
        }
    }

    private static func checkControlDevice(_ id: String, _ control: ControlSettings, _ configuration: SwitchboardConfiguration, at path: String, _ problems: inout [ConfigurationProblem]) {
        guard let device = configuration.device(id) else {
            problems.append(ConfigurationProblem(path, "\"\(id)\" is not a device"))
            return
        }
        switch (control.template, device.kind) {
        case (.button, .input):
            problems.append(ConfigurationProblem(path, "\"\(id)\" is an input, which a button cannot press; bind it to a toggle, which shows its state"))
        case (.toggle, .input) where control.autoOff != nil:
            problems.append(ConfigurationProblem(path, "\"\(id)\" is an input, which cannot be switched off; remove \"autoOff\""))
        case (.toggle, .pulse) where control.autoOff != nil:
            problems.append(ConfigurationProblem(path, "\"\(id)\" is a pulse output, which switches itself off; remove \"autoOff\""))
        case (.toggle, .pulse) where control.stateDevice == nil:
            problems.append(ConfigurationProblem(path, "\"\(id)\" is a pulse output; a toggle needs a relay or mqtt device, or a \"stateDevice\" to show (a garage door's contact), or use a button"))
        default:
            break
        }
    }

    static func reportDuplicates(_ ids: [(String, Int)], _ array: String, _ key: String, _ problems: inout [ConfigurationProblem]) {
        var first: [String: Int] = [:]
        for (id, index) in ids where !id.isEmpty {
            if let earlier = first[id] {
                problems.append(ConfigurationProblem("\(array)[\(index)].\(key)", "\"\(id)\" is used by \(array)[\(earlier)] too; each \(key) must be unique"))
            } else {
                first[id] = index
            }
        }
    }

    private static func list(_ items: [String]) -> String { items.isEmpty ? "none" : items.joined(separator: ", ") }

    /// Checks every line against the chips it is on: offsets in range, names that exist, and on a
    /// chip found as `header` (``GPIOChipLocation/isHeader``), only the header's pins (lines 0…27):
    /// the chip's other lines belong to the board, not to the 40-pin header. A problem on a header
    /// line says which chip the header is here.
    public static func validateLines(
        _ configuration: SwitchboardConfiguration, chips: [String: any GPIOChip], locations: [String: GPIOChipLocation] = [:], file: String
    ) throws {
        var problems: [ConfigurationProblem] = []
        func check(_ gpio: GPIOSettings?, at path: String) {
            guard let gpio, let chip = chips[gpio.chip] else { return }
            let header = locations[gpio.chip].flatMap { $0.isHeader ? $0 : nil }
            let found = header.map { "; \($0)" } ?? ""
            do {
                let offset = try chip.offset(of: gpio.line)
                if let header, !RaspberryPiHeader.pins.contains(offset) {
                    let pins = RaspberryPiHeader.pins
                    let line = switch gpio.line {
                    case .offset: "line \(offset)"
                    case .name(let name): "\(name) (line \(offset))"
                    }
                    problems.append(ConfigurationProblem(
                        "\(path).line",
                        "\(line) is not one of the header's pins (lines \(pins.lowerBound)…\(pins.upperBound), GPIO\(pins.lowerBound)…GPIO\(pins.upperBound))\(found); "
                            + "to use the chip's other lines, name the chip by its label, \"\(header.info.label)\""
                    ))
                }
            } catch let error as GPIOError {
                switch error.code {
                case .lineOutOfRange:
                    let range = error.validOffsets.map { "\($0.lowerBound)…\($0.upperBound)" } ?? "none"
                    problems.append(ConfigurationProblem("\(path).line", "\(gpio.line) is out of range for \(chip.info.name) (\(range))\(found)"))
                case .lineNotFound:
                    problems.append(ConfigurationProblem("\(path).line", "\(chip.info.name) has no line named \"\(gpio.line)\"\(found)"))
                default:
                    problems.append(ConfigurationProblem("\(path).line", error.description))
                }
            } catch {
                problems.append(ConfigurationProblem("\(path).line", String(describing: error)))
            }
        }
        for device in configuration.devices { check(device.gpio, at: "devices[\(device.position)].gpio") }
        for button in configuration.actionButtons { check(button.gpio, at: "actionButtons[\(button.position)].gpio") }
        if !problems.isEmpty { throw ConfigurationError(file: file, problems: problems) }
    }
}
