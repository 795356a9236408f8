import Foundation
import SwitchboardHomeKit
import SwitchboardTesting
import Testing

/// aiohomekit (PyPI; what Home Assistant's HomeKit Controller integration runs on), a controller
/// nobody here wrote, pairs with the accessory's state machines over HTTP on loopback and reads
/// /accessories over the encrypted session.
///
/// Needs a Python with aiohomekit: `deploy/homekit/aiohomekit-venv.sh` makes one and prints its
/// python (or set SWITCHBOARD_AIOHOMEKIT_PYTHON).
@Suite(.enabled(if: Aiohomekit.python != nil, "no Python with aiohomekit: run deploy/homekit/aiohomekit-venv.sh"),
       .timeLimit(.minutes(2)))
struct AiohomekitPairingTests {

    let accessory: AccessoryIdentity

    init() throws {
        accessory = AccessoryIdentity(pairingIdentifier: "0E:4C:7A:11:9B:D2", longTermKey: try Ed25519PrivateKey())
    }

    /// Runs aiohomekit's pairing script against the listener, on a thread of its own (the pool
    /// the suites share is two threads wide); its JSON answer.
    func runController(port: Int, setupCode: String) async throws -> [String: Any] {
        let python = try #require(Aiohomekit.python)
        let result = await onThread { ChildProcess.runBlocking(python, [Aiohomekit.script, "127.0.0.1", String(port), setupCode]) }
        #expect(result.status == 0, "aiohomekit-pair.py: \(result.stderr)")
        let line = try #require(result.stdout.split(separator: "\n").last, "aiohomekit-pair.py printed nothing: \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func aiohomekitPairsAndVerifiesWithTheSetupCode() async throws {
        let listener = try HAPPairingListener(accessory: accessory, setupCode: try SetupCode("031-45-154"))
        defer { listener.stop() }
        let answer = try await runController(port: listener.port, setupCode: "031-45-154")
        let pairing = try #require(answer["pairing"] as? [String: String], "aiohomekit: \(answer)")
        let accessoryLTPK = try accessory.longTermKey.publicKey().rawRepresentation
        #expect(pairing["AccessoryPairingID"] == "0E:4C:7A:11:9B:D2")
        #expect(pairing["AccessoryLTPK"] == hex(accessoryLTPK))
        // The accessory keeps aiohomekit's pairing as an admin.
        let stored = try #require(listener.store.pairings.first)
        #expect(listener.store.pairings.count == 1)
        #expect(String(decoding: stored.identifier, as: UTF8.self) == pairing["iOSPairingId"])
        #expect(hex(stored.publicKey.rawRepresentation) == pairing["iOSDeviceLTPK"])
        #expect(stored.isAdmin)
        // Pair-verify: both ends derived the same session keys.
        let keys = try #require(listener.verifiedSessions.first)
        #expect(listener.verifiedSessions.count == 2)
        #expect(hex(keys.controllerToAccessory) == answer["controllerToAccessory"] as? String)
        #expect(hex(keys.accessoryToController) == answer["accessoryToController"] as? String)
        // aiohomekit's own secure connection: its pair-verify, then GET /accessories in frames.
        let accessories = try #require((answer["accessories"] as? [String: Any])?["accessories"] as? [[String: Any]], "aiohomekit: \(answer)")
        #expect(accessories.first?["aid"] as? Int == 1)
        let services = accessories.first?["services"] as? [[String: Any]]
        let name = (services?.first?["characteristics"] as? [[String: Any]])?.first?["value"] as? String
        #expect(name == "Switchboard")
    }

    @Test func aiohomekitWithAWrongSetupCodeIsRefused() async throws {
        let listener = try HAPPairingListener(accessory: accessory, setupCode: try SetupCode("031-45-154"))
        defer { listener.stop() }
        let answer = try await runController(port: listener.port, setupCode: "031-45-155")
        #expect(answer["error"] as? String == "AuthenticationError", "aiohomekit: \(answer)")
        #expect(listener.store.pairings.isEmpty)
        #expect(listener.store.failedPairSetupAttempts == 1)
        #expect(listener.verifiedSessions.isEmpty)
    }

    @Test func aiohomekitIsRefusedWhenTheAccessoryIsAlreadyPaired() async throws {
        let listener = try HAPPairingListener(accessory: accessory, setupCode: try SetupCode("031-45-154"))
        defer { listener.stop() }
        _ = try await runController(port: listener.port, setupCode: "031-45-154")
        let second = try await runController(port: listener.port, setupCode: "031-45-154")
        #expect(second["error"] as? String == "UnavailableError", "aiohomekit: \(second)")
        #expect(listener.store.pairings.count == 1)
    }

    func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
}

/// Where aiohomekit is: its venv's python and the controller script.
enum Aiohomekit {
    static var python: String? {
        let candidates = [ProcessInfo.processInfo.environment["SWITCHBOARD_AIOHOMEKIT_PYTHON"],
                          NSHomeDirectory() + "/.cache/switchboard/hap/aiohomekit/bin/python"]
        return candidates.compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Fixtures/HomeKit").standardized.path
    static let script = folder + "/aiohomekit-pair.py"
}
