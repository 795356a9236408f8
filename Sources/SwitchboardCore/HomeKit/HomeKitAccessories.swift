import ControlKitCore
import SwitchboardHomeKit
import SwitchboardSupport

/// The daemon's controls as HAP's attribute database: the accessories of the placements in
/// Control Center (``HomeKitAccessoryBuilder``) with their values, kept current from the control
/// center's changes (whatever changed them: GPIO, MQTT, the CLI, an Action button, another node).
/// A controller's write goes through the command path the CLI's `on`, `off` and `press` take
/// (``ControlCommandHandler``), unauthenticated, and is refused while the node is locked.
final class HomeKitAccessories: HAPAccessoryDatabase, @unchecked Sendable {
    // @unchecked Sendable: `table` and `observer` are `Locked`; the rest is immutable. The observer
    // is never called with `table`'s lock held (the server calls in with its own lock held).
    private struct Table {
        var accessories: [HomeKitAccessory] = []
        /// Each characteristic's place: accessory, service and characteristic index.
        var places: [HAPCharacteristicID: (Int, Int, Int)] = [:]
        /// The current values.
        var values: [HAPCharacteristicID: HAPJSON] = [:]
    }

    private let table = Locked(Table())
    private let observer = Locked<(@Sendable (HAPCharacteristicID, HAPJSON) -> Void)?>(nil)
    private let runtime: @Sendable () -> NodeRuntime?
    private let log: Log

    init(log: Log, runtime: @escaping @Sendable () -> NodeRuntime?) {
        self.log = log
        self.runtime = runtime
    }

    /// Serves these accessories from now on, with the presentations' values; reports the values
    /// that changed.
    func load(_ accessories: [HomeKitAccessory], presentations: [String: ControlPresentation]) {
        let changes = table.withLock { table -> [(HAPCharacteristicID, HAPJSON)] in
            let before = table.values
            table = Table(accessories: accessories)
            for (a, accessory) in accessories.enumerated() {
                for (s, service) in accessory.services.enumerated() {
                    for (c, characteristic) in service.characteristics.enumerated() {
                        let id = HAPCharacteristicID(aid: accessory.aid, iid: characteristic.iid)
                        table.places[id] = (a, s, c)
                        let presentation = accessory.placement.flatMap { presentations[$0] }
                        if let value = HomeKitAccessoryBuilder.value(characteristic.role, kind: accessory.kind, presentation) { table.values[id] = value }
                    }
                }
            }
            return table.values.compactMap { id, value in before[id].map { $0 == value ? nil : (id, value) } ?? nil }
        }
        report(changes)
    }

    /// A placement's presentation changed: its values follow. False when the placement is not
    /// served (the accessories must be made again).
    @discardableResult
    func update(_ presentation: ControlPresentation) -> Bool {
        guard let id = presentation.id else { return true }
        let changes = table.withLock { table -> [(HAPCharacteristicID, HAPJSON)]? in
            guard let accessory = table.accessories.first(where: { $0.placement == id }) else { return nil }
            var changes: [(HAPCharacteristicID, HAPJSON)] = []
            for service in accessory.services {
                for characteristic in service.characteristics {
                    let key = HAPCharacteristicID(aid: accessory.aid, iid: characteristic.iid)
                    guard let value = HomeKitAccessoryBuilder.value(characteristic.role, kind: accessory.kind, presentation), table.values[key] != value else { continue }
                    table.values[key] = value
                    changes.append((key, value))
                }
            }
            return changes
        }
        guard let changes else { return false }
        report(changes)
        return true
    }

    /// A push-button was pressed: its programmable switch sends the press as an event (single 0,
    /// double 1, long 2), each press one, however alike.
    func press(button: String, click: String) {
        let value: Int
        switch click {
        case "short": value = 0
        case "double": value = 1
        case "long": value = 2
        default: return
        }
        let id = table.withLock { table -> HAPCharacteristicID? in
            guard let accessory = table.accessories.first(where: { $0.button == button }),
                  let characteristic = accessory.services.lazy.flatMap(\.characteristics).first(where: { $0.role == .programmableSwitchEvent }) else { return nil }
            return HAPCharacteristicID(aid: accessory.aid, iid: characteristic.iid)
        }
        if let id { report([(id, .int(value))]) }
    }

    /// The aid serving a placement, if any.
    func aid(of placement: String) -> Int? {
        table.withLock { $0.accessories.first { $0.placement == placement }?.aid }
    }

    private func report(_ changes: [(HAPCharacteristicID, HAPJSON)]) {
        guard let observer = observer.withLock({ $0 }) else { return }
        for (id, value) in changes { observer(id, value) }
    }

    private func set(_ id: HAPCharacteristicID, _ value: HAPJSON) {
        let changed = table.withLock { table -> Bool in
            guard table.values[id] != value else { return false }
            table.values[id] = value
            return true
        }
        if changed { report([(id, value)]) }
    }

    // MARK: HAPAccessoryDatabase

    /// The node's loop: a write runs where the control center does.
    var writeExecutor: (any TaskExecutor)? { runtime()?.center.loop }

