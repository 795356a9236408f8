import Foundation

/// A real mosquitto broker on a free loopback port, for tests: started, killed and restarted on
/// the same port; stopped when dropped. Its blocking steps (openssl, mosquitto_passwd, waiting
/// for the listener or for the broker to end) run on threads of their own, never the concurrency
/// pool the tests share.
public final class MosquittoBroker: @unchecked Sendable {
    // Invariant: used from one test at a time.
    public private(set) var port: Int
    public let directory: String
    private var process: ChildProcess?

    /// Starts a broker listening on 127.0.0.1 only: open to anonymous clients, or, given `users`
    /// (name → password), only to them.
    /// With `tls`, the listener speaks TLS with a certificate for 127.0.0.1 signed by a fresh CA
    /// whose certificate is ``caFile``. With `persistence`, the broker keeps sessions, their
    /// queued messages and retained messages in its folder across restarts (saved every second
    /// and when stopped). With `aclFile`, a copy of that mosquitto ACL decides who may read and
    /// write which topics.
    ///
    /// The broker runs as the user running the tests, so that it reads its own files with any
    /// mosquitto 2.0: started as root, mosquitto switches to its `user` (default `mosquitto`)
    /// before it reads the password and ACL files (2.0.21 on Debian 13 then fails with
    /// "Unable to open pwfile"), so as root the configuration says `user root`. Those files are
    /// mode 0600, which 2.0.21 asks for. With `clientCertificates` (and `tls`) the broker also
    /// requires each client to present a certificate its CA signed: ``clientCertificateFile`` and
    /// ``clientKeyFile`` are one. With `bridgedTo` (another broker's port on 127.0.0.1), this
    /// broker bridges `switchboard/#` both ways with that one, as deploy/mosquitto/bridge.conf
    /// shows: a home past one broker. `maxQueuedMessages` sets mosquitto's limit of QoS 1 messages
    /// queued per client (1000 unless given; deploy/mosquitto/switchboard.conf raises it).
    public init(
        users: [String: String] = [:], tls: Bool = false, clientCertificates: Bool = false, persistence: Bool = false, aclFile: String? = nil,
        bridgedTo: Int? = nil, maxQueuedMessages: Int? = nil
    ) async throws {
        port = try TestPort.free()
        let directory = NSTemporaryDirectory() + "switchboard-broker-" + UUID().uuidString.prefix(8)
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var configuration = "listener \(port) 127.0.0.1\nset_tcp_nodelay true\n"
        if geteuid() == 0 { configuration += "user root\n" }
        if persistence {
            configuration += "persistence true\npersistence_location \(directory)/\nautosave_interval 1\n"
        } else {
            configuration += "persistence false\n"
        }
        if tls {
            try await onThread { try Self.makeCertificates(in: directory) }
            configuration += "cafile \(directory)/ca.crt\ncertfile \(directory)/server.crt\nkeyfile \(directory)/server.key\n"
            if clientCertificates {
                try await onThread { try Self.makeClientCertificate(in: directory) }
                configuration += "require_certificate true\n"
            }
        }
        if users.isEmpty {
            configuration += "allow_anonymous true\n"
        } else {
            try await onThread { try Self.writePasswords(users, in: directory) }
            configuration += "allow_anonymous false\npassword_file \(directory)/passwd\n"
        }
        if let aclFile {
            let acl = try String(contentsOfFile: aclFile, encoding: .utf8)
            try acl.write(toFile: directory + "/acl", atomically: true, encoding: .utf8)
            chmod(directory + "/acl", 0o600)
            configuration += "acl_file \(directory)/acl\n"
        }
        if let maxQueuedMessages { configuration += "max_queued_messages \(maxQueuedMessages)\n" }
        if let bridgedTo {
            let bridge = try String(contentsOfFile: RepositoryFiles.path("deploy/mosquitto/bridge.conf"), encoding: .utf8)
            guard bridge.contains("address broker.home.arpa:8883\n") else { throw HarnessError("deploy/mosquitto/bridge.conf no longer says address broker.home.arpa:8883") }
            let login = ["remote_username", "remote_password", "bridge_cafile"]
            configuration += bridge.replacingOccurrences(of: "address broker.home.arpa:8883\n", with: "address 127.0.0.1:\(bridgedTo)\n")
                .split(separator: "\n").filter { line in !login.contains { line.hasPrefix($0) } }.joined(separator: "\n") + "\n"
        }
        try configuration.write(toFile: directory + "/mosquitto.conf", atomically: true, encoding: .utf8)
        try await startOnAFreePort(configuration)
    }

