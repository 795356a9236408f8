@testable import SwitchboardHomeKit
import Testing

/// Pair-setup (M1–M6) between the accessory's state machine and a controller written from the
/// specification's controller steps.
@Suite struct PairSetupTests {
    let store = InMemoryPairingStore()
    let accessory: AccessoryIdentity
    let setupCode = "031-45-154"

    init() throws {
        accessory = AccessoryIdentity(pairingIdentifier: "0E:4C:7A:11:9B:D2", longTermKey: try Ed25519PrivateKey())
    }

    func newPairSetup() throws -> PairSetup {
        PairSetup(accessory: accessory, setupCode: try SetupCode(setupCode), store: store)
    }

    @Test func controllerPairsWithTheSetupCodeAndBothKnowEachOthersKeys() throws {
        let controller = try TestController()
        var setup = try newPairSetup()
        let seen = try controller.pairSetup(&setup, setupCode: setupCode)
        #expect(seen.identifier == Array("0E:4C:7A:11:9B:D2".utf8))
        let accessoryLTPK = try accessory.longTermKey.publicKey()
        #expect(seen.publicKey == accessoryLTPK)
        let stored = try controller.longTermKey.publicKey()
        #expect(store.pairings == [Pairing(identifier: controller.identifier, publicKey: stored, isAdmin: true)])
        #expect(setup.pairedController == store.pairings.first)
        #expect(store.failedPairSetupAttempts == 0)
    }

    @Test func wrongSetupCodeIsRefusedWithAuthenticationAndCounted() throws {
        let controller = try TestController()
        var setup = try newPairSetup()
        let m2 = setup.handle(TestController.m1())
        let (m3, _) = try controller.m3(answering: m2, setupCode: "031-45-155")
        let m4 = setup.handle(m3)
        #expect(m4 == .pairingError(state: 4, .authentication))
        #expect(m4[.proof] == nil)
        #expect(store.pairings.isEmpty)
        #expect(store.failedPairSetupAttempts == 1)
        // The attempt is over: its M5 is not taken.
        let m5 = try controller.m5(.init(sharedKey: [UInt8](repeating: 7, count: 64), expectedServerProof: []))
        #expect(setup.handle(m5) == .pairingError(state: 6, .unknown))
    }

    @Test func anM1TooSoonAfterAFailedAttemptIsToldToWaitAndNotCounted() throws {
        var setup = try newPairSetup()
        store.failedPairSetupAttempts = 5
        var expected = TLV8.pairingError(state: 2, .backoff)
        expected.append(.retryDelay, [3])
        #expect(setup.handle(TestController.m1(), retryAfter: .milliseconds(2_500)) == expected, "2.5 s left: wait 3 s")
        #expect(store.failedPairSetupAttempts == 5)
        var later = try newPairSetup()
        #expect(later.handle(TestController.m1(), retryAfter: nil)[.publicKey] != nil, "once the wait is over, pair-setup goes on")
    }

    @Test func theWaitGrowsFromTheFourthFailedAttemptToAnHour() {
        #expect((0...3).map { PairSetupBackoff.delay(afterFailures: $0) } == [.zero, .zero, .zero, .zero])
        #expect((4...7).map { PairSetupBackoff.delay(afterFailures: $0) } == [.seconds(2), .seconds(4), .seconds(8), .seconds(16)])
        #expect(PairSetupBackoff.delay(afterFailures: 14) == .seconds(2048))
        #expect(PairSetupBackoff.delay(afterFailures: 15) == .seconds(3600))
        #expect(PairSetupBackoff.delay(afterFailures: 99) == .seconds(3600))
        #expect(PairSetupBackoff.remaining(failures: 5, sinceLastFailure: .seconds(1)) == .seconds(3))
        #expect(PairSetupBackoff.remaining(failures: 5, sinceLastFailure: .seconds(4)) == nil)
        #expect(PairSetupBackoff.retryDelayBytes(.seconds(3600)) == [0x10, 0x0E])
    }

