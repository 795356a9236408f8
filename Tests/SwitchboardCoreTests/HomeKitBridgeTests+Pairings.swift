import Foundation
import SwitchboardCore
import SwitchboardSupport
import SwitchboardTesting
import Testing

/// The pairings of a real switchboardd's bridge, managed by aiohomekit: kept across a SIGHUP
/// reload and a restart, a second controller added, refused what only an admin may do and
/// removed, and the setup code's failed attempts counted across a restart up to HAP's MaxTries.
extension HomeKitBridgeTests {
    @Test(.enabled(if: python != nil, "no Python with aiohomekit: run deploy/homekit/aiohomekit-venv.sh"))
    func pairVerifyHoldsAcrossASighupAndAddedControllersAreListedRefusedAndRemoved() async throws {
        let port = try TestPort.free()
        let daemon = try DaemonHarness(configuration: Self.configuration(port: port))
        try await daemon.start()
        #expect(await daemon.waitUntil { daemon.log.contains("homekit: bridge") }, "\(daemon.log)")
        let admin = daemon.directory + "/admin.json", user = daemon.directory + "/user.json", other = daemon.directory + "/other.json"
        let paired = try await Self.step(["pair", "127.0.0.1", String(port), "031-45-154", admin])
        #expect(paired["paired"] as? Bool == true)
        let adminID = try #require(paired["controller"] as? String)
        let before = Self.listing(try await Self.step(["accessories", admin]))

        // A SIGHUP reload with devices.json unchanged: same keys, same pairing, same ids.
        await daemon.signal(SIGHUP)
        #expect(await daemon.waitUntil { daemon.log.contains("reloaded: node hk-test") }, "\(daemon.log)")
        #expect(try await Self.step(["verify", admin])["verified"] as? Bool == true)
        #expect(Self.listing(try await Self.step(["accessories", admin])) == before)

        // The admin adds a regular controller: it verifies and reads, but may not manage pairings.
        let added = try await Self.step(["add", admin, user, "0"])
        #expect(pairingsJSON(added["answer"]) == #"[[6,"02"]]"#)
        let userID = try #require(added["controller"] as? String)
        #expect(try await Self.step(["verify", user])["verified"] as? Bool == true)
        #expect(Self.listing(try await Self.step(["accessories", user])) == before)
        let authentication = #"[[6,"02"],[7,"02"]]"#
        #expect(pairingsJSON(try await Self.step(["list", user])["answer"]) == authentication)
        #expect(pairingsJSON(try await Self.step(["add", user, other, "1"])["answer"]) == authentication)
        #expect(pairingsJSON(try await Self.step(["remove", user, admin])["answer"]) == authentication)
        #expect(pairingsJSON(try await Self.step(["list", admin])["pairings"])
                == pairingsJSON([["identifier": adminID, "admin": true], ["identifier": userID, "admin": false]]))

        // A second admin, kept across a restart, removes the regular controller: refused from then on.
        let second = try await Self.step(["add", admin, other, "1"])
        #expect(pairingsJSON(second["answer"]) == #"[[6,"02"]]"#)
        let otherID = try #require(second["controller"] as? String)
        #expect(await daemon.signal(SIGTERM) == 0)
        try await daemon.start()
        #expect(await daemon.waitUntil { daemon.log.contains("paired with 3 controllers") }, "\(daemon.log)")
        #expect(pairingsJSON(try await Self.step(["remove", other, user])["answer"]) == #"[[6,"02"]]"#)
        let refused = try await Self.step(["verify", user])
        #expect(refused["verified"] as? Bool == false, "\(refused)")
        #expect(try await Self.step(["verify", other])["verified"] as? Bool == true)
        #expect(pairingsJSON(try await Self.step(["list", other])["pairings"])
                == pairingsJSON([["identifier": adminID, "admin": true], ["identifier": otherID, "admin": true]]))

        // The first admin removes the second: only it is left.
        #expect(pairingsJSON(try await Self.step(["remove", admin, other])["answer"]) == #"[[6,"02"]]"#)
        #expect(try await Self.step(["verify", other])["verified"] as? Bool == false)
        #expect(try await Self.step(["verify", admin])["verified"] as? Bool == true)
        #expect(await daemon.cli(["status"]).stdout.contains("homekit: serving on port \(port), 1 controller paired"))
    }

    @Test(.enabled(if: python != nil, "no Python with aiohomekit: run deploy/homekit/aiohomekit-venv.sh"))
    func wrongSetupCodesWaitLongerEachTimeCountAcrossARestartUntilPairSetupIsRefusedAndResetClearsThem() async throws {
        let port = try TestPort.free()
        let daemon = try DaemonHarness(configuration: Self.configuration(port: port))
        try await daemon.start()
        #expect(await daemon.waitUntil { daemon.log.contains("homekit: bridge") }, "\(daemon.log)")
        let pairing = daemon.directory + "/pairing.json"

        // Four wrong codes in a row are refused; the fifth comes too soon after the fourth and is
        // told to wait (not counted as an attempt); once the wait is over, guessing goes on.
        let first = try await Self.step(["wrong", "127.0.0.1", String(port), "031-45-155", "5"])
        #expect(first["refusals"] as? [String] == Array(repeating: "AuthenticationError", count: 4) + ["BackoffError"], "\(first)")
        try await Task.sleep(for: .seconds(2))
        let after = try await Self.step(["wrong", "127.0.0.1", String(port), "031-45-155", "2"])
        #expect(after["refusals"] as? [String] == ["AuthenticationError", "BackoffError"], "\(after)")

        // The count outlives a restart. Set where 99 wrong codes would leave it (days of waits):
        // the 100th is the last one HAP allows.
        #expect(await daemon.signal(SIGTERM) == 0)
        let stateFile = daemon.stateDirectory + "/homekit.json"
        var saved = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: stateFile))) as? [String: Any])
        #expect(saved["failedPairSetupAttempts"] as? Int == 5, "\(saved)")
        saved["failedPairSetupAttempts"] = 99
        try JSONSerialization.data(withJSONObject: saved).write(to: URL(fileURLWithPath: stateFile))
        try await daemon.start()
        // The log goes on from the first run: the restarted daemon's bridge is the second line.
        #expect(await daemon.waitUntil { daemon.log.components(separatedBy: "homekit: bridge \"").count - 1 == 2 }, "\(daemon.log)")
        let more = try await Self.step(["wrong", "127.0.0.1", String(port), "031-45-155", "2"])
        #expect(more["refusals"] as? [String] == ["AuthenticationError", "MaxTriesError"], "\(more)")

        // Even the right code is refused now, until the bridge is reset.
        let refused = try await Self.step(["pair", "127.0.0.1", String(port), "031-45-154", pairing])
        #expect(refused["error"] as? String == "MaxTriesError", "\(refused)")
        #expect(await daemon.cli(["homekit", "reset"]).status == 0)
        #expect(try await Self.step(["pair", "127.0.0.1", String(port), "031-45-154", pairing])["paired"] as? Bool == true)
    }
}

/// A JSON text with sorted keys, to compare what the script printed.
private func pairingsJSON(_ value: Any?) -> String {
    guard let value, let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]) else { return "nil" }
    return String(decoding: data, as: UTF8.self)
}
