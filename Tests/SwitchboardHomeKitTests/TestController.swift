@testable import SwitchboardHomeKit

/// The pairings in memory, for the state machines' tests.
final class InMemoryPairingStore: PairingStore {
    var pairings: [Pairing] = []
    var failedPairSetupAttempts = 0

    func add(_ pairing: Pairing) throws {
        pairings.removeAll { $0.identifier == pairing.identifier }
        pairings.append(pairing)
    }

    func remove(identifier: [UInt8]) {
        pairings.removeAll { $0.identifier == identifier }
    }
}

/// A HomeKit controller's side of pair-setup and pair-verify, written from the specification's
/// controller steps with the same libcrypto primitives, to drive the accessory's state machines.
struct TestController {
    let identifier: [UInt8]
    let longTermKey: Ed25519PrivateKey

    init(identifier: String = "7A3B2C1D-0000-4000-8000-00000000C0DE") throws {
        self.identifier = Array(identifier.utf8)
        longTermKey = try Ed25519PrivateKey()
    }

    /// What the controller keeps between pair-setup's messages.
    struct SetupExchange {
        var sharedKey: [UInt8]
        var expectedServerProof: [UInt8]
    }

    static func m1() -> TLV8 {
        var request = TLV8()
        request.append(.state, [1])
        request.append(.method, [0])
        return request
    }

    /// M3 from the accessory's M2: the SRP-6a client (RFC 5054 with HAP's M1; A and S padded to
    /// the length of N, as aiohomekit's client pads them).
    func m3(answering m2: TLV8, setupCode: String) throws -> (TLV8, SetupExchange) {
        let group = SRPGroup.hap
        let hash = group.hash
        let context = try BigNumberContext()
        let n = try BigNumber(bytes: group.prime)
        let g = try BigNumber(bytes: group.generator)
        let width = group.prime.count
        let salt = try unwrap(m2[.salt])
        let serverKeyBytes = try unwrap(m2[.publicKey])
        let serverKey = try BigNumber(bytes: serverKeyBytes)
        let a = try BigNumber(bytes: LibCrypto.randomBytes(32))
        let clientKey = try g.power(a, modulo: n, context)
        let u = try BigNumber(bytes: hash.hash(clientKey.bytes(paddedTo: width), serverKey.bytes(paddedTo: width)))
        let k = try BigNumber(bytes: hash.hash(group.prime, g.bytes(paddedTo: width)))
        let x = try BigNumber(bytes: hash.hash(salt, hash.hash(Array("Pair-Setup".utf8), Array(":".utf8), Array(setupCode.utf8))))
        // S = (B − k·g^x)^(a + u·x) mod N; the exponent is taken mod N − 1 (Fermat).
        let one = try BigNumber(bytes: [1])
        let zero = try BigNumber(bytes: [])
        let nMinusOne = try zero.minus(one, modulo: n, context)
        let base = try serverKey.minus(k.times(g.power(x, modulo: n, context), modulo: n, context), modulo: n, context)
        let exponent = try a.plus(u.times(x, modulo: nMinusOne, context), modulo: nMinusOne, context)
        let premaster = try base.power(exponent, modulo: n, context)
        let sharedKey = try hash.hash(premaster.bytes(paddedTo: width))
        let xored = try zip(hash.hash(group.prime), hash.hash(group.generator)).map { $0 ^ $1 }
        let paddedClientKey = try clientKey.bytes(paddedTo: width)
        let proof = try hash.hash(xored, hash.hash(Array("Pair-Setup".utf8)), salt, paddedClientKey, serverKeyBytes, sharedKey)
        var request = TLV8()
        request.append(.state, [3])
        request.append(.publicKey, paddedClientKey)
        request.append(.proof, proof)
        return (request, SetupExchange(sharedKey: sharedKey, expectedServerProof: try hash.hash(paddedClientKey, proof, sharedKey)))
    }

    /// M5: the controller's identity, signed and encrypted with keys from K.
    func m5(_ exchange: SetupExchange, signingWith signer: Ed25519PrivateKey? = nil) throws -> TLV8 {
        let controllerX = try HKDF.hapKey(exchange.sharedKey, salt: "Pair-Setup-Controller-Sign-Salt", info: "Pair-Setup-Controller-Sign-Info")
        let publicKey = try longTermKey.publicKey().rawRepresentation
        let signature = try (signer ?? longTermKey).signature(for: controllerX + identifier + publicKey)
        var identity = TLV8()
        identity.append(.identifier, identifier)
        identity.append(.publicKey, publicKey)
        identity.append(.signature, signature)
        let key = try HKDF.hapKey(exchange.sharedKey, salt: "Pair-Setup-Encrypt-Salt", info: "Pair-Setup-Encrypt-Info")
        var request = TLV8()
        request.append(.state, [5])
        request.append(.encryptedData, try ChaChaPoly.seal(identity.encoded(), key: key, nonce: .pairing("PS-Msg05")))
        return request
    }

