import Foundation
import SwitchboardHomeKit
import SwitchboardSupport
import SwitchboardTesting
import Testing

/// The HAP accessory server with the test bridge, on loopback, driven by aiohomekit (PyPI; Home
/// Assistant's HomeKit Controller library) and by hostile raw TCP clients.
@Suite(.timeLimit(.minutes(2)))
struct HAPServerTests: LoopbackHAPServer {
    let bridge = TestBridge()
    let store = InMemoryPairingStore()
    let server: HAPServer

    init() throws {
        server = try Self.makeServer(bridge: bridge, store: store)
    }

    @Test(.enabled(if: Aiohomekit.python != nil, "no Python with aiohomekit: run deploy/homekit/aiohomekit-venv.sh"))
    func aiohomekitPairsReadsWritesSubscribesAndManagesPairings() async throws {
        let python = try #require(Aiohomekit.python)
        let marker = NSTemporaryDirectory() + "hap-subscribed-" + UUID().uuidString.prefix(8)
        defer { try? FileManager.default.removeItem(atPath: marker) }
        let script = Aiohomekit.folder + "/aiohomekit-session.py"
        let port = server.port
        let result = try await serving {
            async let run = onThread { ChildProcess.runBlocking(python, [script, "127.0.0.1", String(port), "031-45-154", marker]) }
            // Once aiohomekit subscribed, the outlet changes on the accessory's side.
            let deadline = ContinuousClock.now + .seconds(60)
            while !FileManager.default.fileExists(atPath: marker), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            bridge.set(TestBridge.outletOn, .bool(true))
            return await run
        }
        #expect(result.status == 0, "aiohomekit-session.py: \(result.stderr)")
        let line = try #require(result.stdout.split(separator: "\n").last, "aiohomekit-session.py printed nothing: \(result.stderr)")
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        // aiohomekit's model found the Switch (49) and the Outlet (47).
        #expect(seen["services"] as? [String] == ["2:00000049-0000-1000-8000-0026BB765291", "3:00000047-0000-1000-8000-0026BB765291"])
        #expect(json(seen["before"]) == #"{"characteristics":[{"aid":2,"iid":9,"value":false},{"aid":3,"iid":9,"value":false}]}"#)
        #expect(json(seen["write"]) == "{}")
        #expect(json(seen["after"]) == #"{"characteristics":[{"aid":2,"iid":9,"value":true}]}"#)
        #expect(bridge.value(TestBridge.switchOn) == .bool(true))
        #expect(json(seen["writeReadOnly"]) == #"{"characteristics":[{"aid":3,"iid":10,"status":-70404}]}"#)
        #expect(json(seen["readMissing"]) == #"{"characteristics":[{"aid":2,"iid":9,"status":0,"value":true},{"aid":9,"iid":9,"status":-70409}]}"#)
        #expect(json(seen["subscribe"]) == "{}")
        #expect(json(seen["events"]) == #"[{"characteristics":[{"aid":3,"iid":9,"value":true}]}]"#, "events: \(json(seen["events"]))")
        let controller = try #require(seen["controller"] as? String)
        let second = try #require(seen["secondController"] as? String)
        #expect(json(seen["added"]) == #"[[6,"02"]]"#)
        #expect(json(seen["listed"]) == json([["identifier": controller, "admin": true], ["identifier": second, "admin": false]]))
        #expect(json(seen["removed"]) == #"[[6,"02"]]"#)
        #expect(json(seen["listedAfter"]) == json([["identifier": controller, "admin": true]]))
        #expect(store.pairings.map { String(decoding: $0.identifier, as: UTF8.self) } == [controller])
        #expect(seen["oversizedFrameClosed"] as? Bool == true)
        #expect(json(seen["afterOversizedFrame"]) == #"{"characteristics":[{"aid":2,"iid":9,"value":true}]}"#)
        #expect(seen["identifyWhilePaired"] as? Int == 400)
        #expect(bridge.identifyCount == 0)
    }

