import Foundation
import SwitchboardHomeKit
import SwitchboardSupport
import SwitchboardTesting
import Testing

/// One pair-setup at a time: while a connection's pair-setup is between M1 and M6, another
/// connection's M1 is answered Busy (kTLVError 0x07), in raw TLV8 and as aiohomekit sees it;
/// the attempt ends with M6, a refusal or its connection.
@Suite(.timeLimit(.minutes(2)))
struct HAPPairSetupBusyTests: LoopbackHAPServer {
    let bridge = TestBridge()
    let store = InMemoryPairingStore()
    let server: HAPServer

    init() throws {
        server = try Self.makeServer(bridge: bridge, store: store)
    }

    @Test func aSecondPairSetupIsBusyUntilTheFirstEndsOrItsConnectionDrops() async throws {
        let server = self.server, store = self.store
        let errors = try await serving { try await onThread { () -> [String: [UInt8]] in
            var errors: [String: [UInt8]] = [:]
            let controller = try TestController()
            // A's pair-setup is under way: B's M1 is Busy.
            var first: RawClient? = try RawClient(port: server.port)
            errors["A M2"] = try first!.postTLV("/pair-setup", TestController.m1())[.error] ?? []
            let second = try RawClient(port: server.port)
            errors["B M2 while A"] = try second.postTLV("/pair-setup", TestController.m1())[.error] ?? []
            // A's connection drops: B's pair-setup goes on, and C is Busy meanwhile.
            first = nil
            let deadline = ContinuousClock.now + .seconds(5)
            while server.connectionCount > 1, ContinuousClock.now < deadline { usleep(20_000) }
            let m2 = try second.postTLV("/pair-setup", TestController.m1())
            errors["B M2 after A dropped"] = m2[.error] ?? []
            let third = try RawClient(port: server.port)
            errors["C M2 while B"] = try third.postTLV("/pair-setup", TestController.m1())[.error] ?? []
            // B's wrong setup code ends its attempt: C pairs.
            let (wrong, _) = try controller.m3(answering: m2, setupCode: "031-45-155")
            errors["B M4 wrong code"] = try second.postTLV("/pair-setup", wrong)[.error] ?? []
            let m2C = try third.postTLV("/pair-setup", TestController.m1())
            errors["C M2 after B failed"] = m2C[.error] ?? []
            let (m3, exchange) = try controller.m3(answering: m2C, setupCode: "031-45-154")
            errors["C M4"] = try third.postTLV("/pair-setup", m3)[.error] ?? []
            errors["C M6"] = try third.postTLV("/pair-setup", try controller.m5(exchange))[.error] ?? []
            // Paired now: pair-setup is Unavailable, no longer Busy.
            errors["B M2 when paired"] = try second.postTLV("/pair-setup", TestController.m1())[.error] ?? []
            return errors
        } }
        #expect(errors == [
            "A M2": [], "B M2 while A": [HAPPairingError.busy.rawValue],
            "B M2 after A dropped": [], "C M2 while B": [HAPPairingError.busy.rawValue],
            "B M4 wrong code": [HAPPairingError.authentication.rawValue],
            "C M2 after B failed": [], "C M4": [], "C M6": [],
            "B M2 when paired": [HAPPairingError.unavailable.rawValue],
        ])
        #expect(store.pairings.count == 1)
        #expect(store.failedPairSetupAttempts == 1)
    }

    @Test(.enabled(if: Aiohomekit.python != nil, "no Python with aiohomekit: run deploy/homekit/aiohomekit-venv.sh"))
    func aiohomekitIsBusyWhileAnotherPairSetupRunsAndPairsOnceItDrops() async throws {
        let python = try #require(Aiohomekit.python)
        let server = self.server
        let (busy, paired) = try await serving { try await onThread { () -> (String, String) in
            var other: RawClient? = try RawClient(port: server.port)
            _ = try other!.postTLV("/pair-setup", TestController.m1())
            let busy = ChildProcess.runBlocking(python, [Aiohomekit.script, "127.0.0.1", String(server.port), "031-45-154"])
            other = nil
            let deadline = ContinuousClock.now + .seconds(5)
            while server.connectionCount > 0, ContinuousClock.now < deadline { usleep(20_000) }
            let paired = ChildProcess.runBlocking(python, [Aiohomekit.script, "127.0.0.1", String(server.port), "031-45-154"])
            return (busy.stdout + busy.stderr, paired.stdout + paired.stderr)
        } }
        #expect(busy.contains(#""error": "BusyError""#), "aiohomekit: \(busy)")
        #expect(paired.contains(#""pairing""#), "aiohomekit: \(paired)")
        #expect(store.pairings.count == 1)
    }
}
