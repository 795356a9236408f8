import Foundation
import SwitchboardHomeKit
import SwitchboardSupport
import SwitchboardTesting
import Testing

/// What the HAP server does with connections that do not finish pairing: an attacker's idle or
/// stalled sockets are closed after the handshake timeout (3 s here), while a real controller
/// still pairs and verifies, and its verified session stays.
@Suite(.timeLimit(.minutes(2)))
struct HAPHandshakeTests: LoopbackHAPServer {
    let bridge = TestBridge()
    let store = InMemoryPairingStore()
    let server: HAPServer

    init() throws {
        server = try Self.makeServer(bridge: bridge, store: store, handshakeTimeout: .seconds(3))
    }

    @Test func idleAndStalledConnectionsAreClosedAfterTheHandshakeTimeout() async throws {
        let server = self.server
        let seen = try await serving { try await onThread { () -> (closed: [Bool], seconds: Double, left: Int, m2: [UInt8]?) in
            // Twenty sockets that send nothing, and one that stops after pair-setup's M1, each
            // with the instant it connected: its timeout counts from then (making them, and the
            // SRP work of M2, can take seconds on a loaded machine).
            let idle = try (0..<20).map { _ in (client: try RawClient(port: server.port), connected: ContinuousClock.now) }
            let stalled = (client: try RawClient(port: server.port), connected: ContinuousClock.now)
            let m2 = try stalled.client.postTLV("/pair-setup", TestController.m1())
            // Each ends from the server's side, silently, before the client's own 10 s.
            var closed: [Bool] = [], longest = Duration.zero
            for connection in idle + [stalled] {
                closed.append(connection.client.waitForTheServersEnd()?.silent == true)
                longest = max(longest, ContinuousClock.now - connection.connected)
            }
            let seconds = Double(longest.components.seconds) + Double(longest.components.attoseconds) / 1e18
            var left = server.connectionCount
            let deadline = ContinuousClock.now + .seconds(5)
            while left > 0, ContinuousClock.now < deadline { usleep(20_000); left = server.connectionCount }
            return (closed, seconds, left, m2[.state])
        } }
        #expect(seen.m2 == [2])
        #expect(seen.closed == Array(repeating: true, count: 21))
        #expect(seen.seconds < 9, "the longest lived \(seen.seconds) s from its connection, the timeout is 3 s")
        #expect(seen.left == 0)
    }

    @Test(.enabled(if: Aiohomekit.python != nil, "no Python with aiohomekit: run deploy/homekit/aiohomekit-venv.sh"))
    func aVerifiedSessionOutlivesTheHandshakeTimeout() async throws {
        let python = try #require(Aiohomekit.python)
        let temporary = try TemporaryFolder(prefix: "hap-handshake-")
        defer { withExtendedLifetime(temporary) {} }
        let folder = temporary.path
        let script = Aiohomekit.folder + "/aiohomekit-daemon.py"
        let port = server.port, bridge = self.bridge
        let result = try await serving {
            // An attacker's idle socket is open all along; a controller pairs regardless.
            let idle = try RawClient(port: port)
            defer { withExtendedLifetime(idle) {} }
            let paired = await Self.pairDaemonScript(python, port: port, folder: folder)
            #expect(paired.status == 0, "pair: \(paired.stderr)")
            async let watched = onThread { ChildProcess.runBlocking(python, [script, "watch", folder + "/pairing.json", "3", "9", folder + "/subscribed", "10"]) }
            let deadline = ContinuousClock.now + .seconds(30)
            while !FileManager.default.fileExists(atPath: folder + "/subscribed"), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            // Well past the handshake timeout, the verified session still gets its event.
            try await Task.sleep(for: .seconds(4))
            bridge.set(TestBridge.outletOn, .bool(true))
            return await watched
        }
        #expect(result.status == 0, "watch: \(result.stderr)")
        let line = try #require(result.stdout.split(separator: "\n").last, "printed nothing: \(result.stderr)")
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(json(seen["events"]) == #"[{"characteristics":[{"aid":3,"iid":9,"value":true}]}]"#, "\(seen)")
    }
}