    /// A write that waits for its device holds up no other controller: another session of the
    /// same pairing is answered and gets its event while the write is unanswered.
    @Test(.enabled(if: Aiohomekit.python != nil, "no Python with aiohomekit: run deploy/homekit/aiohomekit-venv.sh"))
    func aSlowWriteHoldsUpNoOtherSession() async throws {
        let python = try #require(Aiohomekit.python)
        let temporary = try TemporaryFolder(prefix: "hap-concurrent-")
        defer { withExtendedLifetime(temporary) {} }
        let folder = temporary.path
        let script = Aiohomekit.folder + "/aiohomekit-daemon.py"
        let port = server.port, bridge = self.bridge
        bridge.holdWrites()
        defer { bridge.releaseWrites() }
        let result = try await serving {
            let paired = await Self.pairDaemonScript(python, port: port, folder: folder)
            #expect(paired.status == 0, "pair: \(paired.stderr)")
            async let run = onThread { ChildProcess.runBlocking(python, [script, "concurrent", folder + "/pairing.json", "2", "9", "3", "9", folder]) }
            // Once the switch's write waits for its device, the outlet changes on the accessory's
            // side (on a thread of its own: a server that held its lock through the write would
            // block it until the write ends).
            let deadline = ContinuousClock.now + .seconds(30)
            while bridge.heldWrites == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            Thread.detachNewThread { bridge.set(TestBridge.outletOn, .bool(true)) }
            while !FileManager.default.fileExists(atPath: folder + "/seen"), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            bridge.releaseWrites()
            return await run
        }
        #expect(result.status == 0, "aiohomekit-daemon.py concurrent: \(result.stderr)")
        let line = try #require(result.stdout.split(separator: "\n").last, "printed nothing: \(result.stderr)")
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(json(seen["events"]) == #"[{"characteristics":[{"aid":3,"iid":9,"value":true}]}]"#)
        #expect(seen["pendingAtEvent"] as? Bool == true)
        #expect(json(seen["read"]) == #"{"characteristics":[{"aid":3,"iid":9,"value":true}]}"#)
        #expect(seen["pendingAtRead"] as? Bool == true)
        #expect(json(seen["answer"]) == "{}")
        #expect(bridge.value(TestBridge.switchOn) == .bool(true))
    }

    /// HAP tells every subscribed controller of a change but the one that made it: a device whose
    /// change comes after the write was answered (a relay that reports once it switched) sends its
    /// event to the other session, not to the writer.
    @Test(.enabled(if: Aiohomekit.python != nil, "no Python with aiohomekit: run deploy/homekit/aiohomekit-venv.sh"))
    func theWriterIsNotToldOfItsOwnValueWhenTheChangeComesAfterTheAnswer() async throws {
        let python = try #require(Aiohomekit.python)
        let temporary = try TemporaryFolder(prefix: "hap-echo-")
        defer { withExtendedLifetime(temporary) {} }
        let folder = temporary.path
        let script = Aiohomekit.folder + "/aiohomekit-daemon.py"
        let port = server.port
        bridge.reportWritesLate()
        let result = try await serving {
            let paired = await Self.pairDaemonScript(python, port: port, folder: folder)
            #expect(paired.status == 0, "pair: \(paired.stderr)")
            return await onThread { ChildProcess.runBlocking(python, [script, "echo", folder + "/pairing.json", "2", "9", "0.5"]) }
        }
        #expect(result.status == 0, "aiohomekit-daemon.py echo: \(result.stderr)")
        let line = try #require(result.stdout.split(separator: "\n").last, "printed nothing: \(result.stderr)")
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(json(seen["answer"]) == "{}")
        #expect(json(seen["watcherEvents"]) == #"[{"characteristics":[{"aid":2,"iid":9,"value":true}]}]"#)
        #expect(json(seen["writerEvents"]) == "[]", "the writer was told of its own value: \(json(seen["writerEvents"]))")
        #expect(bridge.value(TestBridge.switchOn) == .bool(true))
    }

    /// A write runs on the executor the database names (the daemon's node loop, where its control
    /// center runs), not on the cooperative pool.
    @Test(.enabled(if: Aiohomekit.python != nil, "no Python with aiohomekit: run deploy/homekit/aiohomekit-venv.sh"))
    func writesRunOnTheDatabasesExecutor() async throws {
        let python = try #require(Aiohomekit.python)
        let temporary = try TemporaryFolder(prefix: "hap-executor-")
        defer { withExtendedLifetime(temporary) {} }
        let folder = temporary.path
        let bridge = TestBridge(loop: try EventLoop(name: "test.hap-writes"))
        let server = try Self.makeServer(bridge: bridge, store: InMemoryPairingStore())
        server.start()
        defer { server.stop() }
        let script = Aiohomekit.folder + "/aiohomekit-daemon.py", port = server.port
        let paired = await Self.pairDaemonScript(python, port: port, folder: folder)
        #expect(paired.status == 0, "pair: \(paired.stderr)")
        let put = await onThread { ChildProcess.runBlocking(python, [script, "put", folder + "/pairing.json", "2", "9", "true"]) }
        #expect(put.status == 0, "put: \(put.stderr)")
        #expect(bridge.writesRanOnLoop == [true])
        #expect(bridge.value(TestBridge.switchOn) == .bool(true))
    }

    /// A controller that vanishes without closing (its socket closed in TCP repair mode: no FIN,
    /// no RST, as a phone that left the network) is found by the server's keep-alive probes and
    /// its connection closed; another one, as silent for longer than the probes take, is kept:
    /// its kernel answers them.
    @Test(.enabled(if: Aiohomekit.python != nil, "no Python with aiohomekit: run deploy/homekit/aiohomekit-venv.sh"),
          .enabled(if: getuid() == 0, "TCP repair mode, which makes the controller's socket vanish, needs CAP_NET_ADMIN: run as root"))
    func aControllerThatVanishedIsFoundByKeepAliveAndClosed() async throws {
        let python = try #require(Aiohomekit.python)
        let keepAlive = TCPKeepAlive(idle: .seconds(1), interval: .seconds(1), probes: 2)
        let server = try Self.makeServer(bridge: bridge, store: store, keepAlive: keepAlive)
        server.start()
        defer { server.stop() }
        let marker = NSTemporaryDirectory() + "hap-vanished-" + UUID().uuidString.prefix(8)
        defer {
            try? FileManager.default.removeItem(atPath: marker)
            try? FileManager.default.removeItem(atPath: marker + ".done")
        }
        let port = server.port
        async let run = onThread {
            ChildProcess.runBlocking(python, [Aiohomekit.folder + "/aiohomekit-vanish.py", "127.0.0.1", String(port), "031-45-154", marker])
        }
        let vanished = await eventually(within: .seconds(30)) { FileManager.default.fileExists(atPath: marker) }
        if vanished {
            let vanishedAt = ContinuousClock.now
            // Two verified connections, then one: the vanished one's within the probes' limit.
            let closed = await eventually(within: keepAlive.limit + .seconds(5)) { server.connectionCount == 1 }
            #expect(closed, "\(server.connectionCount) connections open \(ContinuousClock.now - vanishedAt) after one vanished")
            try await Task.sleep(for: keepAlive.limit)
            #expect(server.connectionCount == 1, "the controller that is there, silent, was kept")
        }
        _ = FileManager.default.createFile(atPath: marker + ".done", contents: nil)
        let result = await run
        #expect(vanished, "aiohomekit-vanish.py: \(result.stdout) \(result.stderr)")
        #expect(result.status == 0, "aiohomekit-vanish.py: \(result.stderr)")
        #expect(result.stdout.split(separator: "\n").last == #"{"verified": 2}"#, "\(result.stdout)")
        #expect(await eventually(within: .seconds(10)) { server.connectionCount == 0 })
    }

    /// `start()` alone serves: its listener waits for no task, so a pool kept busy by other work
    /// cannot leave a controller unanswered. No task runs this server at all.
    @Test func aStartedServerAnswersWithNoTaskRunningIt() async throws {
        let server = self.server
        server.start()
        server.start()
        defer { server.stop() }
        let m2 = try await onThread { try RawClient(port: server.port).postTLV("/pair-setup", TestController.m1()) }
        #expect(m2[.state] == [2])
        #expect(m2[.error] == nil)
    }

    @Test func hostileClientsLeaveTheServerServing() async throws {
        let server = self.server, bridge = self.bridge
        // The clients block on their sockets: they run on a thread, and the answers are checked here.
        let answers = try await serving { try await onThread { () -> [String: String] in
            var answers: [String: String] = [:]
            // Garbage before pairing: 400, then the connection ends.
            let garbage = try RawClient(port: server.port)
            try garbage.send(Array("\u{01}\u{02}GARBAGE\r\n\r\n".utf8))
            answers["garbage"] = garbage.readAll()
            // A body and headers too large: 413.
            let large = try RawClient(port: server.port)
            try large.send(Array("POST /pair-setup HTTP/1.1\r\nContent-Length: 10000000\r\n\r\n".utf8))
            answers["large"] = large.readAll()
            let headers = try RawClient(port: server.port)
            try headers.send(Array(("GET /accessories HTTP/1.1\r\nX: " + String(repeating: "a", count: 9000)).utf8))
            answers["headers"] = headers.readAll()
            // Before pair-verify nothing but pairing and identify: 470.
            let early = try RawClient(port: server.port)
            try early.send(Array("GET /accessories HTTP/1.1\r\nContent-Length: 0\r\n\r\n".utf8))
            answers["early"] = try early.readResponse()
            // 50 unpaired connections at once; the server still answers pair-setup's M1 and identify.
            let flood = try (0..<50).map { _ in try RawClient(port: server.port) }
            let client = try RawClient(port: server.port)
            let m1: [UInt8] = [0x06, 0x01, 0x01, 0x00, 0x01, 0x00]
            try client.send(Array("POST /pair-setup HTTP/1.1\r\nContent-Length: \(m1.count)\r\n\r\n".utf8) + m1)
            answers["m1"] = try client.readResponse()
            try client.send(Array("POST /identify HTTP/1.1\r\nContent-Length: 0\r\n\r\n".utf8))
            answers["identify"] = try client.readResponse()
            answers["connections"] = String(server.connectionCount)
            withExtendedLifetime(flood) {}
            return answers
        } }
        #expect(answers["garbage"]?.hasPrefix("HTTP/1.1 400") == true, "\(answers["garbage"] ?? "")")
        #expect(answers["large"]?.hasPrefix("HTTP/1.1 413") == true, "\(answers["large"] ?? "")")
        #expect(answers["headers"]?.hasPrefix("HTTP/1.1 413") == true, "\(answers["headers"] ?? "")")
        #expect(answers["early"]?.hasPrefix("HTTP/1.1 470") == true, "\(answers["early"] ?? "")")
        #expect(answers["m1"]?.hasPrefix("HTTP/1.1 200") == true, "\(answers["m1"]?.prefix(80) ?? "")")
        #expect(answers["identify"]?.hasPrefix("HTTP/1.1 204") == true)
        #expect(bridge.identifyCount == 1)
        #expect(Int(answers["connections"] ?? "") ?? 0 >= 51)
    }
}

/// A JSON text with sorted keys, to compare what the script printed.
func json(_ value: Any?) -> String {
    guard let value, let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]) else { return "nil" }
    return String(decoding: data, as: UTF8.self)
}

