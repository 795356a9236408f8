import ControlKitCore
import Foundation
import SwitchboardTesting

/// Switchboard's HomeKit bridge beside HAP-python 5.0, each serving one Switch on loopback to the
/// same controller, aiohomekit 4.0.1 (`Tests/Fixtures/HomeKit/aiohomekit-bench.py`): writes of On
/// (write → relay switched → response), a change from outside (→ EVENT at the controller), the
/// server's CPU per write and its idle RSS. switchboardd runs in release on the simulated chip,
/// with no D-Bus (so no Avahi advertisement); HAP-python
/// (`Tests/Fixtures/HomeKit/hap-python-switch.py`) with no mDNS advertisement either.
@MainActor
struct HomeKitBenchmark {
    let writes: Int
    /// Outside changes of each kind (two kinds per server).
    let events: Int
    /// Untimed writes first, so that both servers have warmed up.
    let warmup = 100
    /// How long a server is left alone before its idle RSS is read.
    let settle = Duration.seconds(3)
    static let setupCode = "031-45-154"

    /// What was measured of one server.
    struct Server {
        var write: [Duration] = []
        /// Events after the usual outside change (the CLI; HAP-python's set_value), then after the
        /// fastest one (a line on the daemon's socket; HAP-python's immediate publish).
        var event: [Duration] = []
        var fastEvent: [Duration] = []
        /// Server CPU time across the timed writes: utime + stime of /proc/PID/stat (clock ticks),
        /// and the sum of its threads' schedstat (nanoseconds).
        var cpuTicks = 0
        var cpu = Duration.zero
        var idleRSS = 0
        var rssAfter = 0
    }

    struct Outcome {
        var switchboardd = Server()
        var hapPython = Server()
        /// switchboardd's idle RSS on the same devices.json without its homekit block.
        var rssWithoutBridge = 0
        var aiohomekit = "", hapPythonPython = ""
    }

    func run() async throws -> Outcome {
        var outcome = Outcome()
        outcome.aiohomekit = try await Self.venv("deploy/homekit/aiohomekit-venv.sh")
        outcome.hapPythonPython = try await Self.venv("deploy/homekit/hap-python-venv.sh")
        let noBus = ["DBUS_SYSTEM_BUS_ADDRESS": DaemonHarness.noBus]

        let plain = try BenchNode(configuration: Self.configuration(homeKitPort: nil), environment: noBus)
        outcome.rssWithoutBridge = try await idleRSS(plain.pid)
        withExtendedLifetime(plain) {}

        let port = try TestPort.free()
        let node = try BenchNode(configuration: Self.configuration(homeKitPort: port), environment: noBus)
        let log = node.directory + "/switchboardd.log"
        guard await eventually(within: .seconds(20), every: .milliseconds(50), { @Sendable in
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("serving on port \(port)")
        }) else { throw HarnessError("waited 20 s for switchboardd's bridge to serve on port \(port); see \(log)") }
        outcome.switchboardd.idleRSS = try await idleRSS(node.pid)
        let socket = node.socketPath, cli = BuiltProducts.path(of: "switchboard")
        let connection = try RawSocketConnection(path: socket).orThrow("cannot connect to switchboardd's socket \(socket)")
        outcome.switchboardd = try await drive(port: port, server: node.pid, python: outcome.aiohomekit, folder: node.directory, into: outcome.switchboardd) { fast in
            if fast {
                let line = ControlLineProtocol.encodeLine(ControlCommand(.perform, id: "relay", request: "toggle"))
                guard connection.send(line + "\n"), connection.readLine()?.contains(#""ok":true"#) == true else {
                    throw HarnessError("switchboardd refused a toggle on its socket; its log: \(node.directory)/switchboardd.log")
                }
            } else {
                let result = await ChildProcess.run(cli, ["--socket", socket, "toggle", "relay"])
                guard result.status == 0 else { throw HarnessError("switchboard toggle relay failed (\(result.status)): \(result.stderr)") }
            }
        } relay: {
            let result = await ChildProcess.run(cli, ["--socket", socket, "status"])
            guard result.status == 0 else {
                throw HarnessError("\(cli) --socket \(socket) status failed (\(result.status)): \(result.stderr); build every product first (swift build -c release --static-swift-stdlib)")
            }
            let status = result.stdout
            return status.contains("output relay: on") ? true : status.contains("output relay: off") ? false : nil
        }
        withExtendedLifetime(node) {}

        let folder = NSTemporaryDirectory() + "switchboard-bench-hap-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let hapPort = try TestPort.free()
        let hap = try LineProcess(outcome.hapPythonPython, [Self.fixture("hap-python-switch.py"), String(hapPort), Self.setupCode, folder + "/accessory.state"],
                                  name: "HAP-python", errorPath: folder + "/hap-python.log")
        try hap.waitFor("ready", timeout: .seconds(60))
        outcome.hapPython.idleRSS = try await idleRSS(hap.pid)
        outcome.hapPython = try await drive(port: hapPort, server: hap.pid, python: outcome.aiohomekit, folder: folder, into: outcome.hapPython) { fast in
            try hap.send(fast ? "toggle-now" : "toggle")
            guard try hap.readLine() == "done" else { throw HarnessError("HAP-python did not toggle; its errors: \(hap.errors)") }
        } relay: {
            try hap.send("relay")
            let line = try hap.readLine()
            return line == "relay on" ? true : line == "relay off" ? false : nil
        }
        hap.stop()
        return outcome
    }

