import ControlKitCore
import SwitchboardHomeKit
import SwitchboardConfiguration

/// Makes the served accessories: the bridge (aid 1: Accessory Information and HAP Protocol
/// Information) and one accessory per Control Center placement, each with its Accessory
/// Information and its service, every id taken from (or added to) the ``HomeKitAccessoryMap``.
enum HomeKitAccessoryBuilder {
    /// One placement to serve: its presentation and its service.
    struct Placed: Sendable {
        var presentation: ControlPresentation
        var kind: HomeKitServiceKind
    }

    /// The map's names of an accessory's Accessory Information service and its characteristics,
    /// in ``information(iids:name:model:serial:)``'s order.
    static let informationSlots = ["info", "info.Identify", "info.Manufacturer", "info.Model", "info.Name", "info.SerialNumber", "info.FirmwareRevision"]

    /// The map's key of a push-button's accessory: apart from placement ids, which have no "/".
    static func mapKey(ofButton id: String) -> String { "buttons/" + id }

    static func accessories(bridgeName: String, node: String, placed: [Placed], buttons: [ButtonSettings] = [], map: inout HomeKitAccessoryMap) -> [HomeKitAccessory] {
        let bridge = HomeKitAccessory(aid: HomeKitAccessoryMap.bridgeAID, placement: nil, kind: nil, services: [
            information(iids: Array(1...7), name: bridgeName, model: "switchboardd", serial: node),
            HomeKitService(iid: 8, type: "A2", characteristics: [
                HomeKitCharacteristic(iid: 9, type: "37", format: "string", perms: ["pr"], role: .fixed(.string("1.1.0"))),
            ]),
        ])
        var result = [bridge]
        for item in placed {
            guard let id = item.presentation.id else { continue }
            let aid = map.aid(for: id)
            let infoIIDs = informationSlots.map { map.iid($0, of: id) }
            let name = item.presentation.title ?? item.presentation.displayName
            let info = information(iids: infoIIDs, name: name, model: item.presentation.kind, serial: "\(node).\(id)")
            let prefix = item.kind.rawValue
            func characteristic(_ slot: String, _ type: String, _ format: String, _ perms: [String], _ role: HomeKitCharacteristic.Role, max: Int? = nil) -> HomeKitCharacteristic {
                HomeKitCharacteristic(iid: map.iid("\(prefix).\(slot)", of: id), type: type, format: format, perms: perms, role: role, maxValue: max)
            }
            let serviceIID = map.iid(prefix, of: id)
            var characteristics: [HomeKitCharacteristic]
            switch item.kind {
            case .lightbulb, .fan, .switch, .button:
                characteristics = [characteristic("On", "25", "bool", ["pr", "pw", "ev"], .on)]
            case .outlet:
                characteristics = [characteristic("On", "25", "bool", ["pr", "pw", "ev"], .on), characteristic("OutletInUse", "26", "bool", ["pr", "ev"], .outletInUse)]
            case .contactSensor:
                characteristics = [characteristic("ContactSensorState", "6A", "uint8", ["pr", "ev"], .contactState, max: 1)]
            case .motionSensor:
                characteristics = [characteristic("MotionDetected", "22", "bool", ["pr", "ev"], .motionDetected)]
            case .programmableSwitch:
                characteristics = [characteristic("ProgrammableSwitchEvent", "73", "uint8", ["pr", "ev"], .programmableSwitchEvent, max: 2)]
            case .windowCovering:
                characteristics = [
                    characteristic("CurrentPosition", "6D", "uint8", ["pr", "ev"], .currentPosition, max: 100),
                    characteristic("TargetPosition", "7C", "uint8", ["pr", "pw", "ev"], .targetPosition, max: 100),
                    characteristic("PositionState", "72", "uint8", ["pr", "ev"], .positionState, max: 2),
                ]
            case .garageDoor, .garageDoorCover:
                characteristics = [
                    characteristic("CurrentDoorState", "0E", "uint8", ["pr", "ev"], .currentDoorState, max: 4),
                    characteristic("TargetDoorState", "32", "uint8", ["pr", "pw", "ev"], .targetDoorState, max: 1),
                    characteristic("ObstructionDetected", "24", "bool", ["pr", "ev"], .obstructionDetected),
                ]
            }
            characteristics.append(characteristic("Name", "23", "string", ["pr"], .fixed(.string(name))))
            let service = HomeKitService(iid: serviceIID, type: item.kind.serviceType, characteristics: characteristics, primary: true)
            result.append(HomeKitAccessory(aid: aid, placement: id, kind: item.kind, services: [info, service]))
        }
        for button in buttons {
            let key = mapKey(ofButton: button.id)
            let aid = map.aid(for: key)
            let infoIIDs = informationSlots.map { map.iid($0, of: key) }
            let name = button.id
            let service = HomeKitService(iid: map.iid("switch", of: key), type: HomeKitServiceKind.programmableSwitch.serviceType, characteristics: [
                HomeKitCharacteristic(iid: map.iid("switch.ProgrammableSwitchEvent", of: key), type: "73", format: "uint8", perms: ["pr", "ev"],
                                      role: .programmableSwitchEvent, maxValue: 2),
                HomeKitCharacteristic(iid: map.iid("switch.Name", of: key), type: "23", format: "string", perms: ["pr"], role: .fixed(.string(name))),
            ], primary: true)
            result.append(HomeKitAccessory(aid: aid, placement: nil, button: button.id, kind: .programmableSwitch, services: [
                information(iids: infoIIDs, name: name, model: "push-button", serial: "\(node).buttons.\(button.id)"), service,
            ]))
        }
        // In the order of their ids: a placement added first in devices.json comes last, as it is newest.
        return result.sorted { $0.aid < $1.aid }
    }

