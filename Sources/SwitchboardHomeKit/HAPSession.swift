/// One controller's connection to the HAP server, without its socket: takes the requests that
/// arrived and returns the answers, with what the server must do besides (send events to other
/// sessions, drop the sessions of removed pairings). Unencrypted until pair-verify; then every
/// byte in and out goes through the session frames.
public struct HAPSession {
    /// What a request asks of the server beyond its answer. (Values a session writes reach the
    /// other sessions through the database's change observer, as every other change does.)
    public enum Effect: Equatable, Sendable {
        /// Pairings removed: their sessions end (after this answer).
        case pairingsRemoved([[UInt8]])
        /// A `PUT /characteristics` writes these values: the server performs them (without
        /// holding anything other sessions need) and hands the statuses, in this order, to
        /// ``completeWrites(_:)``, which answers; until then the session answers nothing more.
        case writes([HAPCharacteristicWrite])
    }

    let accessory: AccessoryIdentity
    let store: any PairingStore
    let database: any HAPAccessoryDatabase
    private var setup: PairSetup
    private var verify: PairVerify
    private var parser = HAPRequestParser()
    private var sealer: HAPFrameSealer?
    private var opener: HAPFrameOpener?
    /// The verified controller, once pair-verify finished.
    public private(set) var controller: Pairing?
    /// The characteristics this session subscribed to (`ev`).
    public private(set) var subscriptions: Set<HAPCharacteristicID> = []
    /// A `PUT /characteristics` waiting for its writes: each entry's status so far (nil: its
    /// value is being written).
    private var pendingWrite: [(HAPCharacteristicID, HAPStatus?)]?

    public init(accessory: AccessoryIdentity, setupCode: SetupCode, store: any PairingStore, database: any HAPAccessoryDatabase) {
        self.accessory = accessory
        self.store = store
        self.database = database
        setup = PairSetup(accessory: accessory, setupCode: setupCode, store: store)
        verify = PairVerify(accessory: accessory, store: store)
    }

    /// Whether another connection's pair-setup is under way (set by the server before each
    /// step): this session's pair-setup M1 is then refused with Busy.
    var anotherPairSetupInProgress = false

    /// What is left of the wait after a failed pair-setup attempt (set by the server before each
    /// step): this session's pair-setup M1 is then refused with Backoff.
    var pairSetupRetryAfter: Duration?

    /// Whether this session's pair-setup is under way (between M1 and M6).
    public var isPairSetupInProgress: Bool { setup.isInProgress }

    /// Whether the session is encrypted (pair-verify done).
    public var isEncrypted: Bool { sealer != nil }

    /// The bytes to send for the bytes that arrived, and the effects; throws when the connection
    /// must close (a frame that does not open or is too long, a request refused with 400 or 413:
    /// the error's answer is in `HAPSessionClosing.answer`).
    public mutating func receive(_ bytes: [UInt8]) throws(HAPSessionClosing) -> (output: [UInt8], effects: [Effect]) {
        if opener != nil {
            do throws(HAPFrameError) {
                parser.append(try opener!.open(bytes))
            } catch {
                throw HAPSessionClosing(answer: [], reason: error.description)
            }
        } else {
            parser.append(bytes)
        }
        return try process()
    }

    /// Whether a `PUT /characteristics` waits for its writes (``Effect/writes(_:)``).
    public var isWriting: Bool { pendingWrite != nil }

    /// Answers the `PUT /characteristics` that waited for its writes, with their statuses in the
    /// order ``Effect/writes(_:)`` gave them, then the requests that arrived meanwhile.
    public mutating func completeWrites(_ statuses: [HAPStatus]) throws(HAPSessionClosing) -> (output: [UInt8], effects: [Effect]) {
        guard let pending = pendingWrite else { return ([], []) }
        pendingWrite = nil
        var remaining = statuses[...]
        let results = pending.map { id, status in (id, status ?? remaining.popFirst() ?? .serviceCommunicationFailure) }
        var output: [UInt8]
        do {
            output = try sealer!.seal(HAPSession.writeAnswer(results))
        } catch {
            throw HAPSessionClosing(answer: [], reason: "cannot seal an answer: \(error)")
        }
        let more = try process()
        output += more.output
        return (output, more.effects)
    }