    @Test func tamperedM5IsRefusedAndNothingIsStored() throws {
        let controller = try TestController()
        var setup = try newPairSetup()
        let (m3, exchange) = try controller.m3(answering: setup.handle(TestController.m1()), setupCode: setupCode)
        #expect(setup.handle(m3)[.proof] == exchange.expectedServerProof)
        var m5 = try controller.m5(exchange)
        m5.items[1].value[3] ^= 0x20
        #expect(setup.handle(m5) == .pairingError(state: 6, .authentication))
        #expect(store.pairings.isEmpty)
    }

    @Test func m5SignedByAnotherKeyIsRefused() throws {
        let controller = try TestController()
        var setup = try newPairSetup()
        let (m3, exchange) = try controller.m3(answering: setup.handle(TestController.m1()), setupCode: setupCode)
        _ = setup.handle(m3)
        let m5 = try controller.m5(exchange, signingWith: Ed25519PrivateKey())
        #expect(setup.handle(m5) == .pairingError(state: 6, .authentication))
        #expect(store.pairings.isEmpty)
    }

    @Test func secondPairSetupIsRefusedWhenPaired() throws {
        var first = try newPairSetup()
        _ = try TestController().pairSetup(&first, setupCode: setupCode)
        var second = try newPairSetup()
        #expect(second.handle(TestController.m1()) == .pairingError(state: 2, .unavailable))
        #expect(throws: ControllerError.self) { try TestController(identifier: "intruder").pairSetup(&second, setupCode: setupCode) }
        #expect(store.pairings.count == 1)
    }

    @Test func afterHundredWrongCodesPairSetupIsRefusedWithMaxTries() throws {
        let controller = try TestController()
        for attempt in 1...PairSetup.maximumFailedAttempts {
            var setup = try newPairSetup()
            let (m3, _) = try controller.m3(answering: setup.handle(TestController.m1()), setupCode: "111-22-333")
            #expect(setup.handle(m3) == .pairingError(state: 4, .authentication))
            #expect(store.failedPairSetupAttempts == attempt)
        }
        var setup = try newPairSetup()
        #expect(setup.handle(TestController.m1()) == .pairingError(state: 2, .maxTries))
        // Even the right code.
        #expect(throws: ControllerError.self) { try controller.pairSetup(&setup, setupCode: setupCode) }
        #expect(store.pairings.isEmpty)
    }

    @Test func m1WhileAnotherPairSetupIsUnderWayIsBusyAfterUnavailableAndMaxTries() throws {
        var setup = try newPairSetup()
        #expect(setup.handle(TestController.m1(), anotherInProgress: true) == .pairingError(state: 2, .busy))
        #expect(!setup.isInProgress)
        #expect(setup.handle(TestController.m1()).pairingState == 2)
        #expect(setup.isInProgress)
        store.failedPairSetupAttempts = PairSetup.maximumFailedAttempts
        var exhausted = try newPairSetup()
        #expect(exhausted.handle(TestController.m1(), anotherInProgress: true) == .pairingError(state: 2, .maxTries))
        store.failedPairSetupAttempts = 0
        _ = try TestController().pairSetup(&setup, setupCode: setupCode)
        #expect(!setup.isInProgress)
        var late = try newPairSetup()
        #expect(late.handle(TestController.m1(), anotherInProgress: true) == .pairingError(state: 2, .unavailable))
    }

    @Test func messagesOutOfOrderAreRefused() throws {
        var setup = try newPairSetup()
        var m3 = TLV8()
        m3.append(.state, [3])
        m3.append(.publicKey, [1])
        m3.append(.proof, [2])
        #expect(setup.handle(m3) == .pairingError(state: 4, .unknown))
        #expect(setup.handle(TLV8()) == .pairingError(state: 1, .unknown))
    }

    @Test(arguments: ["12345678", "031-45-15", "031-45-15a", "000-00-000", "123-45-678", "876-54-321"])
    func setupCodeHAPRefusesIsRefused(code: String) {
        #expect(throws: SetupCodeError.self) { try SetupCode(code) }
    }
}
