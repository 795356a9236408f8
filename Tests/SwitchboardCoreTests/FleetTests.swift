import Foundation
import SwitchboardTesting
import Testing

/// The fleet through the broker: real daemons on simulated chips, each a node on one real
/// mosquitto, and the real CLI with `--broker` seeing and driving all of them.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct FleetTests {
    /// The sample devices.json as node `name` on the broker at `port` (without its extension and
    /// Home Assistant discovery, which these tests do not need).
    static func node(_ name: String, port: Int, passwordFile: String? = nil) throws -> String {
        var sample = try #require(try JSONSerialization.jsonObject(with: Data(DaemonEndToEndTests.sample.utf8)) as? [String: Any])
        sample["node"] = name
        var mqtt: [String: Any] = ["host": "127.0.0.1", "port": port, "discovery": false]
        if let passwordFile {
            mqtt["username"] = name
            mqtt["passwordFile"] = passwordFile
        }
        sample["mqtt"] = mqtt
        sample["extensions"] = nil
        return String(decoding: try JSONSerialization.data(withJSONObject: sample), as: UTF8.self)
    }

    func nodes(_ names: [String], on broker: MosquittoBroker) async throws -> [DaemonHarness] {
        var daemons: [DaemonHarness] = []
        for name in names {
            let daemon = try DaemonHarness(configuration: try Self.node(name, port: broker.port))
            try await daemon.start()
            #expect(await daemon.waitUntil { daemon.log.contains("mqtt: connected") }, "\(name): \(daemon.log)")
            daemons.append(daemon)
        }
        return daemons
    }

    func fleet(_ broker: MosquittoBroker, _ arguments: [String]) async -> (status: Int32, stdout: String, stderr: String) {
        await DaemonHarness.run(BuiltProducts.path(of: "switchboard"), ["--broker", "mqtt://127.0.0.1:\(broker.port)"] + arguments)
    }

    /// `center --json` as node → (online, control ids).
    func picture(_ broker: MosquittoBroker) async throws -> [String: (online: Bool?, controls: [String])] {
        let result = await fleet(broker, ["center", "--json"])
        try #require(result.status == 0, "\(result.stderr)")
        let list = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        var picture: [String: (Bool?, [String])] = [:]
        for node in list {
            let controls = (node["controls"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            picture[node["node"] as? String ?? "?"] = (node["online"] as? Bool, controls)
        }
        return picture
    }

    @Test func theFleetCenterShowsEveryNodeFromTheBrokerAndOneThatWentOffline() async throws {
        let broker = try await MosquittoBroker()
        let daemons = try await nodes(["garage-pi", "porch-pi", "shed-pi"], on: broker)
        let placed = ["action", "fan", "garage", "kitchen", "porch", "porch-lock"]
        let picture = try await picture(broker)
        #expect(picture.keys.sorted() == ["garage-pi", "porch-pi", "shed-pi"])
        for (node, seen) in picture {
            #expect(seen.online == true, "\(node)")
            #expect(seen.controls == placed, "\(node)")
        }
        let drawn = await fleet(broker, ["center"])
        #expect(drawn.status == 0)
        #expect(drawn.stdout.hasPrefix("garage-pi — online\nControl Center\n"), "\(drawn.stdout)")
        #expect(drawn.stdout.contains("\n\nporch-pi — online\nControl Center\n") && drawn.stdout.contains("\n\nshed-pi — online\nControl Center\n"), "\(drawn.stdout)")

        #expect(await daemons[2].signal(SIGTERM) == 0)
        let gone = await fleet(broker, ["center"])
        #expect(gone.stdout.contains("\n\nshed-pi — offline (its controls as it last published them)\nControl Center\n"), "\(gone.stdout)")
        #expect(try await self.picture(broker)["shed-pi"]?.online == false)
        try await daemons[2].start()
        #expect(await daemons[2].waitUntil { try! await self.picture(broker)["shed-pi"]?.online == true }, "back online")
    }

    @Test func theFleetCenterFollowsEveryNodeLive() async throws {
        let broker = try await MosquittoBroker()
        let daemons = try await nodes(["garage-pi", "shed-pi"], on: broker)
        let output = daemons[0].directory + "/follow.jsonl"
        let follower = try ChildProcess(
            BuiltProducts.path(of: "switchboard"), ["--broker", "mqtt://127.0.0.1:\(broker.port)", "center", "--follow", "--json"],
            logPath: output, errorPath: daemons[0].directory + "/follow.err"
        )
        defer { follower.stop() }
        /// The pictures printed so far, one JSON line each: node → (online, porch's value).
        func pictures() -> [[String: (online: Bool?, porch: Bool?)]] {
            let lines = ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n")
            return lines.compactMap { line in
                guard let nodes = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [[String: Any]] else { return nil }
                var picture: [String: (Bool?, Bool?)] = [:]
                for node in nodes {
                    let porch = (node["controls"] as? [[String: Any]])?.first { $0["id"] as? String == "porch" }
                    picture[node["node"] as? String ?? "?"] = (node["online"] as? Bool, porch?["value"] as? Bool)
                }
                return picture
            }
        }
        #expect(await daemons[0].waitUntil { pictures().count == 1 }, "the whole picture first, once")
        let first = try #require(pictures().first)
        #expect(first.keys.sorted() == ["garage-pi", "shed-pi"])
        #expect(first["shed-pi"]?.online == true && first["shed-pi"]?.porch == false)

        #expect(await daemons[1].cli(["on", "porch"]).status == 0)
        #expect(await daemons[0].waitUntil { pictures().last?["shed-pi"]?.porch == true }, "a node's change drawn as it happens")
        #expect(pictures().last?["garage-pi"]?.porch == false)
        #expect(await daemons[1].signal(SIGTERM) == 0)
        #expect(await daemons[0].waitUntil { pictures().last?["shed-pi"]?.online == false }, "a node going offline")
        try await daemons[1].start()
        #expect(await daemons[0].waitUntil { pictures().last?["shed-pi"]?.online == true }, "and back")
        #expect(follower.isRunning, "it follows until stopped")
    }

    @Test func aCommandFromTheFleetIsPerformedByItsNodeAndAnsweredWithTheNodesResult() async throws {
        let broker = try await MosquittoBroker()
        let daemons = try await nodes(["garage-pi", "shed-pi"], on: broker)
        let on = await fleet(broker, ["on", "shed-pi/porch"])
        #expect(on.status == 0, "\(on.stderr)")
        #expect(on.stdout == "shed-pi/porch Porch Light On\n")
        #expect(await daemons[1].cli(["status"]).stdout.contains("output porch: on"))
        #expect(await daemons[0].cli(["status"]).stdout.contains("output porch: off"), "only the node named")
        #expect(await fleet(broker, ["toggle", "shed-pi/porch"]).stdout == "shed-pi/porch Porch Light Off\n")

        // The node decides: locked, it refuses a control that requires authentication.
        #expect(await daemons[1].cli(["lock"]).status == 0)
        let refused = await fleet(broker, ["press", "shed-pi/garage"])
        #expect(refused.status == 1)
        #expect(refused.stderr == #"switchboard: shed-pi/garage: refused: control "garage" requires authentication: Switchboard is locked; unlock it (switchboard unlock) or use the local CLI"# + "\n")

        // An offline node is said to be offline at once, and nothing waits for it.
        #expect(await daemons[1].signal(SIGTERM) == 0)
        let offline = await fleet(broker, ["on", "shed-pi/porch"])
        #expect(offline.status == 1)
        #expect(offline.stderr == "switchboard: shed-pi is offline; its controls cannot be performed until it is back\n")
    }

    /// With the shipped ACL, the household's admin sees every node but may not drive a control:
    /// the broker refuses the command, and the CLI says so at once (not after waiting for a result).
    @Test func aCommandTheBrokersACLRefusesIsSaidAtOnce() async throws {
        let acl = RepositoryFiles.path("deploy/mosquitto/switchboard.acl")
        let broker = try await MosquittoBroker(users: ["garage-pi": "node-secret", "house-admin": "admin-secret"], aclFile: acl)
        let daemon = try DaemonHarness(configuration: "")
        try "node-secret\n".write(toFile: daemon.directory + "/mqtt-password", atomically: true, encoding: .utf8)
        chmod(daemon.directory + "/mqtt-password", 0o600)
        try "admin-secret\n".write(toFile: daemon.directory + "/admin-password", atomically: true, encoding: .utf8)
        try daemon.writeConfiguration(try Self.node("garage-pi", port: broker.port, passwordFile: daemon.directory + "/mqtt-password"))
        try await daemon.start()
        #expect(await daemon.waitUntil { daemon.log.contains("mqtt: connected") }, "\(daemon.log)")
        let login = ["--username", "house-admin", "--password-file", daemon.directory + "/admin-password"]
        let center = await fleet(broker, login + ["center"])
        #expect(center.status == 0, "\(center.stderr)")
        #expect(center.stdout.hasPrefix("garage-pi — online\nControl Center\n"), "\(center.stdout)")
        let refused = await fleet(broker, login + ["on", "garage-pi/porch"])
        #expect(refused.status == 1)
        #expect(refused.stderr == #"switchboard: the broker refused to let the user "house-admin" publish switchboard/garage-pi/controls/porch/set (Not authorized); its ACL must let it write switchboard/+/controls/+/set"# + "\n")
        #expect(await daemon.cli(["status"]).stdout.contains("output porch: off"))
    }

    @Test func aBrokerThatCannotBeReachedOrAMalformedTargetIsSaidSo() async throws {
        let unreachable = await DaemonHarness.run(BuiltProducts.path(of: "switchboard"), ["--broker", "mqtt://127.0.0.1:1", "center"])
        #expect(unreachable.status == 3)
        #expect(unreachable.stderr.hasPrefix("switchboard: cannot reach the broker at 127.0.0.1:1: "), "\(unreachable.stderr)")
        let malformed = await DaemonHarness.run(BuiltProducts.path(of: "switchboard"), ["--broker", "mqtt://127.0.0.1:1", "on", "porch"])
        #expect(malformed.status == 2)
        #expect(malformed.stderr == "switchboard: porch is not node/id, such as shed-pi/porch\n")
        let url = await DaemonHarness.run(BuiltProducts.path(of: "switchboard"), ["--broker", "http://x", "center"])
        #expect(url.status == 2)
        let tls = await DaemonHarness.run(BuiltProducts.path(of: "switchboard"), ["--broker", "mqtts://broker.home.arpa", "center"])
        #expect(tls.stderr == "switchboard: mqtts://broker.home.arpa speaks TLS: give the CA that signed the broker's certificate with --ca-file\n")
    }
}