/// A plain TCP client on loopback (an attacker's or a careless controller's).
final class RawClient {
    let descriptor: CInt

    init(port: UInt16) throws {
        descriptor = socket(AF_INET, CInt(SOCK_STREAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { close(descriptor); throw ControllerError("connect to 127.0.0.1:\(port): errno \(errno)") }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    func send(_ bytes: [UInt8]) throws {
        try SystemCall.writeAll(bytes, to: descriptor, isSocket: true)
    }

    /// Everything until the server closes (or 10 s pass).
    /// Reads until the server ends the connection: how long that took and whether it sent
    /// nothing, or nil if the client's own 10 s receive timeout came first.
    func waitForTheServersEnd() -> (after: Duration, silent: Bool)? {
        let start = ContinuousClock.now
        var buffer = [UInt8](repeating: 0, count: 4096)
        var silent = true
        while true {
            guard let count = try? SystemCall.read(descriptor, into: &buffer) else { return nil }
            if count == 0 { return (ContinuousClock.now - start, silent) }
            silent = false
        }
    }

    func readAll() -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while let count = try? SystemCall.read(descriptor, into: &buffer), count > 0 { bytes += buffer.prefix(count) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// One response, by its Content-Length.
    func readResponse() throws -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let text = String(decoding: bytes, as: UTF8.self)
            if let end = text.range(of: "\r\n\r\n") {
                let length = text[..<end.lowerBound].split(separator: "\r\n")
                    .first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                if bytes.count >= text[..<end.upperBound].utf8.count + length { return text }
            }
            let count = try SystemCall.read(descriptor, into: &buffer)
            guard count > 0 else { return text }
            bytes += buffer.prefix(count)
        }
    }
}