    /// Starts a broker with the configuration shipped in deploy/mosquitto (`configurationFile`,
    /// with its ACL `aclFile`), only moved: the plain listener to ``port`` on 127.0.0.1, the TLS
    /// listener from 8883 to ``tlsPort`` on 127.0.0.1, and the password file, ACL and
    /// certificates (a fresh CA, ``caFile``, and a server certificate for 127.0.0.1) from
    /// /etc/mosquitto to the broker's folder.
    public init(shippedConfiguration configurationFile: String, aclFile: String, users: [String: String]) async throws {
        port = try TestPort.free()
        let tlsPort = try TestPort.free()
        self.tlsPort = tlsPort
        let directory = NSTemporaryDirectory() + "switchboard-broker-" + UUID().uuidString.prefix(8)
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try await onThread {
            try Self.makeCertificates(in: directory)
            try Self.writePasswords(users, in: directory)
        }
        try String(contentsOfFile: aclFile, encoding: .utf8).write(toFile: directory + "/acl", atomically: true, encoding: .utf8)
        chmod(directory + "/acl", 0o600)
        var configuration = try String(contentsOfFile: configurationFile, encoding: .utf8)
        for (shipped, moved) in [("listener 1883 127.0.0.1\n", "listener \(port) 127.0.0.1\n"), ("listener 8883\n", "listener \(tlsPort) 127.0.0.1\n"),
                                 ("/etc/mosquitto/certs/", directory + "/"), ("/etc/mosquitto/passwd", directory + "/passwd"),
                                 ("/etc/mosquitto/switchboard.acl", directory + "/acl")] {
            guard configuration.contains(shipped) else { throw HarnessError("the shipped mosquitto configuration no longer says \(shipped)") }
            configuration = configuration.replacingOccurrences(of: shipped, with: moved)
        }
        configuration += "\npersistence false\n" + (geteuid() == 0 ? "user root\n" : "")
        try configuration.write(toFile: directory + "/mosquitto.conf", atomically: true, encoding: .utf8)
        try await start()
        _ = await onThread { Self.waitUntilAccepting(port: tlsPort) }
    }

    /// The TLS listener's port, for a broker started from the shipped configuration.
    public private(set) var tlsPort: Int?

