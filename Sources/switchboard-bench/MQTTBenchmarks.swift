import Foundation
import SwitchboardTesting

/// The whole MQTT benchmark in one run, so the ratios to the floor are measured on the same
/// machine at the same moment: its own mosquitto, the C floor, a release switchboardd with 100
/// controls (90 on GPIO, 10 bound to devices of another system).
@MainActor
struct MQTTBenchmarks {
    var commands = 10_000
    var idleSeconds = 30
    var report: [(String, String)] = []
    var json: [(String, String)] = []

    mutating func row(_ name: String, _ value: String, json key: String? = nil, _ jsonValue: String? = nil) {
        report.append((name, value))
        if let key { json.append((key, jsonValue ?? value)) }
        print("  \(name): \(value)")
    }

    mutating func run() async throws {
        let broker = try await MosquittoBroker()
        let floorLog = NSTemporaryDirectory() + "switchboard-bench-floor-\(broker.port).log"
        let floor = try ChildProcess(BuiltProducts.path(of: "switchboard-bench-floor"), [String(broker.port), "floor"], logPath: floorLog)
        defer { _ = floor.stop(signal: SIGTERM) }
        let node = try BenchNode(controls: 90, remotes: 10, port: broker.port)
        row("start-up to READY, 100 controls", "\(node.startup.milliseconds) ms", json: "startup_ms", node.startup.milliseconds)

        let load = try await MQTTLoad(port: broker.port, filters: ["\(BenchNode.base)/controls/+", "\(BenchNode.base)/controls/+/result", "floor/+"])
        defer { load.stop() }
        _ = await load.drain(quiet: .seconds(1))
        row("RSS at idle", Self.memory(node.sample), json: "rss_idle_kib", String(node.sample.residentBytes / 1024))

        var nodeTrips = RoundTripBenchmark(load: load, target: .node(controls: 64))
        var floorTrips = RoundTripBenchmark(load: load, target: .floor(controls: 64))
        _ = await floorTrips.run(inFlight: 1, total: 500)
        _ = await nodeTrips.run(inFlight: 1, total: 500)
        for inFlight in [1, 64] {
            let floorBefore = ProcessSample(pid: floor.pid ?? 0)
            guard let floorLatencies = await floorTrips.run(inFlight: inFlight, total: commands) else { throw HarnessError("the floor stopped answering") }
            let floorCPU = (ProcessSample(pid: floor.pid ?? 0).cpu - floorBefore.cpu) / commands
            let nodeBefore = node.sample
            guard let nodeLatencies = await nodeTrips.run(inFlight: inFlight, total: commands) else { throw HarnessError("switchboardd stopped answering") }
            let nodeAfter = node.sample
            let nodeCPU = (nodeAfter.cpu - nodeBefore.cpu) / commands
            let nodeSwitches = Double(ProcessSample.switches(from: nodeBefore, to: nodeAfter)) / Double(commands)
            let f = Percentiles(floorLatencies), n = Percentiles(nodeLatencies)
            let label = "round trip, \(inFlight) in flight, \(commands) commands"
            row("\(label), floor", "p50 \(f(50).microseconds) µs, p90 \(f(90).microseconds) µs, p99 \(f(99).microseconds) µs, max \(f.max.microseconds) µs")
            row("\(label), switchboardd", "p50 \(n(50).microseconds) µs, p90 \(n(90).microseconds) µs, p99 \(n(99).microseconds) µs, max \(n.max.microseconds) µs")
            row("\(label), ratio", "p50 \(Self.ratio(n(50), f(50)))×, p99 \(Self.ratio(n(99), f(99)))×")
            row("CPU per command, \(inFlight) in flight", "switchboardd \(nodeCPU.microseconds) µs, floor \(floorCPU.microseconds) µs")
            row("thread wake-ups per command, \(inFlight) in flight", "switchboardd \(String(format: "%.1f", nodeSwitches))",
                json: "switches_per_command\(inFlight)", String(format: "%.2f", nodeSwitches))
            for (key, value) in [("p50", n(50)), ("p90", n(90)), ("p99", n(99)), ("max", n.max)] { json.append(("rt\(inFlight)_\(key)_us", value.microseconds)) }
            for (key, value) in [("p50", f(50)), ("p90", f(90)), ("p99", f(99)), ("max", f.max)] { json.append(("floor_rt\(inFlight)_\(key)_us", value.microseconds)) }
            json.append(("rt\(inFlight)_p50_ratio", Self.ratio(n(50), f(50))))
            json.append(("rt\(inFlight)_p99_ratio", Self.ratio(n(99), f(99))))
            json.append(("cpu_per_command\(inFlight)_us", nodeCPU.microseconds))
            json.append(("floor_cpu_per_command\(inFlight)_us", floorCPU.microseconds))
        }

        row("RSS after the round trips", Self.memory(node.sample))
        var sustained = SustainedRateBenchmark(load: load, controls: 64)
        var best = 0
        for rate in [2_000, 5_000, 10_000, 15_000, 20_000] {
            let outcome = await sustained.run(rate: rate, duration: .seconds(2))
            // Kept up: every command answered within 10% of the time they took to send.
            let clean = outcome.clean && outcome.answeredRate >= Double(rate) * 0.9
            row("offered \(rate)/s over 64 controls for 2 s",
                "answered \(outcome.answered) of \(outcome.sent) at \(Int(outcome.answeredRate))/s, lost \(outcome.lost), reordered \(outcome.reordered), wrong final states \(outcome.wrongFinalStates)")
            if clean { best = rate } else { break }
            _ = await load.drain()
        }
        row("sustained rate with no loss or reordering", "\(best)/s", json: "sustained_clean_rate", String(best))

        row("RSS after the sustained steps", Self.memory(node.sample))
        try await bareWords(node: node, port: broker.port, floorPID: floor.pid ?? 0)
        _ = await load.drain()

        let storm = await ReloadStormBenchmark(load: load, node: node, devices: 10).run(messages: 100_000)
        row("reload storm, 100,000 state messages over 10 devices",
            "\(storm.presentations) presentations, \(storm.wrongFinalStates) wrong final, \(storm.elapsed.milliseconds) ms, CPU \(storm.cpuPerMessage.microseconds) µs/message")
        json += [("storm_presentations", String(storm.presentations)), ("storm_wrong_final", String(storm.wrongFinalStates)),
                 ("storm_cpu_per_message_us", storm.cpuPerMessage.microseconds), ("storm_ms", storm.elapsed.milliseconds)]
        row("RSS after the load", Self.memory(node.sample), json: "rss_loaded_kib", String(node.sample.residentBytes / 1024))

        _ = await load.drain(quiet: .seconds(2))
        let idleBefore = node.sample
        try await Task.sleep(for: .seconds(idleSeconds))
        let idleAfter = node.sample
        let switches = ProcessSample.switches(from: idleBefore, to: idleAfter)
        let wakeups = Double(switches) / Double(idleSeconds)
        row("idle \(idleSeconds) s with MQTT connected (keepalive 60 s)",
            "\(idleAfter.ticks - idleBefore.ticks) CPU ticks, \(switches) wake-ups (\(String(format: "%.2f", wakeups))/s), \(idleAfter.threads) threads")
        json += [("idle_ticks", String(idleAfter.ticks - idleBefore.ticks)), ("idle_wakeups_per_s", String(format: "%.3f", wakeups))]
        row("RSS after the idle period", Self.memory(idleAfter), json: "rss_after_idle_kib", String(idleAfter.residentBytes / 1024))
    }

