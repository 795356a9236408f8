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

    /// The HTTP request parser a connection feeds before and after pair-verify: however the bytes
    /// arrive (whole, or cut in two where the first byte says), the same requests come out, and
    /// then the same refusal or the same wait for more.
    static func httpRequests(_ bytes: [UInt8]) {
        guard let cut = bytes.first else { return }
        let input = Array(bytes.dropFirst())
        let split = Int(cut) % (input.count + 1)
        let whole = parsed([input]), pieces = parsed([Array(input[..<split]), Array(input[split...])])
        if whole != pieces { fatalError("the request parser gave \(whole) for the bytes whole and \(pieces) for them cut at \(split)") }
    }

    /// What a parser gives: a request, or its refusal.
    private enum Parsed: Equatable {
        case request(HAPRequest)
        case refused(HAPRequestError)
    }

    /// What a parser gives for chunks arriving in turn: the requests, then the refusal if any.
    private static func parsed(_ chunks: [[UInt8]]) -> [Parsed] {
        var parser = HAPRequestParser()
        var outcome: [Parsed] = []
        for chunk in chunks {
            parser.append(chunk)
            do {
                while let request = try parser.next() {
                    if request.body.count > HAPRequestParser.maximumBodyLength { fatalError("a body of \(request.body.count) bytes was accepted") }
                    outcome.append(.request(request))
                }
            } catch {
                outcome.append(.refused(error))
                return outcome
            }
        }
        return outcome
    }

    /// The session frames: any bytes open or are refused with a typed error; what a sealer seals,
    /// an opener under the same key opens to the same bytes, cut in two anywhere.
    static func frames(_ bytes: [UInt8]) {
        let key = [UInt8](repeating: 0x33, count: 32)
        var stranger = try! HAPFrameOpener(key: key)
        _ = try? stranger.open(bytes)
        var sealer = try! HAPFrameSealer(key: key), opener = try! HAPFrameOpener(key: key)
        guard let sealed = try? sealer.seal(bytes) else { fatalError("\(bytes.count) bytes could not be sealed") }
        let split = bytes.first.map { Int($0) * 7 % (sealed.count + 1) } ?? 0
        do {
            let opened = try opener.open(Array(sealed[..<split])) + opener.open(Array(sealed[split...]))
            if opened != bytes { fatalError("\(bytes.count) bytes sealed opened as \(opened.count) other bytes (cut at \(split))") }
        } catch {
            fatalError("frames sealed under the same key were refused: \(error)")
        }
    }

    /// A controller's JSON (a PUT of characteristics, a subscription): any bytes parse to a value
    /// or to nil.
    static func json(_ bytes: [UInt8]) {
        _ = HAPJSON(parsing: bytes)
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
