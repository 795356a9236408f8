/// The accessory's side of HAP's pair-setup (M1–M6), a state machine with no I/O: each
/// request's TLV8 in, the response's TLV8 out. One instance serves one connection's attempt.
///
/// - M1 → M2: refuses when already paired (Unavailable), after 100 failed attempts (MaxTries),
///   too soon after a failed attempt (Backoff with the seconds left, ``PairSetupBackoff``) or
///   while another connection's pair-setup is in progress (Busy); otherwise a fresh salt and
///   SRP-6a server, and B.
/// - M3 → M4: checks the controller's SRP proof M1 (a wrong setup code is Authentication and
///   counts as a failed attempt), answers with M2.
/// - M5 → M6: opens the controller's encrypted sub-TLV (ChaCha20-Poly1305 with the HKDF of K,
///   nonce "PS-Msg05"), verifies its Ed25519 signature over iOSDeviceX | pairing id | LTPK,
///   stores the admin pairing, and answers with the accessory's own signed, encrypted identity.
public struct PairSetup {
    enum Phase {
        case awaitingM1
        case awaitingM3(SRPServer)
        case awaitingM5(sharedKey: [UInt8])
        case paired(Pairing)
        case failed
    }

    /// The number of failed attempts after which HAP's accessory refuses pair-setup.
    public static let maximumFailedAttempts = 100

    let accessory: AccessoryIdentity
    let setupCode: SetupCode
    let store: any PairingStore
    private(set) var phase = Phase.awaitingM1

    public init(accessory: AccessoryIdentity, setupCode: SetupCode, store: any PairingStore) {
        self.accessory = accessory
        self.setupCode = setupCode
        self.store = store
    }

    /// The controller paired by this exchange, once M6 was sent.
    public var pairedController: Pairing? {
        if case .paired(let pairing) = phase { return pairing }
        return nil
    }

    /// Whether an attempt is under way: M2 or M4 was sent and the next message is awaited.
    public var isInProgress: Bool {
        switch phase {
        case .awaitingM3, .awaitingM5: true
        default: false
        }
    }

    /// The response to one request; `anotherInProgress` tells that another connection's
    /// pair-setup is under way (an M1 is then refused with Busy), `retryAfter` what is left of
    /// the wait after a failed attempt (an M1 is then refused with Backoff).
    public mutating func handle(_ request: TLV8, anotherInProgress: Bool = false, retryAfter: Duration? = nil) -> TLV8 {
        let state = request.pairingState ?? 0
        do {
            switch (state, phase) {
            case (1, _):
                return try m1(request, anotherInProgress: anotherInProgress, retryAfter: retryAfter)
            case (3, .awaitingM3(let server)):
                return try m3(request, server)
            case (5, .awaitingM5(let sharedKey)):
                return try m5(request, sharedKey)
            default:
                phase = .failed
                return .pairingError(state: state &+ 1, .unknown)
            }
        } catch let error as HAPPairingError {
            phase = .failed
            return .pairingError(state: state &+ 1, error)
        } catch {
            phase = .failed
            return .pairingError(state: state &+ 1, .unknown)
        }
    }

    private mutating func m1(_ request: TLV8, anotherInProgress: Bool, retryAfter: Duration?) throws -> TLV8 {
        guard let method = request[.method], method == [0] || method == [1] else { throw HAPPairingError.unknown }
        guard !store.isPaired else { throw HAPPairingError.unavailable }
        guard store.failedPairSetupAttempts < PairSetup.maximumFailedAttempts else { throw HAPPairingError.maxTries }
        if let retryAfter, retryAfter > .zero {
            phase = .failed
            var response = TLV8.pairingError(state: 2, .backoff)
            response.append(.retryDelay, PairSetupBackoff.retryDelayBytes(retryAfter))
            return response
        }
        guard !anotherInProgress else { throw HAPPairingError.busy }
        let server = try SRPServer(
            username: Array("Pair-Setup".utf8), password: Array(setupCode.description.utf8), salt: LibCrypto.randomBytes(16))
        phase = .awaitingM3(server)
        var response = TLV8()
        response.append(.state, [2])
        response.append(.publicKey, server.publicKey)
        response.append(.salt, server.salt)
        return response
    }

    private mutating func m3(_ request: TLV8, _ server: SRPServer) throws -> TLV8 {
        guard let clientKey = request[.publicKey], let proof = request[.proof] else { throw HAPPairingError.unknown }
        do {
            try server.receiveClientPublicKey(clientKey)
        } catch {
            throw HAPPairingError.authentication
        }
        guard let serverProof = try server.verifyClientProof(proof), let sharedKey = server.sharedSessionKey else {
            store.failedPairSetupAttempts += 1
            throw HAPPairingError.authentication
        }
        phase = .awaitingM5(sharedKey: sharedKey)
        var response = TLV8()
        response.append(.state, [4])
        response.append(.proof, serverProof)
        return response
    }

    private mutating func m5(_ request: TLV8, _ sharedKey: [UInt8]) throws -> TLV8 {
        guard let encrypted = request[.encryptedData] else { throw HAPPairingError.unknown }
        let sessionKey = try HKDF.hapKey(sharedKey, salt: "Pair-Setup-Encrypt-Salt", info: "Pair-Setup-Encrypt-Info")
        let plaintext: [UInt8]
        do {
            plaintext = try ChaChaPoly.open(encrypted, key: sessionKey, nonce: .pairing("PS-Msg05"))
        } catch {
            throw HAPPairingError.authentication
        }
        guard let sub = try? TLV8(decoding: plaintext), let identifier = sub[.identifier], !identifier.isEmpty,
              let publicKeyBytes = sub[.publicKey], let signature = sub[.signature],
              let publicKey = try? Ed25519PublicKey(rawRepresentation: publicKeyBytes)
        else { throw HAPPairingError.authentication }
        let controllerX = try HKDF.hapKey(sharedKey, salt: "Pair-Setup-Controller-Sign-Salt", info: "Pair-Setup-Controller-Sign-Info")
        guard try publicKey.isValidSignature(signature, for: controllerX + identifier + publicKeyBytes) else {
            throw HAPPairingError.authentication
        }
        let pairing = Pairing(identifier: identifier, publicKey: publicKey, isAdmin: true)
        do { try store.add(pairing) } catch { throw HAPPairingError.maxPeers }

        let accessoryX = try HKDF.hapKey(sharedKey, salt: "Pair-Setup-Accessory-Sign-Salt", info: "Pair-Setup-Accessory-Sign-Info")
        let accessoryKey = try accessory.longTermKey.publicKey().rawRepresentation
        let accessorySignature = try accessory.longTermKey.signature(for: accessoryX + accessory.pairingIdentifier + accessoryKey)
        var identity = TLV8()
        identity.append(.identifier, accessory.pairingIdentifier)
        identity.append(.publicKey, accessoryKey)
        identity.append(.signature, accessorySignature)
        let sealed = try ChaChaPoly.seal(identity.encoded(), key: sessionKey, nonce: .pairing("PS-Msg06"))
        phase = .paired(pairing)
        var response = TLV8()
        response.append(.state, [6])
        response.append(.encryptedData, sealed)
        return response
    }
}