    /// Bare `ON`/`OFF` words at QoS 0 over 8 relays, as another home system sends them, at rising
    /// rates: what was performed (superseded commands are answered but are not throughput) and the
    /// CPU per command beside the floor's.
    private mutating func bareWords(node: BenchNode, port: Int, floorPID: Int32) async throws {
        let words = try await MQTTLoad(port: port, filters: BareWordsBenchmark.filters, clientID: "switchboard-bench-words")
        defer { words.stop() }
        var bench = BareWordsBenchmark(load: words, node: node, floorPID: floorPID)
        await bench.prime()
        var best = 0
        for rate in [500, 1_000, 2_000, 4_000, 8_000] {
            let outcome = await bench.run(rate: rate, duration: .seconds(2))
            let perPerformed = outcome.performed > 0 ? (outcome.nodeCPU / outcome.performed).microseconds : "-"
            row("bare words at \(rate)/s over 8 relays for 2 s",
                "performed \(outcome.performed) of \(outcome.sent) at \(Int(outcome.performedRate))/s, superseded \(outcome.superseded), "
                    + "refused or failed \(outcome.refusedOrFailed), unanswered \(outcome.unanswered), wrong final states \(outcome.wrongFinalStates); "
                    + "CPU per command offered: switchboardd \((outcome.nodeCPU / max(outcome.sent, 1)).microseconds) µs, floor \(outcome.floorCPU.microseconds) µs "
                    + "(floor answered \(outcome.floorAnswered)); per command performed \(perPerformed) µs")
            json += [("words\(rate)_performed", String(outcome.performed)), ("words\(rate)_superseded", String(outcome.superseded)),
                     ("words\(rate)_unanswered", String(outcome.unanswered)),
                     ("words\(rate)_cpu_per_offered_us", (outcome.nodeCPU / max(outcome.sent, 1)).microseconds),
                     ("words\(rate)_floor_cpu_per_offered_us", outcome.floorCPU.microseconds)]
            if outcome.keptUp { best = rate }
        }
        row("bare words: highest rate with 90% performed, none lost", "\(best)/s", json: "words_kept_up_rate", String(best))
    }

