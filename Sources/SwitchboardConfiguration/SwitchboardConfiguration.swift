import ControlKitCore
import SwitchboardGPIO

/// A node's whole configuration: what devices.json declares.
public struct SwitchboardConfiguration: Sendable, Equatable {
    /// The node's name: the default MQTT base `switchboard/<node>`, and the controls' bundle name.
    public var node: String
    /// The node's name for people ("Garage"): its device's name in Home Assistant. The node id if not given.
    public var name: String? = nil
    /// The MQTT connection, if any: without it the daemon still runs GPIO, Action buttons and the CLI.
    public var mqtt: MQTTSettings?
    public var chips: [ChipSettings]
    public var devices: [DeviceSettings]
    public var controls: [ControlSettings]
    public var placements: [PlacementSettings]
    public var actionButtons: [ActionButtonSettings]
    /// Control extensions the daemon runs, each in its own process.
    public var extensions: [ExtensionSettings] = []
    /// Groups of outputs of which at most one is on at a time (a blind's up and down relays).
    public var interlocks: [InterlockSettings] = []
    /// Push-buttons with short, double and long presses, each performing a placed control.
    public var buttons: [ButtonSettings] = []
    /// Blinds, shutters and garage doors, each with its toggle and stop controls.
    public var covers: [CoverSettings] = []
    /// The HomeKit bridge, if any (``HomeKitSettings``).
    public var homekit: HomeKitSettings? = nil
    /// Where the node is, for schedules at sunrise and sunset.
    public var location: NodeLocation? = nil
    /// What the node does by itself at times of day (``ScheduleSettings``).
    public var schedules: [ScheduleSettings] = []
    /// What the node does by itself when something happens (``AutomationSettings``).
    public var automations: [AutomationSettings] = []

    /// The interlock a device is in, if any.
    public func interlock(of device: String) -> InterlockSettings? { interlocks.first { $0.devices.contains(device) } }

    public func device(_ id: String) -> DeviceSettings? { devices.first { $0.id == id } }
    /// The cover whose toggle or stop button is control `kind`, if any.
    public func cover(ofKind kind: String) -> CoverSettings? { covers.first { $0.toggleKind == kind || $0.stopKind == kind } }
    public func control(_ kind: String) -> ControlSettings? { controls.first { $0.kind == kind } }
}

/// The MQTT connection.
public struct MQTTSettings: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var clientID: String?
    public var keepalive: Int
    /// False (the default): the broker keeps the node's session (MQTT 3.1.1), so QoS 1 commands
    /// sent while the node is away are delivered, in order, when it reconnects.
    public var cleanSession: Bool
    public var username: String?
    /// A file holding the password; never the password itself.
    public var passwordFile: String?
    /// `3.1.1` or `5`.
    public var protocolVersion: String
    public var tls: TLSSettings?
    /// `switchboard/<node>` by default.
    public var baseTopic: String
    /// Home Assistant discovery, on by default.
    public var discovery: Bool
    public var discoveryPrefix: String
    /// How long a command from MQTT may wait for its turn before it is dropped as too late
    /// (default 10 s): a garage door command a minute late is not a command any more.
    public var commandDeadline: Duration = .seconds(10)
}

public struct TLSSettings: Sendable, Equatable {
    public var caFile: String
    public var certificateFile: String?
    public var keyFile: String?
}

/// A GPIO chip: a real one, found by path, name or label, or its simulated stand-in.
public struct ChipSettings: PositionedSettings {
    /// Its index in its devices.json array, for messages.
    public var position = 0
    /// How devices refer to the chip.
    public var id: String
    /// `/dev/gpiochip0`, `gpiochip0` or a label such as `pinctrl-bcm2835`.
    public var chip: String
    /// How many lines the simulated chip has (`--simulate`); 54 by default, as a Raspberry Pi's.
    public var simulatedLines: Int
}

