import SwitchboardTesting

/// The cost of a control extension: MQTT command → state round trips, one in flight, of the
/// same porch relay through a devices.json toggle and through a Swift toggle in a control
/// extension process (its render and perform calls to the process, and its `Relay` calls back to
/// the daemon), each on a release switchboardd of its own.
@MainActor
struct ExtensionBenchmark {
    let commands: Int

    /// The round trips of the devices.json toggle, then of the extension's.
    func run() async throws -> (devicesJSON: [Duration], extension: [Duration]) {
        let broker = try await MosquittoBroker()
        let load = try await MQTTLoad(port: broker.port, filters: ["\(BenchNode.base)/controls/+"])
        defer { load.stop() }
        var results: [[Duration]] = []
        for control in ["porch-light", "test.porch"] {
            let node = try BenchNode(configuration: Self.configuration(control: control, port: broker.port))
            _ = await load.drain(quiet: .seconds(1))
            var trips = RoundTripBenchmark(load: load, target: .node(controls: 1))
            _ = await trips.run(inFlight: 1, total: 200)
            guard let latencies = await trips.run(inFlight: 1, total: commands) else {
                throw HarnessError("switchboardd stopped answering \(control)")
            }
            results.append(latencies)
            withExtendedLifetime(node) {}
            _ = await load.drain(quiet: .milliseconds(500))
        }
        return (results[0], results[1])
    }

    /// One relay, `porch`, and one placement `c0` of `control`: the devices.json toggle or the
    /// extension's.
    static func configuration(control: String, port: Int) -> String {
        #"""
        {
          "node": "bench",
          "mqtt": { "host": "127.0.0.1", "port": \#(port), "keepalive": 60, "discovery": false },
          "chips": [ { "id": "main", "chip": "gpiochip0", "simulatedLines": 8 } ],
          "devices": [ { "id": "porch", "name": "Porch Light", "type": "relay", "gpio": { "chip": "main", "line": 1 }, "restore": "off" } ],
          "controls": [ { "kind": "porch-light", "template": "toggle", "title": "Porch", "device": "porch" } ],
          "placements": [ { "id": "c0", "control": "\#(control)", "space": "controlCenter" } ],
          "extensions": [ { "id": "bench", "executable": "\#(BuiltProducts.path(of: "faulty-extension"))", "devices": ["porch"] } ]
        }
        """#
    }
}