    deinit {
        _ = process?.stop(signal: SIGTERM, grace: .seconds(5))
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Starts the broker the first time; if another process took the chosen port between its
    /// choice and mosquitto's bind (a client's outgoing connection can), on another free port.
    private func startOnAFreePort(_ configuration: String) async throws {
        for attempt in 1...3 {
            do {
                return try await start()
            } catch where attempt < 3 && process?.isRunning == false {
                let next = try TestPort.free()
                try configuration.replacingOccurrences(of: "listener \(port) 127.0.0.1", with: "listener \(next) 127.0.0.1")
                    .write(toFile: directory + "/mosquitto.conf", atomically: true, encoding: .utf8)
                port = next
            }
        }
    }

    /// Starts (or restarts) the broker and waits until it accepts connections.
    public func start() async throws {
        process = try ChildProcess(Self.executable, ["-c", directory + "/mosquitto.conf"], logPath: directory + "/mosquitto.log")
        let port = self.port
        if await onThread({ Self.waitUntilAccepting(port: port) }) { return }
        throw HarnessError("mosquitto did not listen on 127.0.0.1:\(port)\(process?.isRunning == false ? " (it exited)" : ""); its log:\n\(log)")
    }

    /// What the broker has logged so far (mosquitto's default types: errors, warnings, notices —
    /// a client's messages dropped past its queue among them — and connections).
    public var log: String { (try? String(contentsOfFile: directory + "/mosquitto.log", encoding: .utf8)) ?? "" }

    /// The lines of the broker's log that `matching` accepts.
    public func logLines(_ matching: (Substring) -> Bool) -> [Substring] { log.split(separator: "\n").filter(matching) }

    /// Kills the broker at once (SIGKILL), as a crash would.
    public func kill() {
        process?.stop(signal: SIGKILL)
        process = nil
    }

    /// Freezes the broker (`SIGSTOP`): it keeps its connections but reads and answers nothing
    /// until ``resume()``.
    public func pause() {
        if let pid = process?.pid { Glibc.kill(pid, SIGSTOP) }
    }

    /// Lets a paused broker go on (`SIGCONT`): it reads what came meanwhile.
    public func resume() {
        if let pid = process?.pid { Glibc.kill(pid, SIGCONT) }
    }

    /// Stops the broker: SIGTERM, SIGKILL if it has not ended after 5 s.
    public func stop() async {
        let process = self.process
        self.process = nil
        _ = await onThread { process?.stop(signal: SIGTERM, grace: .seconds(5)) }
    }

    /// Runs `mosquitto_pub` with these arguments against the broker.
    public func publish(_ arguments: [String]) async -> (status: Int32, stdout: String, stderr: String) {
        await DaemonHarness.run("/usr/bin/mosquitto_pub", ["-h", "127.0.0.1", "-p", String(port)] + arguments)
    }

    /// The CA certificate of a TLS broker.
    public var caFile: String { directory + "/ca.crt" }
    /// A client certificate the broker's CA signed, and its key (`clientCertificates`).
    public var clientCertificateFile: String { directory + "/client.crt" }
    public var clientKeyFile: String { directory + "/client.key" }

    /// A client certificate for "garage-pi" signed by the CA ``makeCertificates(in:)`` made.
    static func makeClientCertificate(in directory: String) throws {
        let steps: [[String]] = [
            ["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=garage-pi", "-keyout", "\(directory)/client.key", "-out", "\(directory)/client.csr"],
            ["x509", "-req", "-in", "\(directory)/client.csr", "-CA", "\(directory)/ca.crt", "-CAkey", "\(directory)/ca.key", "-CAcreateserial",
             "-days", "1", "-out", "\(directory)/client.crt"],
        ]
        for step in steps {
            let result = ChildProcess.runBlocking("/usr/bin/openssl", step)
            guard result.status == 0 else { throw HarnessError("openssl \(step[0]) failed: \(result.stderr)") }
        }
        chmod("\(directory)/client.key", 0o600)
    }

    static func writePasswords(_ users: [String: String], in directory: String) throws {
        for (user, password) in users.sorted(by: { $0.key < $1.key }) {
            let created = ChildProcess.runBlocking("/usr/bin/mosquitto_passwd", ["-b"] + (FileManager.default.fileExists(atPath: directory + "/passwd") ? [] : ["-c"]) + [directory + "/passwd", user, password])
            guard created.status == 0 else { throw HarnessError("mosquitto_passwd failed: \(created.stderr)") }
        }
        // mosquitto_passwd 2.0.11 makes the file world-readable, 2.0.21 makes it 0600.
        chmod(directory + "/passwd", 0o600)
    }

    static func makeCertificates(in directory: String) throws {
        let steps: [[String]] = [
            ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=Switchboard Test CA", "-keyout", "\(directory)/ca.key", "-out", "\(directory)/ca.crt"],
            ["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", "\(directory)/server.key", "-out", "\(directory)/server.csr"],
            ["x509", "-req", "-in", "\(directory)/server.csr", "-CA", "\(directory)/ca.crt", "-CAkey", "\(directory)/ca.key", "-CAcreateserial",
             "-days", "1", "-extfile", "\(directory)/san.cnf", "-out", "\(directory)/server.crt"],
        ]
        try "subjectAltName = IP:127.0.0.1\n".write(toFile: "\(directory)/san.cnf", atomically: true, encoding: .utf8)
        for step in steps {
            let result = ChildProcess.runBlocking("/usr/bin/openssl", step)
            guard result.status == 0 else { throw HarnessError("openssl \(step[0]) failed: \(result.stderr)") }
        }
        chmod("\(directory)/server.key", 0o600)
    }

    static var executable: String {
        ["/usr/sbin/mosquitto", "/usr/bin/mosquitto", "/usr/local/sbin/mosquitto"].first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/usr/sbin/mosquitto"
    }

    /// Whether 127.0.0.1:`port` accepted a connection within 10 s; blocks the calling thread.
    static func waitUntilAccepting(port: Int) -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if accepts(port: port) { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }

    static func accepts(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