    func accessories() -> HAPJSON {
        table.withLock { table in
            .array(table.accessories.map { accessory in
                .object(["aid": .int(accessory.aid), "services": .array(accessory.services.map { service in
                    var members: [String: HAPJSON] = [
                        "iid": .int(service.iid), "type": .string(service.type),
                        "characteristics": .array(service.characteristics.map { $0.json(table.values[HAPCharacteristicID(aid: accessory.aid, iid: $0.iid)]) }),
                    ]
                    if service.primary { members["primary"] = .bool(true) }
                    return .object(members)
                })])
            })
        }
    }

    func read(_ id: HAPCharacteristicID) -> Result<HAPJSON, HAPStatus> {
        table.withLock { table in
            guard let (a, s, c) = table.places[id] else { return .failure(.resourceDoesNotExist) }
            guard table.accessories[a].services[s].characteristics[c].perms.contains("pr") else { return .failure(.writeOnly) }
            return table.values[id].map { .success($0) } ?? .failure(.serviceCommunicationFailure)
        }
    }

    func supportsEvents(_ id: HAPCharacteristicID) -> Bool {
        table.withLock { table in
            guard let (a, s, c) = table.places[id] else { return false }
            return table.accessories[a].services[s].characteristics[c].perms.contains("ev")
        }
    }

    func observeChanges(_ observer: @escaping @Sendable (HAPCharacteristicID, HAPJSON) -> Void) {
        self.observer.withLock { $0 = observer }
    }

    func identify() {
        log(.info, "homekit: identify (a controller asked the bridge to show itself)")
    }

    func write(_ id: HAPCharacteristicID, _ value: HAPJSON) async -> HAPStatus {
        let found = table.withLock { table -> (HomeKitAccessory, HomeKitCharacteristic)? in
            guard let (a, s, c) = table.places[id] else { return nil }
            return (table.accessories[a], table.accessories[a].services[s].characteristics[c])
        }
        guard let (accessory, characteristic) = found else { return .resourceDoesNotExist }
        guard characteristic.perms.contains("pw") else { return .readOnly }
        if characteristic.role == .identify {
            guard value.boolValue != nil else { return .invalidValue }
            identify()
            return .success
        }
        guard let placement = accessory.placement else { return .readOnly }
        let request: String?
        switch characteristic.role {
        case .on:
            guard let on = value.boolValue else { return .invalidValue }
            // A button's switch switched off does nothing: it is off but while it performs.
            request = accessory.kind == .button ? (on ? "press" : nil) : (on ? "on" : "off")
        case .targetDoorState:
            guard let target = value.intValue, target == 0 || target == 1 else { return .invalidValue }
            request = target == 0 ? "on" : "off"
        case .targetPosition:
            guard let target = value.intValue, (0...100).contains(target) else { return .invalidValue }
            return await move(placement, to: target, id)
        default:
            return .readOnly
        }
        guard let request else { return .success }
        guard let runtime = runtime() else { return .serviceCommunicationFailure }
        if await runtime.center.isLocked {
            log(.warning, "homekit: \(request) \(placement) refused: Switchboard is locked (switchboard unlock)")
            return .insufficientPrivileges
        }
        if accessory.kind == .button { set(id, .bool(true)) }
        let reply = await ControlCommandHandler(center: runtime.center).handle(ControlCommand(.perform, id: placement, request: request))
        if accessory.kind == .button { set(id, .bool(false)) }
        guard reply.ok else {
            let code = reply.error?.code ?? ""
            log(.warning, "homekit: \(request) \(placement) refused: \(reply.error?.message ?? code)")
            return code == ControlError.Code.authenticationRequired.rawValue || code == ControlError.Code.disabled.rawValue ? .insufficientPrivileges : .serviceCommunicationFailure
        }
        if characteristic.role == .targetDoorState { set(id, value) }
        log.routine("homekit: commands performed", "homekit: \(request) \(placement)")
        return .success
    }

    /// A blind's TargetPosition: its cover runs there (0 and 100 to its end stops), refused
    /// while the node is locked.
    private func move(_ placement: String, to target: Int, _ id: HAPCharacteristicID) async -> HAPStatus {
        guard let runtime = runtime(),
              let kind = await runtime.center.placements.first(where: { $0.id == placement })?.kind,
              let cover = runtime.configuration.covers.first(where: { $0.toggleKind == kind }) else { return .serviceCommunicationFailure }
        if await runtime.center.isLocked {
            log(.warning, "homekit: \(cover.id) to \(target) % refused: Switchboard is locked (switchboard unlock)")
            return .insufficientPrivileges
        }
        do {
            let said = try await runtime.covers.perform(cover.id, .position(target))
            set(id, .int(target))
            log.routine("homekit: commands performed", "homekit: \(cover.id) to \(target) %: \(said)")
            return .success
        } catch {
            log(.warning, "homekit: \(cover.id) to \(target) % refused: \(error)")
            return .serviceCommunicationFailure
        }
    }
}
