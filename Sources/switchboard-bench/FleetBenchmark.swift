import ControlKitCore
import Foundation
import SwitchboardSupport
import SwitchboardTesting

/// The fleet: `nodes` release switchboardd processes (one per node, as on boards: each its own
/// process, connection and session) with `controls` relay toggles each on simulated chips, on one
/// loopback mosquitto, then the same through a second mosquitto bridged to it.
@MainActor
struct FleetBenchmark {
    var nodes = 50
    var controls = 20
    var commands = 1_000
    /// The nodes' broker's `max_queued_messages`: deploy/mosquitto/switchboard.conf's (nil:
    /// mosquitto's default, 1000); the bridged broker takes bridge.conf's.
    var maxQueuedMessages: Int? = Self.shippedMaxQueuedMessages

    static var shippedMaxQueuedMessages: Int? {
        let file = RepositoryFiles.path("deploy/mosquitto/switchboard.conf")
        let lines = ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").split(separator: "\n")
        return lines.first { $0.hasPrefix("max_queued_messages ") }.flatMap { Int($0.split(separator: " ")[1]) }
    }

    struct Outcome {
        var nodeStartup: [Duration] = []
        /// Connect → every node's status, lock and presentations, in process.
        var pictureColdStart: [Duration] = []
        /// `switchboard --broker … center --json`, the whole process (its 300 ms quiet wait included).
        var centerProcess: [Duration] = []
        var pictureComplete = false
        /// `/set` with a transaction → `/result`, one in flight.
        var fleet: [Duration] = []
        /// The same commands on each node's own socket, one in flight.
        var socket: [Duration] = []
        /// The CLI processes: `--broker … on node/id` and `--socket … on id`.
        var fleetCLI: [Duration] = []
        var socketCLI: [Duration] = []
        /// Messages the broker carried per command, by topic class.
        var messagesPerCommand: [String: Double] = [:]
        var idleRSS: [Int] = []
        var loadedRSS: [Int] = []
        /// Of the RSS after the load, what is each node's own (heap, stacks), not shared library pages.
        var loadedAnonymous: [Int] = []
        var bridged: [Duration] = []
        /// From a client's connect to the second broker until it has seen every node online there
        /// (at most 30 s), and how many it saw.
        var bridgeSeesAll: Duration = .zero
        var bridgeSeen = 0
        /// Through the bridge while the nodes' broker restarts.
        var outageSent = 0
        var outageAnswered = 0
        var outageOn = 0
        var outageRecovery: Duration = .zero
    }

