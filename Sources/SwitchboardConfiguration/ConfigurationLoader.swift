#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ControlKitCore
import SwitchboardGPIO

/// Reads devices.json: every problem at once, each with its JSON path and what was expected.
public enum ConfigurationLoader {
    /// The largest devices.json read; anything larger is refused unread.
    public static let maximumFileSize = 1 << 20

    /// Loads and validates a file.
    /// - Parameter swiftKinds: the kinds of controls compiled into a Swift bundle, which placements may name.
    /// - Throws: ``ConfigurationError`` with every problem found.
    /// - Parameter swiftDevices: devices declared in Swift, added to the file's.
    public static func load(
        file path: String, swiftKinds: [String] = [], allowsUnknownKinds: Bool = false, swiftDevices: [DeviceDeclaration] = []
    ) throws -> SwitchboardConfiguration {
        if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size > maximumFileSize {
            throw ConfigurationError(file: path, problems: [ConfigurationProblem("", "the file is \(size) bytes; the largest devices.json read is \(maximumFileSize) bytes")])
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "is not readable by this user" : "does not exist"
            throw ConfigurationError(file: path, problems: [ConfigurationProblem("", "\(reason); give the path of a readable devices.json")])
        }
        return try load(data: data, file: path, swiftKinds: swiftKinds, allowsUnknownKinds: allowsUnknownKinds, swiftDevices: swiftDevices)
    }

    /// Loads and validates JSON text.
    /// - Parameter allowsUnknownKinds: placements may name kinds not known yet (a control
    ///   extension that has not listed its controls): they are placed once it does.
    public static func load(
        data: Data, file: String = "devices.json", swiftKinds: [String] = [], allowsUnknownKinds: Bool = false, swiftDevices: [DeviceDeclaration] = []
    ) throws -> SwitchboardConfiguration {
        guard data.count <= maximumFileSize else {
            throw ConfigurationError(file: file, problems: [ConfigurationProblem("", "the file is \(data.count) bytes; the largest devices.json read is \(maximumFileSize) bytes")])
        }
        let json: JSONValue
        do {
            json = try JSONValue.parseInWrittenOrder(data)
        } catch {
            if let syntax = JSONSyntax.firstError(in: data) {
                throw ConfigurationError(file: file, problems: [ConfigurationProblem("", "is not valid JSON: line \(syntax.line), column \(syntax.column): expected \(syntax.expected)")])
            }
            throw ConfigurationError(file: file, problems: [ConfigurationProblem("", "is not valid JSON (\(parseErrorSummary(error))); check for a missing comma, quote or brace")])
        }
        var problems: [ConfigurationProblem] = []
        var configuration = read(json, &problems)
        if configuration != nil { add(swiftDevices, to: &configuration!, &problems) }
        if let loaded = configuration {
            configuration?.extensions = resolveExecutables(loaded.extensions, relativeTo: file)
        }
        if let configuration { validateReferences(configuration, swiftKinds: swiftKinds, allowsUnknownKinds: allowsUnknownKinds, &problems) }
        guard problems.isEmpty, let configuration else { throw ConfigurationError(file: file, problems: problems) }
        return configuration
    }

