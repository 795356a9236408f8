import Foundation
import SwitchboardHomeKit
import SwitchboardSupport

/// The test accessory: a bridge (aid 1) with one Switch (aid 2) and one Outlet (aid 3), each On
/// characteristic at iid 9. ``set(_:_:)`` changes a value as the accessory's own side would (a
/// button on the device), and the server learns of it as of every change.
final class TestBridge: HAPAccessoryDatabase, @unchecked Sendable {
    // @unchecked Sendable: `values`, `observer`, `identified`, `holding`, `held`, `reportingLate` and `ranOnLoop` are only touched with `lock` held.
    static let switchOn = HAPCharacteristicID(aid: 2, iid: 9)
    static let outletOn = HAPCharacteristicID(aid: 3, iid: 9)
    static let outletInUse = HAPCharacteristicID(aid: 3, iid: 10)
    private let lock = NSLock()
    private var values: [HAPCharacteristicID: HAPJSON] = [switchOn: .bool(false), outletOn: .bool(false), outletInUse: .bool(true)]
    private var observer: (@Sendable (HAPCharacteristicID, HAPJSON) -> Void)?
    private var identified = 0
    private var holding = false
    private var held: [CheckedContinuation<Void, Never>] = []
    private var reportingLate = false
    private var ranOnLoop: [Bool] = []
    /// The loop the server is to run writes on (``writeExecutor``), if any.
    let loop: EventLoop?

    init(loop: EventLoop? = nil) { self.loop = loop }

    var writeExecutor: (any TaskExecutor)? { loop }

    /// For each write so far, whether it ran on ``loop``'s thread.
    var writesRanOnLoop: [Bool] { lock.withLock { ranOnLoop } }

    var identifyCount: Int { lock.withLock { identified } }

    func value(_ id: HAPCharacteristicID) -> HAPJSON? { lock.withLock { values[id] } }

    /// Changes a value from the accessory's side.
    func set(_ id: HAPCharacteristicID, _ value: HAPJSON) {
        let observer = lock.withLock { values[id] = value; return self.observer }
        observer?(id, value)
    }

    func accessories() -> HAPJSON {
        lock.withLock {
            .array([
                accessory(aid: 1, name: "Switchboard Bridge", services: []),
                accessory(aid: 2, name: "Porch", services: [service(iid: 8, type: "49", [
                    characteristic(iid: 9, type: "25", perms: ["pr", "pw", "ev"], format: "bool", value: values[TestBridge.switchOn]),
                    characteristic(iid: 10, type: "23", perms: ["pr"], format: "string", value: .string("Porch")),
                ])]),
                accessory(aid: 3, name: "Heater", services: [service(iid: 8, type: "47", [
                    characteristic(iid: 9, type: "25", perms: ["pr", "pw", "ev"], format: "bool", value: values[TestBridge.outletOn]),
                    characteristic(iid: 10, type: "26", perms: ["pr", "ev"], format: "bool", value: values[TestBridge.outletInUse]),
                ])]),
            ])
        }
    }

    func read(_ id: HAPCharacteristicID) -> Result<HAPJSON, HAPStatus> {
        lock.withLock { values[id].map { .success($0) } ?? .failure(.resourceDoesNotExist) }
    }

    func write(_ id: HAPCharacteristicID, _ value: HAPJSON) async -> HAPStatus {
        guard id == TestBridge.switchOn || id == TestBridge.outletOn else {
            return id == TestBridge.outletInUse ? .readOnly : .resourceDoesNotExist
        }
        guard let on = value.boolValue else { return .invalidValue }
        let onLoop = loop?.inEventLoop ?? false
        lock.withLock { ranOnLoop.append(onLoop) }
        // A slow device: the write waits until the test releases it.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waits = lock.withLock { () -> Bool in
                if holding { held.append(continuation) }
                return holding
            }
            if !waits { continuation.resume() }
        }
        guard lock.withLock({ reportingLate }) else {
            set(id, .bool(on))
            return .success
        }
        // A device that reports its change once it switched, after the write was answered.
        Thread.detachNewThread { [self] in
            Thread.sleep(forTimeInterval: 0.2)
            set(id, .bool(on))
        }
        return .success
    }

    /// Writes from now on are answered first and change the value 0.2 s later, as a relay that
    /// reports once it switched, or another system's device that confirms over MQTT.
    func reportWritesLate() { lock.withLock { reportingLate = true } }

    /// Writes from now on wait until ``releaseWrites()``, as a slow device's command does.
    func holdWrites() { lock.withLock { holding = true } }

    /// How many writes are waiting.
    var heldWrites: Int { lock.withLock { held.count } }

    /// Lets the waiting writes (and every later one) go on.
    func releaseWrites() {
        let waiting = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            holding = false
            defer { held = [] }
            return held
        }
        for continuation in waiting { continuation.resume() }
    }

    func supportsEvents(_ id: HAPCharacteristicID) -> Bool { lock.withLock { values[id] != nil } }

    func observeChanges(_ observer: @escaping @Sendable (HAPCharacteristicID, HAPJSON) -> Void) {
        lock.withLock { self.observer = observer }
    }

    func identify() { lock.withLock { identified += 1 } }

    private func accessory(aid: Int, name: String, services: [HAPJSON]) -> HAPJSON {
        let information = service(iid: 1, type: "3E", [
            characteristic(iid: 2, type: "14", perms: ["pw"], format: "bool", value: nil),
            characteristic(iid: 3, type: "20", perms: ["pr"], format: "string", value: .string("Switchboard")),
            characteristic(iid: 4, type: "21", perms: ["pr"], format: "string", value: .string("Test")),
            characteristic(iid: 5, type: "23", perms: ["pr"], format: "string", value: .string(name)),
            characteristic(iid: 6, type: "30", perms: ["pr"], format: "string", value: .string("SB-\(aid)")),
            characteristic(iid: 7, type: "52", perms: ["pr"], format: "string", value: .string("1.0")),
        ])
        return .object(["aid": .int(aid), "services": .array([information] + services)])
    }

    private func service(iid: Int, type: String, _ characteristics: [HAPJSON]) -> HAPJSON {
        .object(["iid": .int(iid), "type": .string(type), "characteristics": .array(characteristics)])
    }

    private func characteristic(iid: Int, type: String, perms: [String], format: String, value: HAPJSON?) -> HAPJSON {
        var members: [String: HAPJSON] = ["iid": .int(iid), "type": .string(type), "format": .string(format),
                                          "perms": .array(perms.map { .string($0) })]
        if let value { members["value"] = value }
        return .object(members)
    }
}
