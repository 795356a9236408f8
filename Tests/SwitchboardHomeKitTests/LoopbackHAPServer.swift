import Foundation
import SwitchboardHomeKit
import SwitchboardSupport
import SwitchboardTesting

/// A suite that serves the test bridge from a HAP server of its own on loopback: the accessory's
/// fixed pairing identifier, a new long-term key, the setup code 031-45-154.
protocol LoopbackHAPServer {
    var bridge: TestBridge { get }
    var store: InMemoryPairingStore { get }
    var server: HAPServer { get }
}

extension LoopbackHAPServer {
    /// The server for a suite's bridge and pairings.
    static func makeServer(bridge: TestBridge, store: InMemoryPairingStore, handshakeTimeout: Duration = HAPServer.defaultHandshakeTimeout,
                           keepAlive: TCPKeepAlive = HAPServer.defaultKeepAlive) throws -> HAPServer {
        let accessory = AccessoryIdentity(pairingIdentifier: "0E:4C:7A:11:9B:D2", longTermKey: try Ed25519PrivateKey())
        return try HAPServer(loopbackOnly: true, accessory: accessory, setupCode: try SetupCode("031-45-154"), store: store, database: bridge,
                             handshakeTimeout: handshakeTimeout, keepAlive: keepAlive)
    }

    /// Runs the server while `body` runs. It accepts from here on, whenever its run task gets a
    /// thread: the suite's clients time out after 10 s, and a pool busy with other suites must
    /// not count against them.
    func serving<T>(_ body: () async throws -> T) async throws -> T {
        let server = self.server
        server.start()
        let task = Task { try await server.run() }
        defer { task.cancel() }
        return try await body()
    }

    /// Pairs aiohomekit-daemon.py with the server on `port` (setup code 031-45-154), its pairing
    /// kept in `folder`/pairing.json for its later steps.
    static func pairDaemonScript(_ python: String, port: some BinaryInteger & Sendable, folder: String) async -> (status: Int32, stdout: String, stderr: String) {
        let script = Aiohomekit.folder + "/aiohomekit-daemon.py"
        return await onThread { ChildProcess.runBlocking(python, [script, "pair", "127.0.0.1", String(port), "031-45-154", folder + "/pairing.json"]) }
    }
}