    /// Handles the requests the parser holds, up to one that waits for writes.
    private mutating func process() throws(HAPSessionClosing) -> (output: [UInt8], effects: [Effect]) {
        var output: [UInt8] = []
        var effects: [Effect] = []
        while pendingWrite == nil {
            let request: HAPRequest?
            do throws(HAPRequestError) {
                request = try parser.next()
            } catch {
                let body = Array("{\"status\":\(HAPStatus.invalidValue.rawValue)}".utf8)
                let answer = (try? outgoing(HAPSession.response(error.status, "application/hap+json", body))) ?? []
                throw HAPSessionClosing(answer: output + answer, reason: error.description)
            }
            guard let request else { break }
            // Keys change after pair-verify's M4, which goes out unencrypted.
            let wasEncrypted = isEncrypted
            let (answer, requestEffects, keys) = handle(request)
            effects += requestEffects
            // A write in progress answers later (completeWrites).
            if pendingWrite != nil { break }
            do {
                output += wasEncrypted ? try sealer!.seal(answer) : answer
            } catch {
                throw HAPSessionClosing(answer: output, reason: "cannot seal an answer: \(error)")
            }
            if let keys {
                do {
                    sealer = try HAPFrameSealer(key: keys.accessoryToController)
                    opener = try HAPFrameOpener(key: keys.controllerToAccessory)
                } catch {
                    throw HAPSessionClosing(answer: output, reason: "cannot start the encrypted session: \(error)")
                }
                // Bytes that came after M3 in the same read are already encrypted.
                let rest = parser.drain()
                if !rest.isEmpty {
                    let more = try receive(rest)
                    output += more.output
                    effects += more.effects
                }
                break
            }
        }
        return (output, effects)
    }

    /// An event for the changed values this session subscribed to, sealed; nil when it
    /// subscribed to none of them or is not encrypted.
    public mutating func event(for changes: [HAPCharacteristicID: HAPJSON]) -> [UInt8]? {
        guard isEncrypted else { return nil }
        let mine = changes.filter { subscriptions.contains($0.key) }.sorted { ($0.key.aid, $0.key.iid) < ($1.key.aid, $1.key.iid) }
        guard !mine.isEmpty else { return nil }
        let body = HAPJSON.object(["characteristics": .array(mine.map {
            .object(["aid": .int($0.key.aid), "iid": .int($0.key.iid), "value": $0.value])
        })])
        let bytes = Array(body.encoded.utf8)
        let event = Array("EVENT/1.0 200 OK\r\nContent-Type: application/hap+json\r\nContent-Length: \(bytes.count)\r\n\r\n".utf8) + bytes
        return try? sealer!.seal(event)
    }

    private mutating func outgoing(_ bytes: [UInt8]) throws -> [UInt8] {
        isEncrypted ? try sealer!.seal(bytes) : bytes
    }