    private static func parseErrorSummary(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            return context.underlyingError.map { String(describing: $0) } ?? context.debugDescription
        }
        return String(describing: error)
    }

    // MARK: Reading

    private static func read(_ json: JSONValue, _ problems: inout [ConfigurationProblem]) -> SwitchboardConfiguration? {
        guard var root = ObjectReader(json, at: "", problems: &problems) else { return nil }
        let node = root.string("node", required: true, &problems) ?? "switchboard"
        if !node.isEmpty, !isIdentifier(node) {
            problems.append(ConfigurationProblem("node", "\"\(node)\" must be letters, digits, \"-\" or \"_\" (it names MQTT topics)"))
        }
        let name = root.string("name", &problems)
        let mqtt = root.value("mqtt").flatMap { value -> MQTTSettings? in
            if case .null = value { return nil }
            return readMQTT(value, node: node, &problems)
        }
        let chips = readAll(root.array("chips", &problems), "chips", readChip, &problems)
        let devices = readAll(root.array("devices", &problems), "devices", readDevice, &problems)
        let controls = readAll(root.array("controls", &problems), "controls", readControl, &problems)
        let placements = readAll(root.array("placements", &problems), "placements", readPlacement, &problems)
        let buttons = readAll(root.array("actionButtons", &problems), "actionButtons", readActionButton, &problems)
        let extensions = readAll(root.array("extensions", &problems), "extensions", readExtension, &problems)
        let interlocks = readAll(root.array("interlocks", &problems), "interlocks", readInterlock, &problems)
        let pushButtons = readAll(root.array("buttons", &problems), "buttons", readButton, &problems)
        let covers = readAll(root.array("covers", &problems), "covers", readCover, &problems)
        let homekit = root.value("homekit").flatMap { value -> HomeKitSettings? in
            if case .null = value { return nil }
            return readHomeKit(value, &problems)
        }
        let location = root.value("location").flatMap { readLocation($0, &problems) }
        let schedules = readAll(root.array("schedules", &problems), "schedules", readSchedule, &problems)
        let automations = readAll(root.array("automations", &problems), "automations", readAutomation, &problems)
        root.finish(&problems)
        var configuration = SwitchboardConfiguration(
            node: node, name: name, mqtt: mqtt, chips: chips, devices: devices, controls: controls, placements: placements, actionButtons: buttons,
            extensions: extensions, interlocks: interlocks, buttons: pushButtons, covers: covers, homekit: homekit
        )
        configuration.location = location
        configuration.schedules = schedules
        configuration.automations = automations
        listenForDoublePresses(&configuration)
        return configuration
    }

    /// Reads each element of an array, remembering its index for messages.
    private static func readAll<Settings: PositionedSettings>(
        _ values: [JSONValue], _ array: String,
        _ read: (JSONValue, String, inout [ConfigurationProblem]) -> Settings?, _ problems: inout [ConfigurationProblem]
    ) -> [Settings] {
        values.enumerated().compactMap { index, value in
            guard var settings = read(value, "\(array)[\(index)]", &problems) else { return nil }
            settings.position = index
            return settings
        }
    }

    private static func readMQTT(_ value: JSONValue, node: String, _ problems: inout [ConfigurationProblem]) -> MQTTSettings? {
        guard var reader = ObjectReader(value, at: "mqtt", problems: &problems) else { return nil }
        let host = reader.string("host", &problems) ?? "127.0.0.1"
        let port = reader.int("port", in: 1...65535, default: 1883, &problems) ?? 1883
        let clientID = reader.string("clientId", &problems)
        let keepalive = reader.int("keepalive", in: 5...3600, default: 60, &problems) ?? 60
        let cleanSession = reader.bool("cleanSession", default: false, &problems)
        let username = reader.string("username", &problems)
        let passwordFile = reader.string("passwordFile", &problems)
        if reader.value("password") != nil {
            problems.append(ConfigurationProblem("mqtt.password", "passwords are never kept in devices.json: put it in a file readable only by the service user and give its path as \"passwordFile\""))
        }
        let version = reader.string("protocol", &problems) ?? "5"
        if version != "3.1.1" && version != "5" {
            problems.append(ConfigurationProblem("mqtt.protocol", "\"\(version)\" is not one of \"3.1.1\", \"5\""))
        }
        var tls: TLSSettings?
        if let tlsValue = reader.value("tls"), var tlsReader = ObjectReader(tlsValue, at: "mqtt.tls", problems: &problems) {
            let ca = tlsReader.string("caFile", required: true, &problems) ?? ""
            tls = TLSSettings(caFile: ca, certificateFile: tlsReader.string("certificateFile", &problems), keyFile: tlsReader.string("keyFile", &problems))
            if (tls?.certificateFile == nil) != (tls?.keyFile == nil) {
                problems.append(ConfigurationProblem("mqtt.tls", "give both \"certificateFile\" and \"keyFile\" for a client certificate, or neither"))
            }
            tlsReader.finish(&problems)
        }
        let base = reader.string("baseTopic", &problems) ?? "switchboard/\(node)"
        if base.contains("+") || base.contains("#") || base.hasSuffix("/") || base.isEmpty {
            problems.append(ConfigurationProblem("mqtt.baseTopic", "\"\(base)\" must be a topic without wildcards or a trailing \"/\""))
        }
        let discovery = reader.bool("discovery", default: true, &problems)
        let prefix = reader.string("discoveryPrefix", &problems) ?? "homeassistant"
        let deadline = reader.duration("commandDeadline", default: .seconds(10), &problems) ?? .seconds(10)
        reader.finish(&problems)
        var settings = MQTTSettings(host: host, port: port, clientID: clientID, keepalive: keepalive, cleanSession: cleanSession, username: username, passwordFile: passwordFile,
                                    protocolVersion: version, tls: tls, baseTopic: base, discovery: discovery, discoveryPrefix: prefix)
        settings.commandDeadline = deadline
        return settings
    }

    private static func readChip(_ value: JSONValue, at path: String, _ problems: inout [ConfigurationProblem]) -> ChipSettings? {
        guard var reader = ObjectReader(value, at: path, problems: &problems) else { return nil }
        let id = reader.string("id", required: true, &problems) ?? ""
        let chip = reader.string("chip", required: true, &problems) ?? ""
        let lines = reader.int("simulatedLines", in: 1...1024, default: 54, &problems) ?? 54
        reader.finish(&problems)
        return ChipSettings(id: id, chip: chip, simulatedLines: lines)
    }

    static func readGPIO(_ value: JSONValue, at path: String, output: Bool, _ problems: inout [ConfigurationProblem]) -> GPIOSettings? {
        guard var reader = ObjectReader(value, at: path, problems: &problems) else { return nil }
        let chip = reader.string("chip", required: true, &problems) ?? ""
        let line = reader.line("line", &problems)
        let activeLow = reader.bool("activeLow", default: false, &problems)
        let drive: GPIODrive = output ? (reader.choice("drive", default: GPIODrive.pushPull, &problems) ?? .pushPull) : .pushPull
        let bias: GPIOBias = reader.choice("bias", default: GPIOBias.asIs, &problems) ?? .asIs
        let debounce: Duration = output ? .zero : (reader.duration("debounce", default: .milliseconds(20), &problems) ?? .milliseconds(20))
        reader.finish(&problems)
        guard let line else { return nil }
        return GPIOSettings(chip: chip, line: line, activeLow: activeLow, drive: drive, bias: bias, debounce: debounce)
    }

    private static func readDevice(_ value: JSONValue, at path: String, _ problems: inout [ConfigurationProblem]) -> DeviceSettings? {
        guard var reader = ObjectReader(value, at: path, problems: &problems) else { return nil }
        let id = reader.string("id", required: true, &problems) ?? ""
        if !id.isEmpty, !isIdentifier(id) {
            problems.append(ConfigurationProblem(reader.child("id"), "\"\(id)\" must be letters, digits, \"-\" or \"_\""))
        }
        let name = reader.string("name", &problems) ?? id
        let kind: DeviceSettings.Kind? = reader.choice("type", default: nil, &problems)
        var gpio: GPIOSettings?
        var mqtt: MQTTDeviceSettings?
        var remote: RemoteControlSettings?
        if kind == .node {
            remote = readRemoteControl(&reader, &problems)
        } else if let kind, kind != .mqtt {
            if let value = reader.value("gpio") {
                gpio = readGPIO(value, at: reader.child("gpio"), output: kind != .input, &problems)
            } else {
                problems.append(ConfigurationProblem(reader.child("gpio"), "is required for a \(kind.rawValue) device (an object with \"chip\" and \"line\")"))
            }
        } else if kind == .mqtt {
            if let value = reader.value("mqtt") {
                mqtt = readMQTTDevice(value, at: reader.child("mqtt"), &problems)
            } else {
                problems.append(ConfigurationProblem(reader.child("mqtt"), "is required for an mqtt device (an object with \"stateTopic\" and \"commandTopic\")"))
            }
        }
        let pulse = kind == .pulse ? (reader.duration("pulse", default: .milliseconds(500), &problems) ?? .milliseconds(500)) : .zero
        // An input is read, never driven: it has no value to restore and nothing to switch off;
        // a control on another node is restored and shut down by that node.
        let ownsNoState = kind == .input || kind == .node
        let restore: DeviceSettings.Restore = ownsNoState ? .off : (reader.choice("restore", default: .last, &problems) ?? .last)
        let shutdown: DeviceSettings.Shutdown = ownsNoState ? .keep : (reader.choice("onShutdown", default: .keep, &problems) ?? .keep)
        let deviceClass = kind == .input ? readDeviceClass(&reader, &problems) : nil
        if let deviceClass, let problem = HomeAssistantDeviceClasses.problem(deviceClass, for: .binarySensor) {
            problems.append(ConfigurationProblem(reader.child("deviceClass"), problem))
        }
        reader.finish(&problems)
        guard let kind else { return nil }
        return DeviceSettings(id: id, name: name, kind: kind, gpio: gpio, pulse: pulse, restore: restore, onShutdown: shutdown, mqtt: mqtt, remote: remote, deviceClass: deviceClass)
    }

    /// A `node` device's `node`, `control` and `timeout`.
    private static func readRemoteControl(_ reader: inout ObjectReader, _ problems: inout [ConfigurationProblem]) -> RemoteControlSettings {
        let node = reader.string("node", required: true, &problems) ?? ""
        let control = reader.string("control", required: true, &problems) ?? ""
        for (key, value) in [("node", node), ("control", control)] where !value.isEmpty && !isIdentifier(value) {
            problems.append(ConfigurationProblem(reader.child(key), "\"\(value)\" must be letters, digits, \"-\" or \"_\" (it names MQTT topics)"))
        }
        let timeout = reader.duration("timeout", default: .seconds(5), &problems) ?? .seconds(5)
        return RemoteControlSettings(node: node, control: control, timeout: timeout)
    }

    private static func readMQTTDevice(_ value: JSONValue, at path: String, _ problems: inout [ConfigurationProblem]) -> MQTTDeviceSettings? {
        guard var reader = ObjectReader(value, at: path, problems: &problems) else { return nil }
        let state = reader.string("stateTopic", required: true, &problems) ?? ""
        let key = reader.string("valueKey", &problems)
        let onValue = reader.string("onValue", &problems) ?? "ON"
        let offValue = reader.string("offValue", &problems) ?? "OFF"
        let command = reader.string("commandTopic", required: true, &problems) ?? ""
        for (field, topic) in [("commandTopic", command)] where topic.contains("+") || topic.contains("#") {
            problems.append(ConfigurationProblem(reader.child(field), "\"\(topic)\" must not contain wildcards"))
        }
        let onPayload = reader.string("onPayload", &problems) ?? onValue
        let offPayload = reader.string("offPayload", &problems) ?? offValue
        let timeout = reader.duration("timeout", default: .seconds(5), &problems) ?? .seconds(5)
        var request: MQTTStateRequest?
        if let value = reader.value("stateRequest"), var requestReader = ObjectReader(value, at: reader.child("stateRequest"), problems: &problems) {
            let topic = requestReader.string("topic", required: true, &problems) ?? ""
            if topic.contains("+") || topic.contains("#") {
                problems.append(ConfigurationProblem(requestReader.child("topic"), "\"\(topic)\" must not contain wildcards"))
            }
            request = MQTTStateRequest(topic: topic, payload: requestReader.string("payload", &problems) ?? "")
            requestReader.finish(&problems)
        }
        let availability = readAvailability(&reader, stateTopic: state, commandTopic: command, &problems)
        let staleAfter = reader.duration("staleAfter", default: nil, &problems)
        let extraStateTopics = readExtraStateTopics(&reader, stateTopic: state, &problems)
        reader.finish(&problems)
        var settings = MQTTDeviceSettings(stateTopic: state, valueKey: key, onValue: onValue, offValue: offValue, commandTopic: command,
                                          onPayload: onPayload, offPayload: offPayload, timeout: timeout)
        settings.stateRequest = request
        settings.availability = availability
        settings.staleAfter = staleAfter
        settings.extraStateTopics = extraStateTopics
        return settings
    }

    private static func readControl(_ value: JSONValue, at path: String, _ problems: inout [ConfigurationProblem]) -> ControlSettings? {
        guard var reader = ObjectReader(value, at: path, problems: &problems) else { return nil }
        let kind = reader.string("kind", required: true, &problems) ?? ""
        let template: ControlTemplateKind = reader.choice("template", default: .toggle, &problems) ?? .toggle
        let title = reader.string("title", &problems)
        let device = reader.string("device", &problems)
        let devices = reader.strings("devices", &problems)
        let scene = readScene(&reader, &problems)
        if scene != nil {
            if device != nil || !devices.isEmpty {
                problems.append(ConfigurationProblem(reader.child("scene"), "a scene sets its own devices: give \"scene\" without \"device\" or \"devices\""))
            }
            if template != .button {
                problems.append(ConfigurationProblem(reader.child("scene"), "a scene is a button (\"template\": \"button\"): it sets its devices, it shows no one state"))
            }
        } else if device != nil && !devices.isEmpty {
            problems.append(ConfigurationProblem(reader.child("devices"), "give either \"device\" (a fixed device) or \"devices\" (the choices of a configurable control), not both"))
        } else if device == nil && devices.isEmpty {
            problems.append(ConfigurationProblem(reader.child("device"), "is required: the device this control drives, or \"devices\" for a configurable control"))
        }
        var symbolOn = "power", symbolOff = "power"
        if let symbol = reader.string("symbol", &problems) { symbolOn = symbol; symbolOff = symbol }
        let (on, off) = readStatePair(&reader, "symbols", &problems)
        symbolOn = on ?? symbolOn
        symbolOff = off ?? symbolOff
        let valueText = readStatePair(&reader, "valueText", &problems)
        let tintName = reader.string("tint", &problems)
        var tint: Color?
        if let tintName {
            tint = Color(named: tintName)
            if tint == nil {
                problems.append(ConfigurationProblem(reader.child("tint"), "\"\(tintName)\" is not a colour: use a system colour (\(Color.system.map(\.name).joined(separator: ", "))) or \"#RRGGBB\""))
            }
        }
        let hints = readStatePair(&reader, "actionHint", &problems)
        let status = readStatePair(&reader, "status", &problems)
        let displayName = reader.string("displayName", &problems)
        let description = reader.string("description", &problems)
        let authentication = reader.bool("requiresAuthentication", default: false, &problems)
        let privacy = reader.bool("privacySensitive", default: false, &problems)
        let autoOff = reader.duration("autoOff", default: nil, &problems)
        if autoOff != nil && template == .button {
            problems.append(ConfigurationProblem(reader.child("autoOff"), "only a toggle can switch itself off"))
        }
        let prompts = reader.bool("promptsForConfiguration", default: !devices.isEmpty, &problems)
        let stateDevice = reader.string("stateDevice", &problems)
        if stateDevice != nil && device == nil {
            problems.append(ConfigurationProblem(reader.child("stateDevice"), "is for a control with one \"device\"; a configurable control shows the device it drives"))
        }
        reader.finish(&problems)
        var settings = ControlSettings(
            kind: kind, template: template, title: title, device: device, devices: devices,
            symbolOn: symbolOn, symbolOff: symbolOff, valueTextOn: valueText.on, valueTextOff: valueText.off, tint: tint,
            actionHintOn: hints.on, actionHintOff: hints.off, statusOn: status.on, statusOff: status.off,
            displayName: displayName, description: description, requiresAuthentication: authentication,
            privacySensitive: privacy, autoOff: autoOff, promptsForConfiguration: prompts
        )
        settings.stateDevice = stateDevice
        settings.scene = scene
        return settings
    }

    /// A text for each state, `{"on": …, "off": …}`, or one string for both (or for a button).
    private static func readStatePair(_ reader: inout ObjectReader, _ key: String, _ problems: inout [ConfigurationProblem]) -> (on: String?, off: String?) {
        switch reader.value(key) {
        case nil, .null?: return (nil, nil)
        case .string(let text)?: return (text, text)
        case let value?:
            guard var pair = ObjectReader(value, at: reader.child(key), problems: &problems) else { return (nil, nil) }
            let on = pair.string("on", &problems), off = pair.string("off", &problems)
            pair.finish(&problems)
            return (on, off)
        }
    }

    private static func readPlacement(_ value: JSONValue, at path: String, _ problems: inout [ConfigurationProblem]) -> PlacementSettings? {
        guard var reader = ObjectReader(value, at: path, problems: &problems) else { return nil }
        let id = reader.string("id", required: true, &problems) ?? ""
        if !id.isEmpty, !isIdentifier(id) {
            problems.append(ConfigurationProblem(reader.child("id"), "\"\(id)\" must be letters, digits, \"-\" or \"_\" (it names MQTT topics)"))
        }
        let control = reader.string("control", required: true, &problems) ?? ""
        let space: ControlSpace = reader.choice("space", default: .controlCenter, &problems) ?? .controlCenter
        let size: ControlSize? = reader.choice("size", default: space == .controlCenter ? .medium : nil, required: false, &problems)
        if size != nil && space != .controlCenter {
            problems.append(ConfigurationProblem(reader.child("size"), "only Control Center tiles have a size"))
        }
        let device = reader.string("device", &problems)
        let homeAssistant = reader.value("homeAssistant").flatMap { readHomeAssistant($0, at: reader.child("homeAssistant"), &problems) }
        reader.finish(&problems)
        return PlacementSettings(id: id, control: control, space: space, size: size, device: device, homeAssistant: homeAssistant)
    }

    private static func readActionButton(_ value: JSONValue, at path: String, _ problems: inout [ConfigurationProblem]) -> ActionButtonSettings? {
        guard var reader = ObjectReader(value, at: path, problems: &problems) else { return nil }
        let id = reader.string("id", required: true, &problems) ?? ""
        var gpio: GPIOSettings?
        if let value = reader.value("gpio") {
            gpio = readGPIO(value, at: reader.child("gpio"), output: false, &problems)
        } else {
            problems.append(ConfigurationProblem(reader.child("gpio"), "is required (an object with \"chip\" and \"line\")"))
        }
        let placement = reader.string("placement", required: true, &problems) ?? ""
        // Shorter than a debounce window is no hold; longer than 30 s is no button anyone holds.
        let hold = reader.duration("holdTime", in: .milliseconds(20) ... .seconds(30), default: .milliseconds(700), &problems) ?? .milliseconds(700)
        var announcers: [ActionButtonSettings.Announcer] = []
        let announce = reader.array("announce", &problems)
        for (index, element) in (announce.isEmpty ? [.string("log")] : announce).enumerated() {
            switch element {
            case .string("log"): announcers.append(.log)
            case .string("mqtt"): announcers.append(.mqtt)
            case .string("speech"): announcers.append(.speech)
            case .object where element["led"] != nil:
                if case .string(let device)? = element["led"] { announcers.append(.led(device)) }
                else { problems.append(ConfigurationProblem("\(reader.child("announce"))[\(index)].led", "expected a device id")) }
            default:
                problems.append(ConfigurationProblem("\(reader.child("announce"))[\(index)]", "\(element.compactText) is not an announcer: use \"log\", \"mqtt\", \"speech\" or {\"led\": \"<device>\"}"))
            }
        }
        reader.finish(&problems)
        guard let gpio else { return nil }
        return ActionButtonSettings(id: id, gpio: gpio, placement: placement, holdTime: hold, announce: announcers)
    }

    static func isIdentifier(_ text: String) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }
}
