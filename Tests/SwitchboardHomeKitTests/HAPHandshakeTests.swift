import Foundation
import SwitchboardHomeKit
import SwitchboardSupport
import SwitchboardTesting
import Testing

/// What the HAP server does with connections that do not finish pairing: an attacker's idle or
/// stalled sockets are closed after the handshake timeout (1 s here), and one pair-setup runs at
/// a time (a second controller's M1 is Busy), while a real controller still pairs and verifies.
@Suite(.timeLimit(.minutes(2)))
struct HAPHandshakeTests {
    let bridge = TestBridge()
    let store = InMemoryPairingStore()
    let server: HAPServer

    init() throws {
        let accessory = AccessoryIdentity(pairingIdentifier: "0E:4C:7A:11:9B:D2", longTermKey: try Ed25519PrivateKey())
        server = try HAPServer(loopbackOnly: true, accessory: accessory, setupCode: try SetupCode("031-45-154"),
                               store: store, database: bridge, handshakeTimeout: .seconds(1))
    }

    /// Runs the server while `body` runs.
    func serving<T>(_ body: () async throws -> T) async throws -> T {
        let server = self.server
        let task = Task { try await server.run() }
        defer { task.cancel() }
        return try await body()
    }

    @Test func idleAndStalledConnectionsAreClosedAfterTheHandshakeTimeout() async throws {
        let server = self.server
        let seen = try await serving { try await onThread { () -> (closed: [Bool], seconds: Double, left: Int, m2: [UInt8]?) in
            let start = ContinuousClock.now
            // Twenty sockets that send nothing, and one that stops after pair-setup's M1.
            let idle = try (0..<20).map { _ in try RawClient(port: server.port) }
            let stalled = try RawClient(port: server.port)
            let m2 = try stalled.postTLV("/pair-setup", TestController.m1())
            // Each ends from the server's side (a read sees the end well before the client's 10 s).
            let closed = (idle + [stalled]).map { $0.readAll().isEmpty }
            let seconds = Double((ContinuousClock.now - start).components.seconds)
            var left = server.connectionCount
            let deadline = ContinuousClock.now + .seconds(5)
            while left > 0, ContinuousClock.now < deadline { usleep(20_000); left = server.connectionCount }
            return (closed, seconds, left, m2[.state])
        } }
        #expect(seen.m2 == [2])
        #expect(seen.closed == Array(repeating: true, count: 21))
        #expect(seen.seconds < 5, "closed after \(seen.seconds) s, the timeout is 1 s")
        #expect(seen.left == 0)
    }

    @Test(.enabled(if: Aiohomekit.python != nil, "no Python with aiohomekit: run deploy/homekit/aiohomekit-venv.sh"))
    func aVerifiedSessionOutlivesTheHandshakeTimeout() async throws {
        let python = try #require(Aiohomekit.python)
        let folder = NSTemporaryDirectory() + "hap-handshake-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let script = Aiohomekit.folder + "/aiohomekit-daemon.py"
        let port = server.port, bridge = self.bridge
        let result = try await serving {
            // An attacker's idle socket is open all along; a controller pairs regardless.
            let idle = try RawClient(port: port)
            defer { withExtendedLifetime(idle) {} }
            let paired = try await onThread { ChildProcess.runBlocking(python, [script, "pair", "127.0.0.1", String(port), "031-45-154", folder + "/pairing.json"]) }
            #expect(paired.status == 0, "pair: \(paired.stderr)")
            async let watched = onThread { ChildProcess.runBlocking(python, [script, "watch", folder + "/pairing.json", "3", "9", folder + "/subscribed", "10"]) }
            let deadline = ContinuousClock.now + .seconds(30)
            while !FileManager.default.fileExists(atPath: folder + "/subscribed"), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            // Well past the handshake timeout, the verified session still gets its event.
            try await Task.sleep(for: .seconds(2.5))
            bridge.set(TestBridge.outletOn, .bool(true))
            return try await watched
        }
        #expect(result.status == 0, "watch: \(result.stderr)")
        let line = try #require(result.stdout.split(separator: "\n").last, "printed nothing: \(result.stderr)")
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(json(seen["events"]) == #"[{"characteristics":[{"aid":3,"iid":9,"value":true}]}]"#, "\(seen)")
    }
}

extension HAPHandshakeTests {
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
            // A's connection drops: B pairs-setup, and C is Busy meanwhile.
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

extension RawClient {
    /// POSTs a TLV8 body to `path` and decodes the TLV8 of the answer.
    func postTLV(_ path: String, _ body: TLV8) throws -> TLV8 {
        let bytes = body.encoded()
        try send(Array("POST \(path) HTTP/1.1\r\nContent-Type: application/pairing+tlv8\r\nContent-Length: \(bytes.count)\r\n\r\n".utf8) + bytes)
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if let end = received.firstRange(of: Array("\r\n\r\n".utf8)) {
                let head = String(decoding: received[..<end.lowerBound], as: UTF8.self)
                let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                if received.count >= end.upperBound + length {
                    return try TLV8(decoding: Array(received[end.upperBound..<end.upperBound + length]))
                }
            }
            let count = try SystemCall.read(descriptor, into: &buffer)
            guard count > 0 else { throw ControllerError("\(path): the accessory closed the connection") }
            received += buffer.prefix(count)
        }
    }
}