    private mutating func handle(_ request: HAPRequest) -> ([UInt8], [Effect], SessionKeys?) {
        switch (request.method, request.path) {
        case ("POST", "/pair-setup"):
            let answer = setup.handle((try? TLV8(decoding: request.body)) ?? TLV8(), anotherInProgress: anotherPairSetupInProgress, retryAfter: pairSetupRetryAfter)
            return (HAPSession.response(200, "application/pairing+tlv8", answer.encoded()), [], nil)
        case ("POST", "/pair-verify"):
            let answer = verify.handle((try? TLV8(decoding: request.body)) ?? TLV8())
            var keys: SessionKeys?
            if answer.pairingState == 4, answer[.error] == nil, let session = verify.session, !isEncrypted {
                controller = session.controller
                keys = session.keys
            }
            return (HAPSession.response(200, "application/pairing+tlv8", answer.encoded()), [], keys)
        case ("POST", "/identify"):
            guard !store.isPaired else {
                return (HAPSession.json(400, .object(["status": .int(HAPStatus.insufficientPrivileges.rawValue)])), [], nil)
            }
            database.identify()
            return (HAPSession.response(204, nil, []), [], nil)
        default:
            break
        }
        guard isEncrypted, let controller, store.pairing(identifier: controller.identifier) != nil else {
            return (HAPSession.json(470, .object(["status": .int(HAPStatus.insufficientPrivileges.rawValue)])), [], nil)
        }
        switch (request.method, request.path) {
        case ("GET", "/accessories"):
            return (HAPSession.json(200, .object(["accessories": database.accessories()])), [], nil)
        case ("GET", "/characteristics"):
            return (readCharacteristics(request), [], nil)
        case ("PUT", "/characteristics"):
            return writeCharacteristics(request)
        case ("POST", "/pairings"):
            let (answer, removed) = pairings(request, by: controller)
            return (HAPSession.response(200, "application/pairing+tlv8", answer.encoded()), removed.isEmpty ? [] : [.pairingsRemoved(removed)], nil)
        default:
            return (HAPSession.response(404, nil, []), [], nil)
        }
    }

    private func readCharacteristics(_ request: HAPRequest) -> [UInt8] {
        guard let list = request.query["id"], !list.isEmpty else {
            return HAPSession.json(400, .object(["status": .int(HAPStatus.invalidValue.rawValue)]))
        }
        var results: [HAPJSON] = []
        var failed = false
        for item in list.split(separator: ",") {
            let parts = item.split(separator: ".")
            guard parts.count == 2, let aid = Int(parts[0]), let iid = Int(parts[1]) else {
                return HAPSession.json(400, .object(["status": .int(HAPStatus.invalidValue.rawValue)]))
            }
            switch database.read(HAPCharacteristicID(aid: aid, iid: iid)) {
            case .success(let value):
                results.append(.object(["aid": .int(aid), "iid": .int(iid), "value": value]))
            case .failure(let status):
                failed = true
                results.append(.object(["aid": .int(aid), "iid": .int(iid), "status": .int(status.rawValue)]))
            }
        }
        if failed {
            // Multi-Status: every entry carries its status.
            results = results.map { entry in
                guard case .object(var members) = entry else { return entry }
                if members["status"] == nil { members["status"] = .int(0) }
                return .object(members)
            }
            return HAPSession.json(207, .object(["characteristics": .array(results)]))
        }
        return HAPSession.json(200, .object(["characteristics": .array(results)]))
    }

    /// Subscriptions are taken at once; values are written by the server (``Effect/writes(_:)``),
    /// and the answer waits for them.
    private mutating func writeCharacteristics(_ request: HAPRequest) -> ([UInt8], [Effect], SessionKeys?) {
        let invalid = HAPSession.json(400, .object(["status": .int(HAPStatus.invalidValue.rawValue)]))
        guard let body = HAPJSON(parsing: request.body), case .array(let entries)? = body["characteristics"] else {
            return (invalid, [], nil)
        }
        var statuses: [(HAPCharacteristicID, HAPStatus?)] = []
        var writes: [HAPCharacteristicWrite] = []
        for entry in entries {
            guard let aid = entry["aid"]?.intValue, let iid = entry["iid"]?.intValue else { return (invalid, [], nil) }
            let id = HAPCharacteristicID(aid: aid, iid: iid)
            var status = HAPStatus.success
            if let ev = entry["ev"] {
                if let on = ev.boolValue, database.supportsEvents(id) {
                    if on { subscriptions.insert(id) } else { subscriptions.remove(id) }
                } else {
                    status = ev.boolValue == nil ? .invalidValue : .notificationNotSupported
                }
            }
            if status == .success, let value = entry["value"] {
                writes.append(HAPCharacteristicWrite(id: id, value: value))
                statuses.append((id, nil))
            } else {
                statuses.append((id, status))
            }
        }
        guard writes.isEmpty else {
            pendingWrite = statuses
            return ([], [.writes(writes)], nil)
        }
        return (HAPSession.writeAnswer(statuses.map { ($0.0, $0.1 ?? .success) }), [], nil)
    }