    /// Accessory Information at the given iids: the service, then Identify, Manufacturer, Model,
    /// Name, SerialNumber, FirmwareRevision.
    private static func information(iids: [Int], name: String, model: String, serial: String) -> HomeKitService {
        HomeKitService(iid: iids[0], type: "3E", characteristics: [
            HomeKitCharacteristic(iid: iids[1], type: "14", format: "bool", perms: ["pw"], role: .identify),
            HomeKitCharacteristic(iid: iids[2], type: "20", format: "string", perms: ["pr"], role: .fixed(.string("Switchboard"))),
            HomeKitCharacteristic(iid: iids[3], type: "21", format: "string", perms: ["pr"], role: .fixed(.string(model))),
            HomeKitCharacteristic(iid: iids[4], type: "23", format: "string", perms: ["pr"], role: .fixed(.string(name))),
            HomeKitCharacteristic(iid: iids[5], type: "30", format: "string", perms: ["pr"], role: .fixed(.string(serial))),
            HomeKitCharacteristic(iid: iids[6], type: "52", format: "string", perms: ["pr"], role: .fixed(.string(Switchboard.version))),
        ])
    }

    /// A blind's percent open from its toggle's value text (`Opening… 40 %`, `Open`, `Closed`);
    /// 50 while it is not known.
    static func coverPosition(_ presentation: ControlPresentation?) -> Int {
        let text = presentation?.valueText ?? ""
        if text == "Open" { return 100 }
        if text == "Closed" { return 0 }
        let digits = text.split(separator: " ").reversed().first { Int($0) != nil }
        return digits.flatMap { Int($0) }.map { min(100, max(0, $0)) } ?? 50
    }

    /// A characteristic's value for a placement's presentation (nil: it has none to read).
    static func value(_ role: HomeKitCharacteristic.Role, kind: HomeKitServiceKind?, _ presentation: ControlPresentation?) -> HAPJSON? {
        let on = presentation?.value ?? false
        switch role {
        case .fixed(let value): return value
        case .identify: return nil
        // A button's switch is off but while it performs.
        case .on: return .bool(kind == .button ? false : on)
        case .outletInUse: return .bool(on)
        // Active input: the contact is open (HAP's 1, "contact not detected").
        case .contactState: return .int(on ? 1 : 0)
        case .motionDetected: return .bool(on)
        // A cover's garage door: open 0, closed 1, opening 2, closing 3, stopped 4; its target
        // is the end it is at or going to (a door stopped part-way: open).
        case .currentDoorState where kind == .garageDoorCover:
            let text = presentation?.valueText ?? ""
            return .int(text.hasPrefix("Opening") ? 2 : text.hasPrefix("Closing") ? 3 : text == "Open" ? 0 : text == "Closed" ? 1 : 4)
        case .targetDoorState where kind == .garageDoorCover:
            let text = presentation?.valueText ?? ""
            return .int(text.hasPrefix("Closing") || text == "Closed" ? 1 : 0)
        // The reed switch says open (0) or closed (1); the target follows it once it is there.
        case .currentDoorState, .targetDoorState: return .int(on ? 0 : 1)
        // A blind: the percent open it shows (an unknown position reads as half open, as HAP
        // has no unknown), the end it runs to, and which way it moves.
        case .currentPosition: return .int(coverPosition(presentation))
        case .targetPosition:
            let text = presentation?.valueText ?? ""
            return .int(text.hasPrefix("Opening") ? 100 : text.hasPrefix("Closing") ? 0 : coverPosition(presentation))
        case .positionState:
            let text = presentation?.valueText ?? ""
            return .int(text.hasPrefix("Opening") ? 1 : text.hasPrefix("Closing") ? 0 : 2)
        case .obstructionDetected: return .bool(false)
        case .programmableSwitchEvent: return .null
        }
    }
}
