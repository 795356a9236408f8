import ControlKit
import Foundation
import SwitchboardCore
import SwitchboardTesting
import Testing

/// The real `switchboard` CLI against a real `switchboardd` on simulated GPIO.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct DaemonEndToEndTests {
    static let sample = try! String(contentsOfFile: RepositoryFiles.samplePath, encoding: .utf8)

    func outputs(_ daemon: DaemonHarness) async throws -> [String: Bool] {
        let result = await daemon.cli(["status"])
        try #require(result.status == 0, "\(result.stderr)")
        var values: [String: Bool] = [:]
        for line in result.stdout.split(separator: "\n") where line.hasPrefix("output ") {
            let parts = line.dropFirst(7).split(separator: ":")
            values[String(parts[0])] = parts[1].contains("on")
        }
        return values
    }

    func center(_ daemon: DaemonHarness) async throws -> [ControlPresentation] {
        let result = await daemon.cli(["center", "--json"])
        try #require(result.status == 0, "\(result.stderr)")
        return try JSONDecoder().decode([ControlPresentation].self, from: Data(result.stdout.utf8))
    }

    @Test func cliShowsAndSwitchesTheSampleControls() async throws {
        let daemon = try DaemonHarness(configuration: Self.sample)
        try await daemon.start()
        let placed = try await center(daemon)
        #expect(placed.map(\.id) == ["porch", "fan", "garage", "kitchen", "porch-lock", "action"])
        #expect(placed.map(\.space) == [.controlCenter, .controlCenter, .controlCenter, .controlCenter, .lockScreen, .actionButton])
        #expect(placed.map(\.size) == [.medium, .large, .small, .medium, nil, nil])
        #expect(placed[0].valueText == "Off" && placed[0].actionHint == "Hold to Turn On Porch Light")
        #expect(placed[1].valueText == "Stopped" && placed[1].actionHint == "Hold to Start")
        #expect(placed[3].stale, "the Zigbee2MQTT light has no state until MQTT reports one")

        let toggled = await daemon.cli(["toggle", "porch"])
        #expect(toggled.status == 0)
        #expect(toggled.stdout == "porch Porch Light On\n")
        #expect(try await outputs(daemon) == ["fan": false, "garage": false, "porch": true, "status-led": false])

        let fan = await daemon.cli(["on", "fan"])
        #expect(fan.stdout == "fan Attic Fan Running — Off in 10:00\n")

        let unknown = await daemon.cli(["toggle", "attic"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "switchboard: control \"attic\": no such placed control; placed controls: porch, fan, garage, kitchen, porch-lock, action\n")
        let wrong = await daemon.cli(["press", "porch"])
        #expect(wrong.status == 1)
        #expect(wrong.stderr == "switchboard: control \"porch\": is a toggle: send ON, OFF or TOGGLE, not PRESS\n")
        #expect(await daemon.cli(["frobnicate"]).status == 2)
        #expect(await DaemonHarness.run(BuiltProducts.path(of: "switchboard"), ["--socket", daemon.directory + "/nothing.sock", "status"]).status == 3)

        let terminal = await daemon.cli(["center"])
        #expect(terminal.stdout.contains("│● Porch Light    │"))
        #expect(terminal.stdout.contains("Action button action: ● Porch Light — Hold to Turn Off Porch Light"))
        #expect(await daemon.signal(SIGTERM) == 0)
        #expect(daemon.log.contains("info: switchboardd stopped"))
    }

    /// The daemon links FoundationEssentials, never the whole of Foundation (and its ICU data):
    /// one `import Foundation` in a module it links costs about 4 MiB of resident memory.
    @Test func theDaemonLoadsFoundationEssentialsOnly() async throws {
        let daemon = try DaemonHarness(configuration: Self.sample)
        try await daemon.start()
        let pid = try #require(daemon.pid)
        // Read to its end: /proc files say they are empty, so a read sized by stat gets nothing.
        let maps = String(decoding: try #require(FileHandle(forReadingAtPath: "/proc/\(pid)/maps")).readDataToEndOfFile(), as: UTF8.self)
        let libraries = Set(maps.split(separator: "\n").compactMap { $0.split(separator: "/").last.map(String.init) }.filter { $0.hasSuffix(".so") })
        #expect(libraries.contains("libswiftCore.so"), "the suite's daemon links the Swift libraries dynamically: \(libraries.sorted())")
        #expect(libraries.contains("libFoundationEssentials.so"))
        #expect(!libraries.contains("libFoundation.so"))
    }

    @Test func configurableControlIsAddedConfiguredAndKeptAcrossRestart() async throws {
        let daemon = try DaemonHarness(configuration: Self.sample)
        try await daemon.start()
        let added = await daemon.cli(["add", "light", "--size", "large", "--id", "hall"])
        #expect(added.status == 0)
        #expect(added.stdout == "placed hall Light (needs configuring)\n")
        #expect(await daemon.cli(["toggle", "hall"]).status == 1)
        let configured = await daemon.cli(["configure", "hall", "--device", "porch"])
        #expect(configured.stdout == "hall Porch Light Off\n")
        #expect(await daemon.cli(["configure", "hall", "--device", "attic"]).stderr.contains("\"attic\" is not one of porch, kitchen"))
        // Options may come first, as a user may write them.
        #expect(await daemon.cli(["configure", "--device", "kitchen", "hall"]).stdout.hasPrefix("hall Kitchen Light"))
        #expect(await daemon.cli(["configure", "--device", "porch", "hall"]).stdout == "hall Porch Light Off\n")
        let addedFirst = await daemon.cli(["add", "--id", "hall2", "--device", "porch", "light"])
        #expect(addedFirst.stdout == "placed hall2 Porch Light Off\n", "\(addedFirst.stderr)")
        #expect(await daemon.cli(["remove", "hall2"]).status == 0)
        #expect(await daemon.cli(["remove", "porch-lock"]).status == 0)
        #expect(await daemon.cli(["lock"]).stdout == "locked\n")

        #expect(await daemon.signal(SIGTERM) == 0)
        try await daemon.start()
        let placed = try await center(daemon)
        #expect(placed.map(\.id) == ["porch", "fan", "garage", "kitchen", "action", "hall"])
        #expect(placed.last?.title == "Porch Light")
        #expect(await daemon.cli(["status"]).stdout.hasPrefix("node garage-pi, locked\n"))
    }

    @Test func sighupAppliesAGoodFileAndKeepsTheRunningOneForABadFile() async throws {
        let daemon = try DaemonHarness(configuration: Self.sample)
        try await daemon.start()
        #expect(await daemon.cli(["on", "porch"]).status == 0)

        try daemon.writeConfiguration(Self.sample.replacingOccurrences(of: #""line": 27"#, with: #""line": 99"#))
        await daemon.signal(SIGHUP)
        #expect(await daemon.waitUntil { daemon.log.contains("keeping the running configuration") })
        #expect(daemon.log.contains("devices[1].gpio.line: 99 is out of range for gpiochip0 (0…53)"))
        #expect(try await center(daemon).count == 6)

        let renamed = Self.sample.replacingOccurrences(of: #""title": "Attic Fan""#, with: #""title": "Loft Fan""#)
        try daemon.writeConfiguration(renamed)
        await daemon.signal(SIGHUP)
        #expect(await daemon.waitUntil { daemon.log.contains("reloaded: node garage-pi") })
        #expect(try await center(daemon).first { $0.id == "fan" }?.title == "Loft Fan")
        #expect(try await outputs(daemon)["porch"] == true, "outputs keep their level across a reload")
        // Each configuration's services run once: the stopped one is never run again while the
        // next starts.
        #expect(await daemon.waitUntil { daemon.log.contains("configuration 2 serving") })
        #expect(await daemon.cli(["status"]).status == 0)
        #expect(daemon.log.components(separatedBy: "serving").count - 1 == 2, "\(daemon.log)")
    }

    @Test func invalidFileStartsNothingAndCheckReportsEveryProblem() async throws {
        let broken = Self.sample.replacingOccurrences(of: #""device": "fan""#, with: #""device": "attic""#)
            .replacingOccurrences(of: #""line": 17"#, with: #""line": 99"#)
        let daemon = try DaemonHarness(configuration: broken)
        await #expect(throws: HarnessError.self) { try await daemon.start(timeout: .seconds(5)) }
        #expect(daemon.log.contains("controls[1].device: \"attic\" is not a device"))
        #expect(!FileManager.default.fileExists(atPath: daemon.stateDirectory + "/state.json"))

        let check = await DaemonHarness.run(BuiltProducts.path(of: "switchboard"), ["check", daemon.configPath, "--simulate"])
        #expect(check.status == 4)
        #expect(check.stderr.hasSuffix("1 problem:\n  controls[1].device: \"attic\" is not a device\n"))
        let fixed = await DaemonHarness.run(BuiltProducts.path(of: "switchboard"), ["check", RepositoryFiles.samplePath, "--simulate"])
        #expect(fixed.status == 0)
        #expect(fixed.stdout.hasSuffix("valid: node garage-pi, 5 devices, 4 controls, 6 placements (simulated chips)\n"))
        // As the advice "add --simulate" may be followed: before the file.
        let flagFirst = await DaemonHarness.run(BuiltProducts.path(of: "switchboard"), ["check", "--simulate", RepositoryFiles.samplePath])
        #expect(flagFirst.status == 0 && flagFirst.stdout == fixed.stdout, "\(flagFirst.stderr)")

        // A password file the daemon could not read stops its start: check says so first.
        try daemon.writeConfiguration(Self.sample.replacingOccurrences(of: #""discovery": true"#, with: #""discovery": true, "username": "garage", "passwordFile": "/nonexistent/mqtt-password""#))
        let unreadable = await DaemonHarness.run(BuiltProducts.path(of: "switchboard"), ["check", daemon.configPath, "--simulate"])
        #expect(unreadable.status == 4)
        #expect(unreadable.stderr.contains("mqtt.passwordFile: /nonexistent/mqtt-password does not exist (No such file or directory); create it, owned by "), "\(unreadable.stderr)")
    }

    @Test func killDuringToggleStreamRestoresTheLastAcknowledgedState() async throws {
        let daemon = try DaemonHarness(configuration: Self.sample)
        try await daemon.start()
        var acknowledged: [String: Bool] = [:]
        for index in 0..<60 {
            let id = index % 2 == 0 ? "porch" : "fan"
            let result = await daemon.cli([index % 3 == 0 ? "on" : "toggle", id])
            guard result.status == 0 else { break }
            acknowledged[id] = result.stdout.contains(" On") || result.stdout.contains("Running")
            if index == 41 { await daemon.signal(SIGKILL) }
        }
        let state = try StateFile(directory: daemon.stateDirectory).load()
        #expect(state.outputs["porch"] == acknowledged["porch"])
        try await daemon.start()
        let restored = try await outputs(daemon)
        #expect(restored["porch"] == acknowledged["porch"], "porch restores its last value")
        #expect(restored["fan"] == false, "the fan's restore policy is off")
    }

    @Test func autoOffDeadlineSurvivesARestart() async throws {
        // Long enough to outlast the daemon's restart, also under emulation.
        let autoOff = TestTiming.seconds(3)
        let daemon = try DaemonHarness(configuration: Self.sample.replacingOccurrences(of: #""autoOff": "10m""#, with: #""autoOff": "\#(autoOff)s""#)
            .replacingOccurrences(of: #""restore": "off" },"#, with: #""restore": "last" },"#))
        try await daemon.start()
        let started = ContinuousClock.now
        #expect(await daemon.cli(["on", "fan"]).stdout == "fan Attic Fan Running — Off in 0:\(String(format: "%02d", autoOff))\n")
        #expect(await daemon.signal(SIGTERM) == 0)
        try await daemon.start()
        let status = try await center(daemon).first { $0.id == "fan" }
        #expect(status?.value == true)
        #expect(status?.status?.hasPrefix("Off in 0:") == true)
        #expect(await daemon.waitUntil(timeout: .seconds(TestTiming.seconds(10))) { (try? await outputs(daemon)["fan"]) == false })
        #expect(ContinuousClock.now - started >= .seconds(autoOff))
        // The line switches first; the control's reload follows it.
        #expect(await daemon.waitUntil(timeout: .seconds(5)) { (try? await center(daemon))?.first { $0.id == "fan" }.map { $0.status == nil } == true })
        #expect(try await center(daemon).first { $0.id == "fan" }?.value == false)
    }
}
