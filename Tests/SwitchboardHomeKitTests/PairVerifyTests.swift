@testable import SwitchboardHomeKit
import Testing

/// Pair-verify (M1–M4) after a pair-setup, between the accessory's state machine and a
/// controller written from the specification's controller steps.
@Suite struct PairVerifyTests {
    let store = InMemoryPairingStore()
    let accessory: AccessoryIdentity
    let controller: TestController
    let accessoryLTPK: Ed25519PublicKey

    init() throws {
        accessory = AccessoryIdentity(pairingIdentifier: "0E:4C:7A:11:9B:D2", longTermKey: try Ed25519PrivateKey())
        controller = try TestController()
        var setup = PairSetup(accessory: accessory, setupCode: try SetupCode("031-45-154"), store: store)
        accessoryLTPK = try controller.pairSetup(&setup, setupCode: "031-45-154").publicKey
    }

    @Test func pairedControllerVerifiesAndBothDeriveTheSameSessionKeys() throws {
        var verify = PairVerify(accessory: accessory, store: store)
        let (m1, start) = try TestController.verifyM1()
        var exchange = start
        let m2 = verify.handle(m1)
        #expect(m2.pairingState == 2)
        let m3 = try controller.verifyM3(answering: m2, &exchange, accessoryLTPK: accessoryLTPK)
        let m4 = verify.handle(m3)
        #expect(m4 == TLV8([.init(HAPTLVType.state.rawValue, [4])]))
        let session = try #require(verify.session)
        #expect(session.controller.identifier == controller.identifier)
        // The controller's own derivation: it reads with the read key, writes with the write key.
        let controllerReads = try HKDF.hapKey(exchange.sharedSecret, salt: "Control-Salt", info: "Control-Read-Encryption-Key")
        let controllerWrites = try HKDF.hapKey(exchange.sharedSecret, salt: "Control-Salt", info: "Control-Write-Encryption-Key")
        #expect(session.keys.accessoryToController == controllerReads)
        #expect(session.keys.controllerToAccessory == controllerWrites)
        #expect(session.keys.accessoryToController != session.keys.controllerToAccessory)
        // A first frame each way opens on the other side.
        let event = try ChaChaPoly.seal(Array("EVENT/1.0 200 OK".utf8), key: session.keys.accessoryToController, nonce: .session(counter: 0), authenticating: [16, 0])
        #expect(try ChaChaPoly.open(event, key: controllerReads, nonce: .session(counter: 0), authenticating: [16, 0]) == Array("EVENT/1.0 200 OK".utf8))
        let request = try ChaChaPoly.seal(Array("GET /accessories".utf8), key: controllerWrites, nonce: .session(counter: 0))
        #expect(try ChaChaPoly.open(request, key: session.keys.controllerToAccessory, nonce: .session(counter: 0)) == Array("GET /accessories".utf8))
    }

    @Test func tamperedM3IsRefused() throws {
        var verify = PairVerify(accessory: accessory, store: store)
        let (m1, start) = try TestController.verifyM1()
        var exchange = start
        var m3 = try controller.verifyM3(answering: verify.handle(m1), &exchange, accessoryLTPK: accessoryLTPK)
        m3.items[1].value[0] ^= 1
        #expect(verify.handle(m3) == .pairingError(state: 4, .authentication))
        #expect(verify.session == nil)
    }

    @Test func unpairedControllerIsRefused() throws {
        var verify = PairVerify(accessory: accessory, store: store)
        let stranger = try TestController(identifier: "stranger")
        let (m1, start) = try TestController.verifyM1()
        var exchange = start
        let m3 = try stranger.verifyM3(answering: verify.handle(m1), &exchange, accessoryLTPK: accessoryLTPK)
        #expect(verify.handle(m3) == .pairingError(state: 4, .authentication))
        #expect(verify.session == nil)
    }

    @Test func pairedIdentifierSignedWithAnotherKeyIsRefused() throws {
        var verify = PairVerify(accessory: accessory, store: store)
        let (m1, start) = try TestController.verifyM1()
        var exchange = start
        let m3 = try controller.verifyM3(answering: verify.handle(m1), &exchange, accessoryLTPK: accessoryLTPK, signingWith: Ed25519PrivateKey())
        #expect(verify.handle(m3) == .pairingError(state: 4, .authentication))
        #expect(verify.session == nil)
    }

    @Test func m3BeforeM1IsRefused() throws {
        var verify = PairVerify(accessory: accessory, store: store)
        var m3 = TLV8()
        m3.append(.state, [3])
        m3.append(.encryptedData, [UInt8](repeating: 0, count: 40))
        #expect(verify.handle(m3) == .pairingError(state: 4, .unknown))
    }
}
