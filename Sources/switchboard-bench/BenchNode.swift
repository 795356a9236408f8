import Foundation
import SwitchboardSupport
import SwitchboardTesting

/// A release `switchboardd` on the simulated chip with `controls` relay toggles (`c0`, `c1`, …)
/// and `remotes` devices of another system (`r0`, …, state on `bench/remote/<n>`), connected to
/// the benchmark's broker. Started as systemd would, with `NOTIFY_SOCKET`, so the time to READY
/// is measured.
final class BenchNode: @unchecked Sendable {
    // Invariant: used by the benchmark's one task.
    let directory: String
    let process: ChildProcess
    /// Process start to `READY=1`.
    let startup: Duration
    static let base = "switchboard/bench"

    convenience init(controls: Int, remotes: Int = 0, port: Int, node: String = "bench") throws {
        try self.init(configuration: Self.configuration(controls: controls, remotes: remotes, port: port, node: node))
    }

    /// A node on a devices.json of the benchmark's own, with `environment` added to the daemon's.
    init(configuration: String, environment: [String: String] = [:]) throws {
        directory = NSTemporaryDirectory() + "switchboard-bench-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try configuration.write(toFile: directory + "/devices.json", atomically: true, encoding: .utf8)
        let notify = try ReadyListener(path: directory + "/notify.sock")
        let started = ContinuousClock.now
        // SWITCHBOARD_BENCH_DAEMON_WRAPPER runs the daemon under a profiler, e.g.
        // "/usr/bin/valgrind --tool=massif --massif-out-file=/tmp/massif.out".
        let wrapper = (ProcessInfo.processInfo.environment["SWITCHBOARD_BENCH_DAEMON_WRAPPER"] ?? "").split(separator: " ").map(String.init)
        let daemon = [BuiltProducts.path(of: "switchboardd"),
                      "--config", directory + "/devices.json", "--simulate", "--state-dir", directory + "/state", "--socket", directory + "/sb.sock"]
        let command = wrapper + daemon
        process = try ChildProcess(
            command[0], Array(command.dropFirst()),
            logPath: directory + "/switchboardd.log", environment: environment.merging(["NOTIFY_SOCKET": directory + "/notify.sock"]) { $1 }
        )
        guard notify.waitForReady(timeout: .seconds(wrapper.isEmpty ? 30 : 300)) else {
            throw HarnessError("switchboardd did not report READY:\n" + ((try? String(contentsOfFile: directory + "/switchboardd.log", encoding: .utf8)) ?? ""))
        }
        startup = ContinuousClock.now - started
    }

    deinit {
        _ = process.stop(signal: SIGTERM)
        if ProcessInfo.processInfo.environment["SWITCHBOARD_BENCH_KEEP"] == "1" {
            print("switchboard-bench: kept \(directory)")
        } else {
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    var pid: Int32 { process.pid ?? 0 }
    var sample: ProcessSample { ProcessSample(pid: pid) }

    /// The socket's path.
    var socketPath: String { directory + "/sb.sock" }

    static func configuration(controls: Int, remotes: Int, port: Int, node: String = "bench") -> String {
        var devices: [String] = [], kinds: [String] = [], placements: [String] = []
        for index in 0..<controls {
            devices.append(#"{ "id": "d\#(index)", "name": "Relay \#(index)", "type": "relay", "gpio": { "chip": "main", "line": \#(index) }, "restore": "off" }"#)
            kinds.append(#"{ "kind": "k\#(index)", "template": "toggle", "title": "Relay \#(index)", "device": "d\#(index)" }"#)
            placements.append(#"{ "id": "c\#(index)", "control": "k\#(index)", "space": "controlCenter" }"#)
        }
        for index in 0..<remotes {
            devices.append(#"""
            { "id": "rd\#(index)", "name": "Remote \#(index)", "type": "mqtt", "mqtt": { "stateTopic": "bench/remote/\#(index)", "onValue": "ON", "offValue": "OFF", "commandTopic": "bench/remote/\#(index)/set", "onPayload": "ON", "offPayload": "OFF" } }
            """#)
            kinds.append(#"{ "kind": "rk\#(index)", "template": "toggle", "title": "Remote \#(index)", "device": "rd\#(index)" }"#)
            placements.append(#"{ "id": "r\#(index)", "control": "rk\#(index)", "space": "controlCenter" }"#)
        }
        return #"""
        {
          "node": "\#(node)",
          "mqtt": { "host": "127.0.0.1", "port": \#(port), "keepalive": 60, "discovery": false },
          "chips": [ { "id": "main", "chip": "gpiochip0", "simulatedLines": \#(max(controls, 1)) } ],
          "devices": [ \#(devices.joined(separator: ",\n")) ],
          "controls": [ \#(kinds.joined(separator: ",\n")) ],
          "placements": [ \#(placements.joined(separator: ",\n")) ]
        }
        """#
    }
}

/// The systemd notification socket, played by the benchmark: a datagram socket that waits for
/// `READY=1`.
final class ReadyListener {
    let descriptor: Int32

    init(path: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard let address = UnixSocketAddress(path: path),
              address.withSocketAddress({ bind(descriptor, $0, $1) }) == 0 else {
            throw HarnessError("cannot bind the notification socket \(path)")
        }
    }

    deinit { close(descriptor) }

    /// Reads notifications until one says `READY=1`.
    func waitForReady(timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count > 0, String(decoding: buffer.prefix(count), as: UTF8.self).split(separator: "\n").contains("READY=1") { return true }
        }
        return false
    }
}
