import Foundation
import SwitchboardTesting
import Testing

/// A node's wall push-buttons in the fleet's picture: what each press performs, from the node's
/// retained `<base>/buttons`, and, while the picture is followed, each press as it happens.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct FleetButtonTests {
    static func configuration(port: Int) -> String {
        ButtonServiceTests.configuration.replacingOccurrences(
            of: #""node": "hall","#, with: #""node": "hall", "mqtt": { "host": "127.0.0.1", "port": \#(port), "discovery": false },"#)
    }

    func fleet(_ broker: MosquittoBroker, _ arguments: [String]) async -> (status: Int32, stdout: String, stderr: String) {
        await DaemonHarness.run(BuiltProducts.path(of: "switchboard"), ["--broker", "mqtt://127.0.0.1:\(broker.port)"] + arguments)
    }

    /// The hall node's buttons in a `center --json` picture.
    static func buttons(_ json: String) -> [[String: Any]]? {
        guard let nodes = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]] else { return nil }
        return nodes.first { $0["node"] as? String == "hall" }?["buttons"] as? [[String: Any]]
    }

    @Test func theFleetShowsEachNodesButtonsAndFollowsTheirPresses() async throws {
        let broker = try await MosquittoBroker()
        let daemon = try DaemonHarness(configuration: Self.configuration(port: broker.port))
        try await daemon.start()
        #expect(await daemon.waitUntil { daemon.log.contains("mqtt: connected") }, "\(daemon.log)")

        let picture = await fleet(broker, ["center", "--json"])
        #expect(picture.status == 0, "\(picture.stderr)")
        let buttons = try #require(Self.buttons(picture.stdout), "\(picture.stdout)")
        #expect(buttons.count == 1)
        #expect(buttons.first?["id"] as? String == "hall" && buttons.first?["short"] as? String == "porch"
                && buttons.first?["double"] as? String == "fan" && buttons.first?["long"] == nil, "\(buttons)")
        let drawn = await fleet(broker, ["center"])
        #expect(drawn.stdout.hasSuffix("\nbutton hall: short → porch, double → fan\n"), "\(drawn.stdout)")

        // Followed: each press as the node tells it.
        let output = daemon.directory + "/follow.jsonl"
        let follower = try ChildProcess(
            BuiltProducts.path(of: "switchboard"), ["--broker", "mqtt://127.0.0.1:\(broker.port)", "center", "--follow", "--json"],
            logPath: output, errorPath: daemon.directory + "/follow.err"
        )
        defer { follower.stop() }
        func lastPress() -> [String: String]? {
            let lines = ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n")
            return lines.last.flatMap { Self.buttons(String($0))?.first?["lastPress"] as? [String: String] }
        }
        #expect(await daemon.waitUntil { ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").contains("\n") }, "the first picture")
        #expect(lastPress() == nil)
        #expect(await daemon.cli(["button", "hall", "--double"]).status == 0)
        #expect(await daemon.waitUntil { lastPress() == ["click": "double", "performed": "fan On"] }, "\(String(describing: lastPress()))")
        #expect(await daemon.cli(["button", "hall", "--hold", "1s"]).status == 0)
        #expect(await daemon.waitUntil { lastPress() == ["click": "long"] }, "a press bound to nothing: \(String(describing: lastPress()))")

        // A reload without the button takes it out of the picture.
        let full = Self.configuration(port: broker.port)
        let list = try #require(full.range(of: ",\n  \"buttons\": ["))
        try daemon.writeConfiguration(full[..<list.lowerBound] + "\n}\n")
        _ = await daemon.signal(SIGHUP)
        #expect(await daemon.waitUntil { daemon.log.contains("configuration 2 serving") }, "\(daemon.log)")
        #expect(await daemon.waitUntil { Self.buttons(await fleet(broker, ["center", "--json"]).stdout)?.isEmpty == true })
    }
}