/// A device: a GPIO output or input, or something living in another home system over MQTT.
public struct DeviceSettings: PositionedSettings {
    /// Its index in its devices.json array, for messages.
    public var position = 0
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// An output that stays on or off: a relay.
        case relay
        /// An output switched on for ``DeviceSettings/pulse`` then off: a garage-door opener.
        case pulse
        /// An input: a contact, a sensor.
        case input
        /// State and commands over MQTT topics of another system.
        case mqtt
        /// A control placed on another Switchboard node on the same broker, named by node and
        /// placement: performed through its `/set` with a transaction, shown from its presentation.
        case node
    }

    public enum Restore: String, Sendable, Equatable, CaseIterable {
        case off, on, last
    }

    public enum Shutdown: String, Sendable, Equatable, CaseIterable {
        /// Leave the output at its level (the default).
        case keep
        /// Switch it off first.
        case off
    }

    public var id: String
    public var name: String
    public var kind: Kind
    public var gpio: GPIOSettings?
    public var pulse: Duration
    public var restore: Restore
    public var onShutdown: Shutdown
    public var mqtt: MQTTDeviceSettings?
    /// The control on another node that a `node` device is.
    public var remote: RemoteControlSettings? = nil
    /// An input's Home Assistant device class (`door`, `garage_door`, `motion`, `window` …).
    public var deviceClass: String? = nil

    /// Why a device reached through the broker cannot be switched while there is no connection:
    /// "Kitchen Light lives in another system and Switchboard is not connected to the MQTT broker",
    /// then `since`.
    package func unreachableWithoutBroker(since: String = "") -> String {
        let place = remote.map { "on the node \($0.node)" } ?? "in another system"
        return "\(name) lives \(place) and Switchboard is not connected to the MQTT broker\(since)"
    }

    /// Whether the device is a GPIO output.
    public var isOutput: Bool { kind == .relay || kind == .pulse }
}

/// Where a device or button sits on a chip.
public struct GPIOSettings: Sendable, Equatable {
    /// The chip's id from `chips`.
    public var chip: String
    public var line: GPIOLineSelector
    public var activeLow: Bool
    public var drive: GPIODrive
    public var bias: GPIOBias
    public var debounce: Duration
}

/// How to read and command a device living in another home system.
public struct MQTTDeviceSettings: Sendable, Equatable {
    public var stateTopic: String
    /// A JSON key to read (`state` for Zigbee2MQTT); nil reads the whole payload.
    public var valueKey: String?
    /// The payloads that mean on and off in the state topic.
    public var onValue: String
    public var offValue: String
    public var commandTopic: String
    /// The payloads to publish to switch it on and off.
    public var onPayload: String
    public var offPayload: String
    /// How long to wait for the state topic to confirm a command.
    public var timeout: Duration
    /// A message that makes the device say its state, sent at start and on every reconnect
    /// (Tasmota: an empty `cmnd/<topic>/POWER`; Zigbee2MQTT: `<device>/get` with `{"state":""}`).
    public var stateRequest: MQTTStateRequest? = nil
    /// Where the device says whether it is online; while it says not, its controls are stale.
    public var availability: MQTTAvailability? = nil
    /// How long the device may say nothing before its controls go stale; nil: forever.
    public var staleAfter: Duration? = nil
    /// Other topics on which the device also says its state (Tasmota's periodic
    /// `tele/<topic>/STATE`, with `POWER` in it), each read with its own key.
    public var extraStateTopics: [MQTTStateTopic] = []

    /// Every topic that carries its state, the state topic first.
    public var stateTopics: [MQTTStateTopic] { [MQTTStateTopic(topic: stateTopic, valueKey: valueKey)] + extraStateTopics }

    /// How the state is read on `topic`: its JSON key, or nil for the whole payload.
    public func valueKey(on topic: String) -> String? {
        topic == stateTopic ? valueKey : extraStateTopics.first { $0.topic == topic }?.valueKey
    }

    /// Settings as given, field by field.
    package init(stateTopic: String, valueKey: String? = nil, onValue: String, offValue: String, commandTopic: String, onPayload: String, offPayload: String, timeout: Duration, stateRequest: MQTTStateRequest? = nil, availability: MQTTAvailability? = nil, staleAfter: Duration? = nil, extraStateTopics: [MQTTStateTopic] = []) {
        self.stateTopic = stateTopic
        self.valueKey = valueKey
        self.onValue = onValue
        self.offValue = offValue
        self.commandTopic = commandTopic
        self.onPayload = onPayload
        self.offPayload = offPayload
        self.timeout = timeout
        self.stateRequest = stateRequest
        self.availability = availability
        self.staleAfter = staleAfter
        self.extraStateTopics = extraStateTopics
    }
}

/// A topic on which a device of another system says its state.
public struct MQTTStateTopic: Sendable, Equatable {
    public var topic: String
    /// A JSON key to read; nil reads the whole payload.
    public var valueKey: String?

    public init(topic: String, valueKey: String?) {
        self.topic = topic
        self.valueKey = valueKey
    }
}

/// A control on another Switchboard node: `{"type": "node", "node": "shed-pi", "control": "porch"}`.
/// Its topics are that node's under the same prefix as this node's own (`switchboard/shed-pi/…`).
public struct RemoteControlSettings: Sendable, Equatable {
    /// The other node's name (its devices.json `node`).
    public var node: String
    /// The placement's id on that node (what `switchboard status` lists there).
    public var control: String
    /// How long to wait for the node's `/result` to a command.
    public var timeout: Duration

    public init(node: String, control: String, timeout: Duration = .seconds(5)) {
        self.node = node
        self.control = control
        self.timeout = timeout
    }

    /// "shed-pi/porch", as the fleet CLI names it.
    public var address: String { node + "/" + control }
}