    static func memory(_ sample: ProcessSample) -> String {
        "\(sample.residentBytes / 1024) KiB (\(sample.anonymousBytes / 1024) KiB its own, the rest shared library pages)"
    }

    static func ratio(_ a: Duration, _ b: Duration) -> String {
        String(format: "%.2f", a.seconds / max(b.seconds, 1e-9))
    }

    var jsonLine: String {
        "{\"benchmark\":\"mqtt\",\"commands\":\(commands)," + json.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }
}

extension MQTTBenchmarks {
    /// switchboardd alone under round trips for `seconds`, `inFlight` outstanding: for `perf record -p`
    /// on the printed pid. Prints the commands answered and the daemon's CPU and wake-ups per command.
    static func profile(inFlight: Int, seconds: Int) async throws {
        let broker = try await MosquittoBroker()
        let node = try BenchNode(controls: 90, remotes: 10, port: broker.port)
        let load = try await MQTTLoad(port: broker.port, filters: ["\(BenchNode.base)/controls/+"])
        defer { load.stop() }
        _ = await load.drain(quiet: .seconds(1))
        var trips = RoundTripBenchmark(load: load, target: .node(controls: 64))
        if inFlight > 0 { _ = await trips.run(inFlight: inFlight, total: 500) }
        print("mqtt-profile: switchboardd pid \(node.pid), \(inFlight > 0 ? "\(inFlight) in flight" : "reload storms") for \(seconds) s")
        fflush(nil)
        let before = node.sample, start = ContinuousClock.now
        var answered = 0
        while ContinuousClock.now - start < .seconds(seconds) {
            if inFlight == 0 {
                answered += await ReloadStormBenchmark(load: load, node: node, devices: 10).run(messages: 20_000).messages
                continue
            }
            guard let latencies = await trips.run(inFlight: inFlight, total: 1_000) else { throw HarnessError("switchboardd stopped answering") }
            answered += latencies.count
        }
        let after = node.sample
        let perCommand = (after.cpu - before.cpu) / answered
        let switches = Double(ProcessSample.switches(from: before, to: after)) / Double(answered)
        print("  \(answered) \(inFlight > 0 ? "commands" : "state messages"): CPU \(perCommand.microseconds) µs and \(String(format: "%.1f", switches)) thread wake-ups per message")
    }
}
