/// The session keys of a verified connection: HKDF-SHA512 of the X25519 shared secret with
/// salt "Control-Salt".
public struct SessionKeys: Sendable, Equatable {
    /// What the accessory encrypts with ("Control-Read-Encryption-Key": the controller reads).
    public var accessoryToController: [UInt8]
    /// What the accessory decrypts with ("Control-Write-Encryption-Key").
    public var controllerToAccessory: [UInt8]

    /// The keys derived from a pair-verify's shared secret.
    public init(sharedSecret: [UInt8]) throws {
        accessoryToController = try HKDF.hapKey(sharedSecret, salt: "Control-Salt", info: "Control-Read-Encryption-Key")
        controllerToAccessory = try HKDF.hapKey(sharedSecret, salt: "Control-Salt", info: "Control-Write-Encryption-Key")
    }
}

/// The accessory's side of HAP's pair-verify (M1–M4), a state machine with no I/O.
///
/// - M1 → M2: a fresh X25519 key; the shared secret with the controller's key; the accessory's
///   signature over its key | its pairing id | the controller's key, encrypted with the HKDF of
///   the secret ("Pair-Verify-Encrypt-…", nonce "PV-Msg02").
/// - M3 → M4: opens the controller's identity (nonce "PV-Msg03"), finds its pairing, verifies
///   its signature over the controller's key | its pairing id | the accessory's key with the
///   stored LTPK; then the session keys exist.
public struct PairVerify {
    enum Phase {
        case awaitingM1
        case awaitingM3(sharedSecret: [UInt8], accessoryKey: [UInt8], controllerKey: [UInt8])
        case verified(Pairing, SessionKeys)
        case failed
    }

    let accessory: AccessoryIdentity
    let store: any PairingStore
    private(set) var phase = Phase.awaitingM1

    public init(accessory: AccessoryIdentity, store: any PairingStore) {
        self.accessory = accessory
        self.store = store
    }

    /// The verified controller and the session's keys, once M4 was sent.
    public var session: (controller: Pairing, keys: SessionKeys)? {
        if case .verified(let pairing, let keys) = phase { return (pairing, keys) }
        return nil
    }

    /// The response to one request.
    public mutating func handle(_ request: TLV8) -> TLV8 {
        let state = request.pairingState ?? 0
        do {
            switch (state, phase) {
            case (1, _):
                return try m1(request)
            case (3, .awaitingM3(let sharedSecret, let accessoryKey, let controllerKey)):
                return try m3(request, sharedSecret: sharedSecret, accessoryKey: accessoryKey, controllerKey: controllerKey)
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

    private mutating func m1(_ request: TLV8) throws -> TLV8 {
        guard let controllerKey = request[.publicKey], controllerKey.count == 32 else { throw HAPPairingError.unknown }
        let ephemeral = try X25519PrivateKey()
        let accessoryKey = try ephemeral.publicKey()
        let sharedSecret: [UInt8]
        do { sharedSecret = try ephemeral.sharedSecret(with: controllerKey) } catch { throw HAPPairingError.authentication }
        let signature = try accessory.longTermKey.signature(for: accessoryKey + accessory.pairingIdentifier + controllerKey)
        var identity = TLV8()
        identity.append(.identifier, accessory.pairingIdentifier)
        identity.append(.signature, signature)
        let sessionKey = try HKDF.hapKey(sharedSecret, salt: "Pair-Verify-Encrypt-Salt", info: "Pair-Verify-Encrypt-Info")
        let sealed = try ChaChaPoly.seal(identity.encoded(), key: sessionKey, nonce: .pairing("PV-Msg02"))
        phase = .awaitingM3(sharedSecret: sharedSecret, accessoryKey: accessoryKey, controllerKey: controllerKey)
        var response = TLV8()
        response.append(.state, [2])
        response.append(.publicKey, accessoryKey)
        response.append(.encryptedData, sealed)
        return response
    }

    private mutating func m3(_ request: TLV8, sharedSecret: [UInt8], accessoryKey: [UInt8], controllerKey: [UInt8]) throws -> TLV8 {
        guard let encrypted = request[.encryptedData] else { throw HAPPairingError.unknown }
        let sessionKey = try HKDF.hapKey(sharedSecret, salt: "Pair-Verify-Encrypt-Salt", info: "Pair-Verify-Encrypt-Info")
        let plaintext: [UInt8]
        do {
            plaintext = try ChaChaPoly.open(encrypted, key: sessionKey, nonce: .pairing("PV-Msg03"))
        } catch {
            throw HAPPairingError.authentication
        }
        guard let sub = try? TLV8(decoding: plaintext), let identifier = sub[.identifier], let signature = sub[.signature],
              let pairing = store.pairing(identifier: identifier)
        else { throw HAPPairingError.authentication }
        guard try pairing.publicKey.isValidSignature(signature, for: controllerKey + identifier + accessoryKey) else {
            throw HAPPairingError.authentication
        }
        phase = .verified(pairing, try SessionKeys(sharedSecret: sharedSecret))
        return TLV8([.init(HAPTLVType.state.rawValue, [4])])
    }
}