/// A message that asks a device of another system for its state.
public struct MQTTStateRequest: Sendable, Equatable {
    public var topic: String
    public var payload: String
}

/// A control declared in devices.json.
public struct ControlSettings: PositionedSettings {
    /// Its index in its devices.json array, for messages.
    public var position = 0
    public var kind: String
    public var template: ControlTemplateKind
    /// The title; for a configurable control, the chosen device's name when nil.
    public var title: String?
    /// The device a static control drives.
    public var device: String?
    /// The devices a configurable control may drive ("which light").
    public var devices: [String]
    /// Where a static control's value comes from, when not from the device it drives: the garage
    /// door's reed switch for a toggle that pulses its opener.
    public var stateDevice: String? = nil
    /// A scene: the devices a button sets, each to its value ("All Lights Off"), in file order.
    public var scene: [SceneStep]? = nil
    public var symbolOn: String
    public var symbolOff: String
    public var valueTextOn: String?
    public var valueTextOff: String?
    public var tint: Color?
    public var actionHintOn: String?
    public var actionHintOff: String?
    public var statusOn: String?
    public var statusOff: String?
    public var displayName: String?
    public var description: String?
    public var requiresAuthentication: Bool
    public var privacySensitive: Bool
    public var autoOff: Duration?
    public var promptsForConfiguration: Bool

    public var isConfigurable: Bool { !devices.isEmpty }
}

/// One device of a scene and the value the scene gives it.
public struct SceneStep: Sendable, Equatable {
    public var device: String
    public var value: Bool
}

/// A control placed in a space.
public struct PlacementSettings: PositionedSettings {
    /// Its index in its devices.json array, for messages.
    public var position = 0
    public var id: String
    public var control: String
    public var space: ControlSpace
    public var size: ControlSize?
    /// The chosen device of a configurable control.
    public var device: String?
    /// How it appears in Home Assistant, if devices.json says.
    public var homeAssistant: HomeAssistantEntitySettings? = nil

    /// Settings as given, field by field.
    package init(position: Int = 0, id: String, control: String, space: ControlSpace, size: ControlSize? = nil, device: String? = nil, homeAssistant: HomeAssistantEntitySettings? = nil) {
        self.position = position
        self.id = id
        self.control = control
        self.space = space
        self.size = size
        self.device = device
        self.homeAssistant = homeAssistant
    }
}

/// A push-button acting as an Action button for one placed control.
public struct ActionButtonSettings: PositionedSettings {
    /// Its index in its devices.json array, for messages.
    public var position = 0
    public enum Announcer: Sendable, Equatable {
        case log
        case mqtt
        case speech
        /// An LED output (a device id) blinking a pattern per phase.
        case led(String)
    }

    public var id: String
    public var gpio: GPIOSettings
    public var placement: String
    public var holdTime: Duration
    public var announce: [Announcer]
}

/// A push-button on a GPIO input whose short, double and long presses each perform a placed
/// control (a toggle toggles, a button presses) and are published on MQTT.
public struct ButtonSettings: PositionedSettings {
    /// Its index in its devices.json array, for messages.
    public var position = 0
    public var id: String
    public var gpio: GPIOSettings
    /// The placement each kind of press performs, if any.
    public var short: String?
    public var double: String?
    public var long: String?
    /// How long a press must be held to be long.
    public var longTime: Duration
    /// How soon after a short press a second one makes a double (zero: no double press).
    public var doubleWindow: Duration
}

/// Outputs of which at most one is on at a time, with a dead time between switching one off and
/// another on, as a blind's up and down relays or a motor's two directions need.
public struct InterlockSettings: PositionedSettings {
    /// Its index in its devices.json array, for messages.
    public var position = 0
    public var id: String
    /// Its outputs (relays or pulses).
    public var devices: [String]
    /// How long all stay off between one going off and another going on.
    public var deadTime: Duration
}

/// A control extension: an executable whose `@main` is a `WidgetBundle`, run by the daemon in
/// its own process and served like the daemon's own controls.
public struct ExtensionSettings: PositionedSettings {
    /// Its index in its devices.json array, for messages.
    public var position = 0
    /// How messages and `switchboard status` name it.
    public var id: String
    /// The executable's absolute path (relative paths in devices.json are from its folder).
    public var executable: String
    public var arguments: [String]
    /// The user it runs as (switchboardd must run as root to switch users); nil: the daemon's.
    public var user: String?
    /// The devices its controls may use; every other device call is refused.
    public var devices: [String]
    /// How long a render or a perform may take before it fails as timed out.
    public var timeout: Duration
}

/// Settings read from an element of a devices.json array.
public protocol PositionedSettings: Sendable, Equatable {
    /// Its index in its array, for messages.
    var position: Int { get set }
}
