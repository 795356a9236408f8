import Foundation
import SwitchboardCore
import SwitchboardTesting
import Testing

/// A control extension started by switchboardd itself, attacked from the inside: a hostile
/// extension looks for the daemon's descriptors and environment, leaves a child behind, forks
/// until it cannot, and changes a device the lock guards. As root the daemon runs it as `nobody`
/// (its own user: its task limit holds); otherwise as the tests' own user.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct ExtensionSandboxTests {
    /// The user the hostile extension runs as: nobody when the tests run as root.
    static let user: String? = geteuid() == 0 ? "nobody" : nil

    /// A folder anyone may write, for the extension's report (it may run as nobody).
    let temporary: TemporaryFolder
    var folder: String { temporary.path }
    var reportPath: String { folder + "/report" }
    /// The hostile extension's executable: as nobody, a copy in ``folder``, which nobody can reach
    /// wherever the build is.
    let executable: String

    init() throws {
        temporary = try TemporaryFolder()
        chmod(temporary.path, 0o777)
        if Self.user != nil {
            executable = temporary.path + "/hostile-extension"
            try FileManager.default.copyItem(atPath: BuiltProducts.path(of: "hostile-extension"), toPath: executable)
            chmod(executable, 0o755)
        } else {
            executable = BuiltProducts.path(of: "hostile-extension")
        }
    }

    /// The sample node with the hostile extension; `timeout` is how long the daemon waits for one
    /// of its calls before it checks whether the extension is alive at all.
    func configuration(port: Int? = nil, timeout: String = "5s") -> String {
        let mqtt = port.map { #""mqtt": { "host": "127.0.0.1", "port": \#($0) },"# } ?? ""
        let user = Self.user.map { #""user": "\#($0)","# } ?? ""
        return """
        { "node": "sandbox", \(mqtt) "chips": [{ "id": "main", "chip": "header" }],
          "devices": [
            { "id": "porch", "name": "Porch Light", "type": "relay", "gpio": { "chip": "main", "line": 17 } },
            { "id": "garage", "name": "Garage Door", "type": "relay", "gpio": { "chip": "main", "line": 22 } }
          ],
          "controls": [
            { "kind": "porch-light", "template": "toggle", "device": "porch" },
            { "kind": "garage-door", "template": "toggle", "device": "garage", "requiresAuthentication": true }
          ],
          "placements": [
            { "id": "porch", "control": "porch-light", "space": "controlCenter" },
            { "id": "garage", "control": "garage-door", "space": "controlCenter" },
            { "id": "exit", "control": "hostile.exit", "space": "controlCenter" },
            { "id": "orphan", "control": "hostile.orphan", "space": "controlCenter" },
            { "id": "bomb", "control": "hostile.bomb", "space": "controlCenter" },
            { "id": "sneak", "control": "hostile.sneak", "space": "controlCenter" },
            { "id": "sneak-porch", "control": "hostile.sneakPorch", "space": "controlCenter" },
            { "id": "guarded", "control": "hostile.guarded", "space": "controlCenter" }
          ],
          "extensions": [ { "id": "hostile", \(user) "executable": "\(executable)",
                            "arguments": ["--report", "\(reportPath)"], "devices": ["porch", "garage"], "timeout": "\(timeout)" } ]
        }
        """
    }

    /// The report's lines.
    var report: [String] {
        ((try? String(contentsOfFile: reportPath, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// The report's lines since its last start.
    var lastStart: [String] {
        let lines = report
        return Array(lines[(lines.lastIndex { $0.hasPrefix("start ") } ?? 0)...])
    }

    /// An output's value, from `switchboard status`.
    func output(_ daemon: DaemonHarness, _ id: String) async -> String? {
        let status = await daemon.cli(["status"]).stdout
        return status.split(separator: "\n").first { $0.hasPrefix("output \(id): ") }.map { String($0.dropFirst("output \(id): ".count)) }
    }

    /// Processes (not zombies) in process group `group`.
    static func members(of group: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            // After "(comm)": state, ppid, pgrp.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 2, fields[0] != "Z", pid_t(fields[2]) == group else { return nil }
            return pid
        }
    }

    /// A shell script in `folder` that runs `executable` as its child and then stays, deaf to
    /// SIGTERM: an extension that would outlive its daemon unless the kernel ends it.
    static func wrapperThatOutlives(_ executable: String, in folder: String) throws -> String {
        let path = folder + "/outliving-extension"
        try "#!/bin/sh\ntrap '' TERM\n'\(executable)' \"$@\"\nwhile :; do sleep 1; done\n".write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    /// Whether a process is gone (or a zombie nobody reaped yet).
    static func isGone(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(after: close)...].split(separator: " ").first == "Z"
    }

    func extensionPID(_ daemon: DaemonHarness) -> pid_t? {
        daemon.log.components(separatedBy: "extension hostile: running (pid ").last.flatMap { pid_t($0.prefix { $0.isNumber }) }
    }

    @Test func itInheritsNoDescriptorOfTheDaemonAndOnlyACleanEnvironment() async throws {
        let broker = try await MosquittoBroker()
        let daemon = try DaemonHarness(configuration: configuration(port: broker.port))
        try await daemon.start(environment: [
            "NOTIFY_SOCKET": folder + "/notify", "HOME": "/home/the-daemons", "SWITCHBOARD_PROBE": "kept", "SECRET_TOKEN": "the daemon's",
        ])
        #expect(await daemon.waitUntil { await daemon.cli(["status"]).stdout.contains("mqtt: connected") })
        // CLI connections open while the extension starts again: none may reach it.
        let connections = (0..<3).compactMap { _ in RawSocketConnection(path: daemon.socketPath) }
        #expect(connections.count == 3)
        _ = await daemon.cli(["press", "exit"])
        #expect(await daemon.waitUntil(timeout: .seconds(15)) { report.filter { $0.hasPrefix("start ") }.count >= 2 && lastStart.contains { $0.hasPrefix("environment ") } }, "\(report)")
        let given = lastStart
        let descriptors = given.filter { $0.hasPrefix("descriptor ") }
        #expect(descriptors.map { $0.split(separator: " ")[1] } == ["0", "1", "2"], "inherited: \(descriptors)")

        let environment = Dictionary(given.filter { $0.hasPrefix("environment ") }.map { line -> (String, String) in
            let pair = line.dropFirst("environment ".count)
            let equals = pair.firstIndex(of: "=") ?? pair.endIndex
            return (String(pair[..<equals]), String(pair[equals...].dropFirst()))
        }, uniquingKeysWith: { first, _ in first })
        let allowed: (String) -> Bool = { ["PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE"].contains($0) || $0.hasPrefix("LC_") || $0.hasPrefix("SWITCHBOARD_") }
        #expect(environment.keys.filter { !allowed($0) }.isEmpty, "more than it needs: \(environment.keys.sorted())")
        #expect(environment["NOTIFY_SOCKET"] == nil && environment["SECRET_TOKEN"] == nil)
        let account = Self.user.flatMap { getpwnam($0) } ?? getpwuid(geteuid())
        let home = account.map { String(cString: $0.pointee.pw_dir) }
        #expect(environment["HOME"] == home && environment["HOME"] != "/home/the-daemons", "HOME: \(environment["HOME"] ?? "none")")
        #expect(environment["USER"] == account.map { String(cString: $0.pointee.pw_name) })
        #expect(environment["PATH"] == "/usr/local/bin:/usr/bin:/bin")
        #expect(environment["SWITCHBOARD_PROBE"] == "kept")

        // status says how isolated it is.
        let status = await daemon.cli(["status"]).stdout
        let expected = Self.user.map { "extension hostile: own user \($0); " } ?? "extension hostile: same user as switchboardd"
        #expect(status.contains(expected) && status.contains("own process group") && status.contains("no core dumps"), "\(status)")
        _ = connections
    }

    /// The first line of defence, behind the child's closing of everything above 2: each of the
    /// daemon's own descriptors (its broker connection, CLI connections, the readers' duplicates of
    /// an extension's pipes) is close-on-exec, so that no program it starts in any way gets one.
    @Test func everyDescriptorOfTheDaemonIsCloseOnExec() async throws {
        let broker = try await MosquittoBroker()
        let daemon = try DaemonHarness(configuration: configuration(port: broker.port))
        try await daemon.start()
        #expect(await daemon.waitUntil { await daemon.cli(["status"]).stdout.contains("mqtt: connected") })
        let connections = (0..<3).compactMap { _ in RawSocketConnection(path: daemon.socketPath) }
        #expect(connections.count == 3)
        let pid = try #require(daemon.pid)
        // The connections are accepted by now (a status answered after them).
        _ = await daemon.cli(["status"])
        var inherited: [String] = []
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fdinfo")) ?? [] {
            guard let number = Int32(entry), number > 2,
                  let info = try? String(contentsOfFile: "/proc/\(pid)/fdinfo/\(entry)", encoding: .utf8),
                  let flags = info.split(separator: "\n").first(where: { $0.hasPrefix("flags:") }).flatMap({ Int($0.dropFirst("flags:".count).trimmingCharacters(in: .whitespaces), radix: 8) })
            else { continue }
            if flags & Int(O_CLOEXEC) == 0 {
                let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(entry)")) ?? "?"
                inherited.append("\(number) \(target)")
            }
        }
        #expect(inherited.isEmpty, "a child would inherit: \(inherited)")
        _ = connections
    }

    @Test func aChildLeftBehindDiesWithItsExtensionAndSwitchesNothing() async throws {
        let daemon = try DaemonHarness(configuration: configuration())
        try await daemon.start()
        _ = await daemon.cli(["press", "orphan"])
        #expect(await daemon.waitUntil { report.contains { $0.hasPrefix("orphan ") } }, "\(report)")
        let orphan = try #require(report.last { $0.hasPrefix("orphan ") }.flatMap { pid_t($0.dropFirst("orphan ".count)) })
        // Its end is seen although the child holds its standard output, and the child goes with it.
        #expect(await daemon.waitUntil(timeout: .seconds(5)) { daemon.log.contains("extension hostile: exited with status 0; restarting") }, "\(daemon.log)")
        #expect(await daemon.waitUntil(timeout: .seconds(5)) { Self.isGone(orphan) }, "the orphan \(orphan) outlived its extension")
        // Nothing the child asked for is done any more.
        var seen = Set<String>()
        for _ in 0..<6 {
            seen.insert(await output(daemon, "porch") ?? "?")
            try await Task.sleep(for: .milliseconds(250))
        }
        #expect(seen.count == 1, "the porch kept switching: \(seen)")
        #expect(!daemon.log.contains("hung"), "\(daemon.log)")
    }

    /// As its own user too (through setpriv, whose change of user would clear the kernel's
    /// parent-death signal): a daemon killed outright takes the extension with it.
    @Test func itDoesNotOutliveTheDaemonKilledOutright() async throws {
        let wrapper = try Self.wrapperThatOutlives(executable, in: folder)
        let daemon = try DaemonHarness(configuration: configuration().replacingOccurrences(of: #""executable": "\#(executable)""#, with: #""executable": "\#(wrapper)""#))
        try await daemon.start()
        #expect(await daemon.waitUntil(timeout: .seconds(15)) { extensionPID(daemon) != nil }, "\(daemon.log)")
        let pid = try #require(extensionPID(daemon))
        #expect(await daemon.waitUntil { lastStart.contains { $0.hasPrefix("environment ") } }, "\(report)")
        #expect(await daemon.signal(SIGKILL) == 128 + SIGKILL)
        let gone = await eventually(within: .seconds(5)) { Self.isGone(pid) }
        #expect(gone, "the extension \(pid) outlived its daemon")
        if !gone { kill(pid, SIGKILL) }
    }

    @Test func aForkBombStopsAtItsLimitTheDaemonAnswersAndStopsAndNoChildSurvives() async throws {
        // Forking hundreds of times takes a sanitized extension far longer than 5 s (each fork
        // stops its runtime's world), and it can answer no status check meanwhile: the daemon
        // would kill it as hung before it reports. The daemon waits for its perform for a minute.
        let daemon = try DaemonHarness(configuration: configuration(timeout: "60s"))
        try await daemon.start()
        let group = try #require(extensionPID(daemon))
        let pressed = Task { await daemon.cli(["press", "bomb"]) }
        #expect(await daemon.waitUntil(timeout: .seconds(60)) { report.contains { $0.hasPrefix("bomb ") } }, "\(report)\n\(daemon.log)")
        let bomb = try #require(report.last { $0.hasPrefix("bomb ") }).split(separator: " ")
        let forked = Int(bomb[1]) ?? -1
        #expect(Int32(bomb[2]) == EAGAIN && forked < 600, "the bomb was stopped by its cap, not by its limit: forked \(forked)")
        _ = await pressed.value
        // The daemon answers the CLI meanwhile, and switches what it is asked to.
        let started = ContinuousClock.now
        let on = await daemon.cli(["on", "porch"])
        #expect(on.status == 0, "\(on.stderr)")
        #expect(started.duration(to: .now) < .seconds(5))
        #expect(await output(daemon, "porch") == "on")
        // Each child it left running (it ends a few once at its limit, to live on) is in its group.
        let left = bomb.dropFirst(3).first.flatMap { Int($0) } ?? -1
        let members = Self.members(of: group).count
        #expect(left > 0 && members > left, "the bomb's \(left) children are in the extension's group: \(members) members; \(daemon.log)")
        // SIGTERM stops it, and takes the extension's whole group with it.
        let stopping = ContinuousClock.now
        #expect(await daemon.signal(SIGTERM) == 0, "\(daemon.log)")
        #expect(stopping.duration(to: .now) < .seconds(10))
        #expect(await daemon.waitUntil(timeout: .seconds(5)) { Self.members(of: group).isEmpty }, "left: \(Self.members(of: group).count)")
    }

    @Test func itsOwnDeviceCallsObeyTheLockAsEveryOtherDoorDoes() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTObserver(port: broker.port, filter: "switchboard/#")
        let daemon = try DaemonHarness(configuration: configuration(port: broker.port))
        try await daemon.start()
        #expect(await daemon.waitUntil { await daemon.cli(["status"]).stdout.contains("mqtt: connected") })
        // The extension's own control on the porch requires authentication too, once it drives it.
        #expect(await daemon.cli(["press", "guarded"]).status == 0)
        #expect(await daemon.cli(["lock"]).status == 0)
        // The garage door requires authentication: over MQTT, while locked, it is refused…
        observer.publish("switchboard/sandbox/controls/garage/set", #"{"value": "ON", "transaction": "g1"}"#)
        let refused = await observer.waitFor("switchboard/sandbox/controls/garage/result") { $0.text?.contains("g1") == true }?.text
        #expect(refused?.contains("authenticationRequired") == true, "\(refused ?? "none")")
        // …and so is the extension's own change of it, asked for over MQTT too (its button needs
        // no authentication, the garage does).
        observer.publish("switchboard/sandbox/controls/sneak/set", #"{"value": "PRESS", "transaction": "s1"}"#)
        let sneaked = await observer.waitFor("switchboard/sandbox/controls/sneak/result") { $0.text?.contains("s1") == true }?.text
        #expect(sneaked?.contains(#""outcome":"performed""#) == false, "\(sneaked ?? "none")")
        #expect(await daemon.waitUntil { report.contains { $0.hasPrefix("sneak garage ") } })
        let line = report.last { $0.hasPrefix("sneak garage ") } ?? ""
        #expect(line.contains("refused: Switchboard is locked and Garage Door (\"garage\") is driven by \"garage-door\", which requires authentication"), "\(line)")
        #expect(line.contains("switchboard unlock"), "the refusal says what to do: \(line)")
        #expect(await output(daemon, "garage") == "off", "nothing moved")
        observer.publish("switchboard/sandbox/controls/sneak-porch/set", #"{"value": "PRESS", "transaction": "p1"}"#)
        #expect(await daemon.waitUntil { report.contains { $0.hasPrefix("sneak porch ") } })
        let porch = report.last { $0.hasPrefix("sneak porch ") } ?? ""
        #expect(porch.contains("refused: Switchboard is locked and Porch Light (\"porch\") is driven by \"hostile.guarded\""), "\(porch)")
        #expect(await output(daemon, "porch") == "off")
        // The local CLI is authenticated: what it asks the extension to do is done, as its own
        // commands are.
        let local = await daemon.cli(["press", "sneak"])
        #expect(local.status == 0, "\(local.stderr)")
        #expect(await output(daemon, "garage") == "on")
    }
}