    /// The accessory's identity from M6, its signature checked: its pairing id and LTPK.
    func accessoryIdentity(from m6: TLV8, _ exchange: SetupExchange) throws -> (identifier: [UInt8], publicKey: Ed25519PublicKey) {
        let key = try HKDF.hapKey(exchange.sharedKey, salt: "Pair-Setup-Encrypt-Salt", info: "Pair-Setup-Encrypt-Info")
        let identity = try TLV8(decoding: ChaChaPoly.open(try unwrap(m6[.encryptedData]), key: key, nonce: .pairing("PS-Msg06")))
        let identifier = try unwrap(identity[.identifier])
        let publicKey = try Ed25519PublicKey(rawRepresentation: try unwrap(identity[.publicKey]))
        let accessoryX = try HKDF.hapKey(exchange.sharedKey, salt: "Pair-Setup-Accessory-Sign-Salt", info: "Pair-Setup-Accessory-Sign-Info")
        guard try publicKey.isValidSignature(try unwrap(identity[.signature]), for: accessoryX + identifier + publicKey.rawRepresentation) else {
            throw ControllerError("the accessory's M6 signature does not verify")
        }
        return (identifier, publicKey)
    }

    /// Pair-setup from M1 to M6 against `accessory`; the accessory's pairing id and LTPK.
    func pairSetup(_ accessory: inout PairSetup, setupCode: String) throws -> (identifier: [UInt8], publicKey: Ed25519PublicKey) {
        let m2 = accessory.handle(Self.m1())
        guard m2[.error] == nil else { throw ControllerError("M2 carries error \(m2[.error]!)") }
        let (m3, exchange) = try m3(answering: m2, setupCode: setupCode)
        let m4 = accessory.handle(m3)
        guard m4[.error] == nil, m4[.proof] == exchange.expectedServerProof else { throw ControllerError("M4: \(m4.items)") }
        let m6 = accessory.handle(try m5(exchange))
        guard m6[.error] == nil else { throw ControllerError("M6 carries error \(m6[.error]!)") }
        return try accessoryIdentity(from: m6, exchange)
    }

    /// What the controller keeps between pair-verify's messages.
    struct VerifyExchange {
        var ephemeral: X25519PrivateKey
        var sharedSecret: [UInt8] = []
        var accessoryKey: [UInt8] = []
    }

    static func verifyM1() throws -> (TLV8, VerifyExchange) {
        let ephemeral = try X25519PrivateKey()
        var request = TLV8()
        request.append(.state, [1])
        request.append(.publicKey, try ephemeral.publicKey())
        return (request, VerifyExchange(ephemeral: ephemeral))
    }

    /// M3 from the accessory's M2, after checking the accessory's signature with its LTPK.
    func verifyM3(answering m2: TLV8, _ exchange: inout VerifyExchange, accessoryLTPK: Ed25519PublicKey,
                  signingWith signer: Ed25519PrivateKey? = nil) throws -> TLV8 {
        let accessoryKey = try unwrap(m2[.publicKey])
        let sharedSecret = try exchange.ephemeral.sharedSecret(with: accessoryKey)
        let key = try HKDF.hapKey(sharedSecret, salt: "Pair-Verify-Encrypt-Salt", info: "Pair-Verify-Encrypt-Info")
        let identity = try TLV8(decoding: ChaChaPoly.open(try unwrap(m2[.encryptedData]), key: key, nonce: .pairing("PV-Msg02")))
        let controllerKey = try exchange.ephemeral.publicKey()
        guard try accessoryLTPK.isValidSignature(try unwrap(identity[.signature]),
                                                 for: accessoryKey + (try unwrap(identity[.identifier])) + controllerKey) else {
            throw ControllerError("the accessory's M2 signature does not verify")
        }
        exchange.sharedSecret = sharedSecret
        exchange.accessoryKey = accessoryKey
        var mine = TLV8()
        mine.append(.identifier, identifier)
        mine.append(.signature, try (signer ?? longTermKey).signature(for: controllerKey + identifier + accessoryKey))
        var request = TLV8()
        request.append(.state, [3])
        request.append(.encryptedData, try ChaChaPoly.seal(mine.encoded(), key: key, nonce: .pairing("PV-Msg03")))
        return request
    }
}

struct ControllerError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The value, or a thrown error naming what was missing.
func unwrap<T>(_ value: T?, _ what: String = "a value") throws -> T {
    guard let value else { throw ControllerError("expected \(what)") }
    return value
}