    /// Pairs the controller with the server on `port` and runs its writes and events: `toggle`
    /// changes On from outside (`true`: the fastest way), `relay` reads the output the server
    /// switches, which must follow the writes and the toggles.
    private func drive(port: Int, server: pid_t, python: String, folder: String, into measured: Server,
                       toggle: (Bool) async throws -> Void, relay: () async throws -> Bool?) async throws -> Server {
        var measured = measured
        let controller = try LineProcess(python, [Self.fixture("aiohomekit-bench.py"), "127.0.0.1", String(port), Self.setupCode,
                                                  String(warmup), String(writes), String(2 * events)],
                                         name: "aiohomekit-bench.py", errorPath: folder + "/aiohomekit-bench.log")
        defer { controller.stop() }
        try controller.waitFor("ready", timeout: .seconds(60))
        let before = ProcessSample(pid: server)
        try controller.send("go")
        try controller.waitFor("written", timeout: .seconds(Double(writes) * 0.1 + 30))
        let after = ProcessSample(pid: server)
        measured.cpuTicks = after.ticks - before.ticks
        measured.cpu = after.cpu - before.cpu
        let last = writes % 2 == 1 // the writes alternate true, false, … from true
        guard try await relay() == last else { throw HarnessError("the relay does not show the last write (\(last)) on port \(port)") }
        try controller.send("go")
        var toggles = 0
        while true {
            let line = try controller.readLine()
            guard line == "toggle" else {
                let result = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                let times = { (key: String) in ((result?[key] as? [Double]) ?? []).map { Duration.nanoseconds(Int64($0 * 1000)) } }
                measured.write = times("writes_us")
                let events = times("events_us")
                measured.event = Array(events.prefix(self.events))
                measured.fastEvent = Array(events.dropFirst(self.events))
                break
            }
            try await toggle(toggles >= events)
            toggles += 1
            try controller.send("toggled")
        }
        guard measured.write.count == writes, measured.event.count + measured.fastEvent.count == 2 * events else {
            throw HarnessError("aiohomekit-bench.py reported \(measured.write.count) writes and \(measured.event.count + measured.fastEvent.count) events; its errors: \(controller.errors)")
        }
        guard try await relay() == last else { throw HarnessError("the relay does not follow the toggles on port \(port)") }
        measured.rssAfter = ProcessSample(pid: server).residentBytes
        return measured
    }

    /// VmRSS after `settle`: the median of five readings 200 ms apart.
    private func idleRSS(_ pid: pid_t) async throws -> Int {
        try await Task.sleep(for: settle)
        var readings: [Int] = []
        for _ in 0..<5 {
            readings.append(ProcessSample(pid: pid).residentBytes)
            try await Task.sleep(for: .milliseconds(200))
        }
        return readings.sorted()[2]
    }

    /// The python of a venv script of deploy/homekit (it makes the venv on first use).
    static func venv(_ script: String) async throws -> String {
        let result = await ChildProcess.run(RepositoryFiles.path(script), [])
        guard result.status == 0, let python = result.stdout.split(separator: "\n").last.map(String.init),
              FileManager.default.isExecutableFile(atPath: python) else {
            throw HarnessError("\(script) failed (\(result.status)): \(result.stderr)\nrun it by hand; it needs python3-venv and the network the first time")
        }
        return python
    }

    static func fixture(_ name: String) -> String { RepositoryFiles.path("Tests/Fixtures/HomeKit/" + name) }

    /// One relay toggle placed in Control Center, `relay`, and with `homeKitPort` the bridge on it.
    static func configuration(homeKitPort: Int?) -> String {
        #"""
        {
          "node": "bench", "name": "Bench",
          "chips": [ { "id": "main", "chip": "gpiochip0", "simulatedLines": 8 } ],
          "devices": [ { "id": "relay", "name": "Relay", "type": "relay", "gpio": { "chip": "main", "line": 1 }, "restore": "off" } ],
          "controls": [ { "kind": "relay", "template": "toggle", "title": "Relay", "device": "relay" } ],
          "placements": [ { "id": "relay", "control": "relay", "space": "controlCenter" } ]\#(homeKitPort.map { #",\#n  "homekit": { "port": \#($0), "setupCode": "\#(setupCode)" }"# } ?? "")
        }
        """#
    }
}

extension Optional {
    /// The value, or a `HarnessError` saying `message`.
    func orThrow(_ message: String) throws -> Wrapped {
        guard let self else { throw HarnessError(message) }
        return self
    }
}
