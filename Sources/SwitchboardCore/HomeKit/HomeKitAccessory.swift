import ControlKitCore
import SwitchboardHomeKit
import SwitchboardConfiguration

/// The service a placement is in HomeKit, as a Home user expects it: chosen as its Home Assistant
/// entity's kind is (the placement's `homeAssistant` block), and from the device it shows.
public enum HomeKitServiceKind: String, Sendable, Equatable {
    /// A light's toggle (`homeAssistant.component` `light`): Lightbulb, On.
    case lightbulb
    /// A fan's toggle (`component` `fan`): Fan, On.
    case fan
    /// A plug's toggle (`deviceClass` `outlet`): Outlet, On and OutletInUse.
    case outlet
    /// Any other toggle: Switch, On.
    case `switch`
    /// A button: a Switch that turns itself off once the button has performed.
    case button
    /// A toggle showing an input: Contact Sensor, ContactSensorState.
    case contactSensor
    /// A toggle showing an input whose `deviceClass` is `motion`: Motion Sensor, MotionDetected.
    case motionSensor
    /// A toggle driving a pulse output whose value comes from a reed switch (`stateDevice`):
    /// Garage Door Opener, CurrentDoorState, TargetDoorState, ObstructionDetected.
    case garageDoor
    /// A wall push-button of `buttons[]`: Stateless Programmable Switch, ProgrammableSwitchEvent
    /// (single, double and long press), for the Home app's automations.
    case programmableSwitch
    /// A blind of `covers[]` (its toggle): Window Covering, CurrentPosition, TargetPosition,
    /// PositionState.
    case windowCovering
    /// A garage door of `covers[]` (its toggle): Garage Door Opener, its state from the cover's
    /// (opening, closing and stopped too).
    case garageDoorCover

    /// The HAP service type (short form of Apple's UUID).
    var serviceType: String {
        switch self {
        case .lightbulb: return "43"
        case .fan: return "40"
        case .outlet: return "47"
        case .switch, .button: return "49"
        case .contactSensor: return "80"
        case .motionSensor: return "85"
        case .garageDoor, .garageDoorCover: return "41"
        case .programmableSwitch: return "89"
        case .windowCovering: return "8C"
        }
    }

    /// The service for a presentation in Control Center; nil for one on the Lock Screen or an
    /// Action button (the same controls again) or without a template.
    static func of(_ presentation: ControlPresentation, device chosen: String?, in configuration: SwitchboardConfiguration) -> HomeKitServiceKind? {
        guard presentation.space == .controlCenter, let template = presentation.template else { return nil }
        if template == .button { return .button }
        if let cover = configuration.covers.first(where: { $0.toggleKind == presentation.kind }) {
            if case .pulse = cover.drive { return .garageDoorCover }
            return .windowCovering
        }
        let control = configuration.control(presentation.kind)
        let placement = presentation.id.flatMap { id in configuration.placements.first { $0.id == id } }
        let device = (control?.device ?? chosen).flatMap(configuration.device)
        if let stateDevice = control?.stateDevice.flatMap(configuration.device), device?.kind == .pulse, stateDevice.kind == .input || stateDevice.kind == .mqtt {
            return .garageDoor
        }
        if let device, device.kind == .input {
            return device.deviceClass == "motion" ? .motionSensor : .contactSensor
        }
        switch placement?.homeAssistant?.component {
        case .light?: return .lightbulb
        case .fan?: return .fan
        default: return placement?.homeAssistant?.deviceClass == "outlet" ? .outlet : .switch
        }
    }
}

/// One characteristic served: its iid, HAP type, format, permissions and what it stands for.
struct HomeKitCharacteristic: Sendable {
    /// What a characteristic stands for, to read and write it.
    enum Role: Sendable, Equatable {
        case fixed(HAPJSON)
        case identify
        case on, outletInUse, contactState, motionDetected, currentDoorState, targetDoorState, obstructionDetected
        case currentPosition, targetPosition, positionState
        /// A press: an event only; read, it is null (HAP).
        case programmableSwitchEvent
    }

    var iid: Int
    var type: String
    var format: String
    var perms: [String]
    var role: Role
    var maxValue: Int? = nil

    func json(_ value: HAPJSON?) -> HAPJSON {
        var members: [String: HAPJSON] = ["iid": .int(iid), "type": .string(type), "format": .string(format), "perms": .array(perms.map(HAPJSON.string))]
        if let value, perms.contains("pr") { members["value"] = value }
        if let maxValue {
            members["minValue"] = .int(0)
            members["maxValue"] = .int(maxValue)
            members["minStep"] = .int(1)
        }
        return .object(members)
    }
}

/// One service of an accessory.
struct HomeKitService: Sendable {
    var iid: Int
    var type: String
    var characteristics: [HomeKitCharacteristic]
    var primary = false
}

/// One accessory: the bridge (aid 1) or a placement's.
struct HomeKitAccessory: Sendable {
    var aid: Int
    /// The placement it shows, and its service; nil for the bridge itself and for a push-button.
    var placement: String?
    /// The push-button of `buttons[]` it is, for a programmable switch.
    var button: String? = nil
    var kind: HomeKitServiceKind?
    var services: [HomeKitService]

    /// Its ids and types, to notice a change of the served accessories.
    var layout: String {
        "\(aid)" + services.map { service in
            "[\(service.iid):\(service.type)" + service.characteristics.map { " \($0.iid):\($0.type)" }.joined() + "]"
        }.joined()
    }
}