    func run() async throws -> Outcome {
        var outcome = Outcome()
        let home = try await MosquittoBroker(persistence: true, maxQueuedMessages: maxQueuedMessages)
        var fleet: [BenchNode] = []
        for index in 0..<nodes {
            let node = try BenchNode(controls: controls, port: home.port, node: Self.name(index))
            outcome.nodeStartup.append(node.startup)
            fleet.append(node)
        }
        let observer = try await MQTTLoad(port: home.port, filters: ["switchboard/+/status", "switchboard/+/controls/+"], clientID: "bench-fleet-observer")
        _ = await observer.drain(quiet: .seconds(2))
        observer.stop()
        try await Task.sleep(for: .seconds(2))
        outcome.idleRSS = fleet.map { $0.sample.residentBytes }

        for _ in 0..<5 {
            let (time, complete) = try await coldStart(port: home.port)
            outcome.pictureColdStart.append(time)
            outcome.pictureComplete = complete
        }
        for _ in 0..<5 {
            let started = ContinuousClock.now
            let result = await ChildProcess.run(BuiltProducts.path(of: "switchboard"), ["--broker", "mqtt://127.0.0.1:\(home.port)", "center", "--json"])
            outcome.centerProcess.append(.now - started)
            let listed = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]) ?? []
            if listed.count != nodes || listed.contains(where: { ($0["controls"] as? [Any])?.count != controls }) { outcome.pictureComplete = false }
        }

        // One command at a time to a node's control through the broker, then on its socket.
        let counter = try await MQTTLoad(port: home.port, filters: ["#"], clientID: "bench-fleet-counter")
        _ = await counter.drain(quiet: .milliseconds(500))
        outcome.fleet = try await commandsThroughBroker(port: home.port, clientID: "bench-fleet-load", count: commands, first: 0)
        let carried = await counter.drain(quiet: .milliseconds(500))
        counter.stop()
        var classes: [String: Int] = [:]
        for message in carried { classes[Self.topicClass(message.topic), default: 0] += 1 }
        outcome.messagesPerCommand = classes.mapValues { Double($0) / Double(commands) }
        outcome.socket = try socketCommands(fleet, count: commands, first: commands)
        for index in 0..<20 {
            let node = Self.name(index % nodes), control = "c\(index % controls)", verb = index % 2 == 0 ? "on" : "off"
            var started = ContinuousClock.now
            _ = await ChildProcess.run(BuiltProducts.path(of: "switchboard"), ["--broker", "mqtt://127.0.0.1:\(home.port)", verb, "\(node)/\(control)"])
            outcome.fleetCLI.append(.now - started)
            started = .now
            _ = await ChildProcess.run(BuiltProducts.path(of: "switchboard"), ["--socket", fleet[index % nodes].socketPath, verb == "on" ? "off" : "on", control])
            outcome.socketCLI.append(.now - started)
        }
        outcome.loadedRSS = fleet.map { $0.sample.residentBytes }
        outcome.loadedAnonymous = fleet.map { $0.sample.anonymousBytes }

        // Past one broker: the same commands from a client on a second broker, bridged.
        let shed = try await MosquittoBroker(bridgedTo: home.port)
        let bridgeObserver = try await MQTTLoad(port: shed.port, filters: ["switchboard/+/status"], clientID: "bench-bridge-observer")
        var online = Set<String>()
        let bridging = ContinuousClock.now
        while online.count < nodes, ContinuousClock.now - bridging < .seconds(30), let event = await bridgeObserver.next() {
            if case .message(let message, _) = event, message.text == "online" { online.insert(message.topic) }
        }
        bridgeObserver.stop()
        outcome.bridgeSeen = online.count
        outcome.bridgeSeesAll = .now - bridging
        outcome.bridged = try await commandsThroughBroker(port: shed.port, clientID: "bench-bridge-load", count: commands / 2, first: 0)
        try await outage(home: home, shed: shed, into: &outcome)
        return outcome
    }

    static func name(_ index: Int) -> String { "n" + String(format: "%02d", index) }

    /// Command `index` goes to node `index % nodes`, control `(index / nodes) % controls`, and
    /// switches it on at its first visit, off at the next, and so on: every command changes it.
    func turnsOn(_ index: Int) -> Bool { (index / (nodes * controls)) % 2 == 0 }

    /// `set`, `result`, `presentation`, `outcomes` or the topic's last level.
    static func topicClass(_ topic: String) -> String {
        let parts = topic.split(separator: "/")
        if parts.count == 4, parts[2] == "controls" { return "presentation" }
        return parts.last.map(String.init) ?? topic
    }

    /// A fresh client: connect, subscribe as `center` does, until every node's status, lock and
    /// presentations have come.
    private func coldStart(port: Int) async throws -> (Duration, Bool) {
        let started = ContinuousClock.now
        let load = try await MQTTLoad(port: port, filters: ["switchboard/+/status", "switchboard/+/lock", "switchboard/+/controls/+"], clientID: "bench-fleet-\(UUID().uuidString.prefix(6))", qos: 0)
        defer { load.stop() }
        let expected = nodes * (controls + 2)
        var seen = Set<String>()
        var last = started
        while let event = await load.next() {
            switch event {
            case .message(let message, let at):
                seen.insert(message.topic)
                last = at
                if seen.count == expected { return (at - started, true) }
            case .tick:
                if ContinuousClock.now - started > .seconds(30) { return (last - started, false) }
            }
        }
        return (last - started, false)
    }

    /// `count` commands, one in flight, each a `/set` with a transaction to the next node's next
    /// control, waited for on its `/result`.
    private func commandsThroughBroker(port: Int, clientID: String, count: Int, first: Int) async throws -> [Duration] {
        let load = try await MQTTLoad(port: port, filters: ["switchboard/+/controls/+/result"], clientID: clientID)
        defer { load.stop() }
        var latencies: [Duration] = []
        for index in first..<(first + count) {
            let node = Self.name(index % nodes), control = "c\((index / nodes) % controls)", transaction = "t\(index)"
            let sent = ContinuousClock.now
            load.publish("switchboard/\(node)/controls/\(control)/set", #"{"value":\#(turnsOn(index)),"transaction":"\#(transaction)"}"#)
            waiting: while let event = await load.next() {
                switch event {
                case .message(let message, let at):
                    if message.text?.contains(#""transaction":"\#(transaction)""#) == true {
                        guard message.text?.contains(#""outcome":"performed""#) == true else { throw HarnessError("\(node)/\(control): \(message.text ?? "")") }
                        latencies.append(at - sent)
                        break waiting
                    }
                case .tick:
                    if ContinuousClock.now - sent > .seconds(10) { throw HarnessError("no result for \(node)/\(control) within 10 s") }
                }
            }
        }
        return latencies
    }

    /// The same pattern of commands on each node's own socket (a connection per node, held open).
    private func socketCommands(_ fleet: [BenchNode], count: Int, first: Int) throws -> [Duration] {
        let sockets = try fleet.map { node in
            guard let socket = RawSocketConnection(path: node.socketPath) else { throw HarnessError("cannot connect to \(node.socketPath)") }
            return socket
        }
        var latencies: [Duration] = []
        for index in first..<(first + count) {
            let control = "c\((index / nodes) % controls)"
            let line = ControlLineProtocol.encodeLine(ControlCommand(.perform, id: control, request: turnsOn(index) ? "on" : "off"))
            let sent = ContinuousClock.now
            guard sockets[index % nodes].send(line + "\n"), let reply = sockets[index % nodes].readLine(), reply.contains(#""ok":true"#) else {
                throw HarnessError("\(Self.name(index % nodes))/\(control) on its socket failed")
            }
            latencies.append(.now - sent)
        }
        return latencies
    }

    /// Commands through the bridge (QoS 1, at 50/s, one to each control not commanded yet) while
    /// the nodes' broker stops and starts again: how many were answered, and how many controls
    /// ended on, as every command asked.
    private func outage(home: MosquittoBroker, shed: MosquittoBroker, into outcome: inout Outcome) async throws {
        let load = try await MQTTLoad(port: shed.port, filters: ["switchboard/+/controls/+/result"], clientID: "bench-outage-load")
        defer { load.stop() }
        // Every control off first, so that "on" at the end means the command arrived.
        for index in 0..<(nodes * controls) {
            load.publish("switchboard/\(Self.name(index % nodes))/controls/c\(index / nodes)/set", "OFF")
        }
        _ = await load.drain(quiet: .seconds(2))
        let total = min(200, nodes * controls)
        var answered = Set<String>()
        var stopped = false, restartedAt: ContinuousClock.Instant?
        let started = ContinuousClock.now
        for index in 0..<total {
            load.publish("switchboard/\(Self.name(index % nodes))/controls/c\(index / nodes)/set", #"{"value":true,"transaction":"o\#(index)"}"#)
            if index == total / 4 { await home.stop(); stopped = true }
            if index == total / 2, stopped { try await home.start(); restartedAt = .now }
            try await Task.sleep(until: started + .milliseconds(20 * (index + 1)))
        }
        var lastAnswer = ContinuousClock.now
        while answered.count < total, ContinuousClock.now - lastAnswer < .seconds(30), let event = await load.next() {
            if case .message(let message, let at) = event, let text = message.text, text.contains(#""outcome":"performed""#), let range = text.range(of: #""transaction":"o"#) {
                answered.insert(String(text[range.upperBound...].prefix { $0.isNumber }))
                lastAnswer = at
            }
        }
        outcome.outageSent = total
        outcome.outageAnswered = answered.count
        outcome.outageRecovery = restartedAt.map { lastAnswer - $0 } ?? .zero
        // What the nodes say now, through the bridge.
        let result = await ChildProcess.run(BuiltProducts.path(of: "switchboard"), ["--broker", "mqtt://127.0.0.1:\(shed.port)", "center", "--json"])
        let listed = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]) ?? []
        var on = 0
        for index in 0..<total {
            let node = listed.first { $0["node"] as? String == Self.name(index % nodes) }
            let control = (node?["controls"] as? [[String: Any]])?.first { $0["id"] as? String == "c\(index / nodes)" }
            if control?["value"] as? Bool == true { on += 1 }
        }
        outcome.outageOn = on
    }
}
