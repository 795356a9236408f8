import SwitchboardHomeKit

/// HomeKit's parsers of a controller's bytes: the TLV8 reader and the pair-setup and pair-verify
/// state machines, which a controller on the network feeds before it has proved anything.
enum HomeKitFuzzTargets {
    /// The accessory's identity: a fixed long-term key, so every input runs alike.
    static let accessory = AccessoryIdentity(
        pairingIdentifier: "0E:4C:7A:11:9B:D2",
        longTermKey: try! Ed25519PrivateKey(rawRepresentation: [UInt8](repeating: 0x5A, count: 32)))
    static let setupCode = try! SetupCode("031-45-154")

    /// TLV8: any bytes decode or are rejected with a typed error; what decodes encodes to bytes
    /// that decode to the same items.
    static func tlv8(_ bytes: [UInt8]) {
        guard let decoded = try? TLV8(decoding: bytes) else { return }
        _ = decoded.splitAtSeparators()
        guard let again = try? TLV8(decoding: decoded.encoded()), again == decoded else {
            fatalError("TLV8 items \(decoded.items) do not survive their own encoding")
        }
    }

    /// Pair-setup fed the requests in `bytes` (see ``requests(in:)``): every request gets a TLV8
    /// answer, and nothing is paired without the setup code.
    static func pairSetup(_ bytes: [UInt8]) {
        let store = FuzzPairingStore()
        var setup = PairSetup(accessory: accessory, setupCode: setupCode, store: store)
        for request in requests(in: bytes) {
            _ = setup.handle(request).encoded()
        }
        if !store.pairings.isEmpty { fatalError("pair-setup paired a controller without the setup code") }
    }

    /// Pair-verify fed the requests in `bytes`: no session without a pairing.
    static func pairVerify(_ bytes: [UInt8]) {
        var verify = PairVerify(accessory: accessory, store: FuzzPairingStore())
        for request in requests(in: bytes) {
            _ = verify.handle(request).encoded()
        }
        if verify.session != nil { fatalError("pair-verify made a session for an unknown controller") }
    }

    /// The requests in a fuzzer's input: each a 2-byte little-endian length and that many bytes
    /// (the last one what is left), those that decode as TLV8; at most 8.
    static func requests(in bytes: [UInt8]) -> [TLV8] {
        var requests: [TLV8] = []
        var rest = bytes[...]
        while rest.count >= 2, requests.count < 8 {
            let length = Int(rest[rest.startIndex]) | Int(rest[rest.startIndex + 1]) << 8
            rest = rest.dropFirst(2)
            let body = Array(rest.prefix(length))
            rest = rest.dropFirst(length)
            if let request = try? TLV8(decoding: body) { requests.append(request) }
        }
        return requests
    }
}

/// Pairings in memory, for one input.
final class FuzzPairingStore: PairingStore {
    var pairings: [Pairing] = []
    var failedPairSetupAttempts = 0
    func add(_ pairing: Pairing) throws { pairings.append(pairing) }
    func remove(identifier: [UInt8]) { pairings.removeAll { $0.identifier == identifier } }
}