    /// 204 when every write succeeded, else 207 with each one's status.
    static func writeAnswer(_ statuses: [(HAPCharacteristicID, HAPStatus)]) -> [UInt8] {
        guard statuses.contains(where: { $0.1 != .success }) else { return HAPSession.response(204, nil, []) }
        let body207 = HAPJSON.object(["characteristics": .array(statuses.map {
            .object(["aid": .int($0.0.aid), "iid": .int($0.0.iid), "status": .int($0.1.rawValue)])
        })])
        return HAPSession.json(207, body207)
    }

    /// `/pairings`: add (3), remove (4), list (5); admin controllers only.
    private func pairings(_ request: HAPRequest, by controller: Pairing) -> (TLV8, [[UInt8]]) {
        guard let tlv = try? TLV8(decoding: request.body), tlv.pairingState == 1, let method = tlv[.method]?.first else {
            return (.pairingError(state: 2, .unknown), [])
        }
        guard let current = store.pairing(identifier: controller.identifier), current.isAdmin else {
            return (.pairingError(state: 2, .authentication), [])
        }
        var answer = TLV8()
        answer.append(.state, [2])
        switch method {
        case 3:
            guard let identifier = tlv[.identifier], !identifier.isEmpty, let keyBytes = tlv[.publicKey],
                  let key = try? Ed25519PublicKey(rawRepresentation: keyBytes), let permissions = tlv[.permissions]?.first
            else { return (.pairingError(state: 2, .unknown), []) }
            if let existing = store.pairing(identifier: identifier), existing.publicKey != key {
                return (.pairingError(state: 2, .unknown), [])
            }
            do { try store.add(Pairing(identifier: identifier, publicKey: key, isAdmin: permissions & 1 == 1)) } catch {
                return (.pairingError(state: 2, .maxPeers), [])
            }
            return (answer, [])
        case 4:
            guard let identifier = tlv[.identifier] else { return (.pairingError(state: 2, .unknown), []) }
            var removed: [[UInt8]] = []
            if store.pairing(identifier: identifier) != nil {
                store.remove(identifier: identifier)
                removed.append(identifier)
            }
            // Without an admin the accessory is unpaired: every pairing goes.
            if !store.pairings.contains(where: \.isAdmin) {
                for pairing in store.pairings {
                    store.remove(identifier: pairing.identifier)
                    removed.append(pairing.identifier)
                }
            }
            return (answer, removed)
        case 5:
            for (index, pairing) in store.pairings.enumerated() {
                if index > 0 { answer.append(.separator, []) }
                answer.append(.identifier, pairing.identifier)
                answer.append(.publicKey, pairing.publicKey.rawRepresentation)
                answer.append(.permissions, [pairing.isAdmin ? 1 : 0])
            }
            return (answer, [])
        default:
            return (.pairingError(state: 2, .unknown), [])
        }
    }

    static func response(_ status: Int, _ contentType: String?, _ body: [UInt8]) -> [UInt8] {
        let reasons = [200: "OK", 204: "No Content", 207: "Multi-Status", 400: "Bad Request", 404: "Not Found",
                       413: "Payload Too Large", 470: "Connection Authorization Required"]
        var head = "HTTP/1.1 \(status) \(reasons[status] ?? "Error")\r\n"
        if let contentType { head += "Content-Type: \(contentType)\r\n" }
        head += "Content-Length: \(body.count)\r\n\r\n"
        return Array(head.utf8) + body
    }

    static func json(_ status: Int, _ body: HAPJSON) -> [UInt8] {
        response(status, "application/hap+json", Array(body.encoded.utf8))
    }
}

/// The end of a session: what to send before closing, and why it closes.
public struct HAPSessionClosing: Error, CustomStringConvertible {
    public var answer: [UInt8]
    public var reason: String
    public var description: String { "HAP connection closed: \(reason)" }
}
