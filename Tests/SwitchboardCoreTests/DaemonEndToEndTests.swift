import ControlKit
import Foundation
import SwitchboardCore
import SwitchboardTesting
import Testing

/// The real `switchboard` CLI against a real `switchboardd` on simulated GPIO.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct DaemonEndToEndTests {
    static let sample = try! String(contentsOfFile: RepositoryFiles.samplePath, encoding: .utf8)

    func outputs(_ daemon: DaemonHarness) throws -> [String: Bool] {
        let result = daemon.cli(["status"])
        try #require(result.status == 0, "\(result.stderr)")
        var values: [String: Bool] = [:]
        for line in result.stdout.split(separator: "\n") where line.hasPrefix("output ") {
            let parts = line.dropFirst(7).split(separator: ":")
            values[String(parts[0])] = parts[1].contains("on")
        }
        return values
    }

    func center(_ daemon: DaemonHarness) throws -> [ControlPresentation] {
        let result = daemon.cli(["center", "--json"])
        try #require(result.status == 0, "\(result.stderr)")
        return try JSONDecoder().decode([ControlPresentation].self, from: Data(result.stdout.utf8))
    }

    @Test func cliShowsAndSwitchesTheSampleControls() throws {
        let daemon = try DaemonHarness(configuration: Self.sample)
        try daemon.start()
        let placed = try center(daemon)
        #expect(placed.map(\.id) == ["porch", "fan", "garage", "kitchen", "porch-lock", "action"])
        #expect(placed.map(\.space) == [.controlCenter, .controlCenter, .controlCenter, .controlCenter, .lockScreen, .actionButton])
        #expect(placed.map(\.size) == [.medium, .large, .small, .medium, nil, nil])
        #expect(placed[0].valueText == "Off" && placed[0].actionHint == "Hold to Turn On Porch Light")
        #expect(placed[1].valueText == "Stopped" && placed[1].actionHint == "Hold to Start")
        #expect(placed[3].stale, "the Zigbee2MQTT light has no state until MQTT reports one")

        let toggled = daemon.cli(["toggle", "porch"])
        #expect(toggled.status == 0)
        #expect(toggled.stdout == "porch Porch Light On\n")
        #expect(try outputs(daemon) == ["fan": false, "garage": false, "porch": true, "status-led": false])

        let fan = daemon.cli(["on", "fan"])
        #expect(fan.stdout == "fan Attic Fan Running — Off in 10:00\n")

        let unknown = daemon.cli(["toggle", "attic"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "switchboard: control \"attic\": no such placed control; placed controls: porch, fan, garage, kitchen, porch-lock, action\n")
        let wrong = daemon.cli(["press", "porch"])
        #expect(wrong.status == 1)
        #expect(wrong.stderr == "switchboard: control \"porch\": is a toggle: send ON, OFF or TOGGLE, not PRESS\n")
        #expect(daemon.cli(["frobnicate"]).status == 2)
        #expect(DaemonHarness.run(BuiltProducts.path(of: "switchboard"), ["--socket", daemon.directory + "/nothing.sock", "status"]).status == 3)

        let terminal = daemon.cli(["center"])
        #expect(terminal.stdout.contains("│● Porch Light    │"))
        #expect(terminal.stdout.contains("Action button action: ● Porch Light — Hold to Turn Off Porch Light"))
        #expect(daemon.signal(SIGTERM) == 0)
        #expect(daemon.log.contains("info: switchboardd stopped"))
    }

    @Test func configurableControlIsAddedConfiguredAndKeptAcrossRestart() throws {
        let daemon = try DaemonHarness(configuration: Self.sample)
        try daemon.start()
        let added = daemon.cli(["add", "light", "--size", "large", "--id", "hall"])
        #expect(added.status == 0)
        #expect(added.stdout == "placed hall Light (needs configuring)\n")
        #expect(daemon.cli(["toggle", "hall"]).status == 1)
        let configured = daemon.cli(["configure", "hall", "--device", "porch"])
        #expect(configured.stdout == "hall Porch Light Off\n")
        #expect(daemon.cli(["configure", "hall", "--device", "attic"]).stderr.contains("\"attic\" is not one of porch, kitchen"))
        // Options may come first, as a user may write them.
        #expect(daemon.cli(["configure", "--device", "kitchen", "hall"]).stdout.hasPrefix("hall Kitchen Light"))
        #expect(daemon.cli(["configure", "--device", "porch", "hall"]).stdout == "hall Porch Light Off\n")
        let addedFirst = daemon.cli(["add", "--id", "hall2", "--device", "porch", "light"])
        #expect(addedFirst.stdout == "placed hall2 Porch Light Off\n", "\(addedFirst.stderr)")
        #expect(daemon.cli(["remove", "hall2"]).status == 0)
        #expect(daemon.cli(["remove", "porch-lock"]).status == 0)
        #expect(daemon.cli(["lock"]).stdout == "locked\n")

        #expect(daemon.signal(SIGTERM) == 0)
        try daemon.start()
        let placed = try center(daemon)
        #expect(placed.map(\.id) == ["porch", "fan", "garage", "kitchen", "action", "hall"])
        #expect(placed.last?.title == "Porch Light")
        #expect(daemon.cli(["status"]).stdout.hasPrefix("node garage-pi, locked\n"))
    }

    @Test func sighupAppliesAGoodFileAndKeepsTheRunningOneForABadFile() throws {
        let daemon = try DaemonHarness(configuration: Self.sample)
        try daemon.start()
        #expect(daemon.cli(["on", "porch"]).status == 0)

        try daemon.writeConfiguration(Self.sample.replacingOccurrences(of: #""line": 27"#, with: #""line": 99"#))
        daemon.signal(SIGHUP)
        #expect(daemon.waitUntil { daemon.log.contains("keeping the running configuration") })
        #expect(daemon.log.contains("devices[1].gpio.line: 99 is out of range for gpiochip0 (0…53)"))
        #expect(try center(daemon).count == 6)

        let renamed = Self.sample.replacingOccurrences(of: #""title": "Attic Fan""#, with: #""title": "Loft Fan""#)
        try daemon.writeConfiguration(renamed)
        daemon.signal(SIGHUP)
        #expect(daemon.waitUntil { daemon.log.contains("reloaded: node garage-pi") })
        #expect(try center(daemon).first { $0.id == "fan" }?.title == "Loft Fan")
        #expect(try outputs(daemon)["porch"] == true, "outputs keep their level across a reload")
        // Each configuration's services run once: the stopped one is never run again while the
        // next starts.
        #expect(daemon.waitUntil { daemon.log.contains("configuration 2 serving") })
        #expect(daemon.cli(["status"]).status == 0)
        #expect(daemon.log.components(separatedBy: "serving").count - 1 == 2, "\(daemon.log)")
    }

    @Test func invalidFileStartsNothingAndCheckReportsEveryProblem() throws {
        let broken = Self.sample.replacingOccurrences(of: #""device": "fan""#, with: #""device": "attic""#)
            .replacingOccurrences(of: #""line": 17"#, with: #""line": 99"#)
        let daemon = try DaemonHarness(configuration: broken)
        #expect(throws: HarnessError.self) { try daemon.start(timeout: .seconds(5)) }
        #expect(daemon.log.contains("controls[1].device: \"attic\" is not a device"))
        #expect(!FileManager.default.fileExists(atPath: daemon.stateDirectory + "/state.json"))

        let check = DaemonHarness.run(BuiltProducts.path(of: "switchboard"), ["check", daemon.configPath, "--simulate"])
        #expect(check.status == 4)
        #expect(check.stderr.hasSuffix("1 problem:\n  controls[1].device: \"attic\" is not a device\n"))
        let fixed = DaemonHarness.run(BuiltProducts.path(of: "switchboard"), ["check", RepositoryFiles.samplePath, "--simulate"])
        #expect(fixed.status == 0)
        #expect(fixed.stdout.hasSuffix("valid: node garage-pi, 5 devices, 4 controls, 6 placements (simulated chips)\n"))
        // As the advice "add --simulate" may be followed: before the file.
        let flagFirst = DaemonHarness.run(BuiltProducts.path(of: "switchboard"), ["check", "--simulate", RepositoryFiles.samplePath])
        #expect(flagFirst.status == 0 && flagFirst.stdout == fixed.stdout, "\(flagFirst.stderr)")

        // A password file the daemon could not read stops its start: check says so first.
        try daemon.writeConfiguration(Self.sample.replacingOccurrences(of: #""discovery": true"#, with: #""discovery": true, "username": "garage", "passwordFile": "/nonexistent/mqtt-password""#))
        let unreadable = DaemonHarness.run(BuiltProducts.path(of: "switchboard"), ["check", daemon.configPath, "--simulate"])
        #expect(unreadable.status == 4)
        #expect(unreadable.stderr.contains("mqtt.passwordFile: /nonexistent/mqtt-password cannot be read by "), "\(unreadable.stderr)")
    }

    @Test func killDuringToggleStreamRestoresTheLastAcknowledgedState() throws {
        let daemon = try DaemonHarness(configuration: Self.sample)
        try daemon.start()
        var acknowledged: [String: Bool] = [:]
        for index in 0..<60 {
            let id = index % 2 == 0 ? "porch" : "fan"
            let result = daemon.cli([index % 3 == 0 ? "on" : "toggle", id])
            guard result.status == 0 else { break }
            acknowledged[id] = result.stdout.contains(" On") || result.stdout.contains("Running")
            if index == 41 { daemon.signal(SIGKILL) }
        }
        let state = try StateFile(directory: daemon.stateDirectory).load()
        #expect(state.outputs["porch"] == acknowledged["porch"])
        try daemon.start()
        let restored = try outputs(daemon)
        #expect(restored["porch"] == acknowledged["porch"], "porch restores its last value")
        #expect(restored["fan"] == false, "the fan's restore policy is off")
    }

    @Test func autoOffDeadlineSurvivesARestart() throws {
        let daemon = try DaemonHarness(configuration: Self.sample.replacingOccurrences(of: #""autoOff": "10m""#, with: #""autoOff": "3s""#)
            .replacingOccurrences(of: #""restore": "off" },"#, with: #""restore": "last" },"#))
        try daemon.start()
        let started = ContinuousClock.now
        #expect(daemon.cli(["on", "fan"]).stdout == "fan Attic Fan Running — Off in 0:03\n")
        #expect(daemon.signal(SIGTERM) == 0)
        try daemon.start()
        let status = try center(daemon).first { $0.id == "fan" }
        #expect(status?.value == true)
        #expect(status?.status?.hasPrefix("Off in 0:0") == true)
        #expect(daemon.waitUntil(timeout: .seconds(10)) { (try? outputs(daemon)["fan"]) == false })
        #expect(ContinuousClock.now - started >= .seconds(3))
        // The line switches first; the control's reload follows it.
        #expect(daemon.waitUntil(timeout: .seconds(5)) { (try? center(daemon))?.first { $0.id == "fan" }.map { $0.status == nil } == true })
        #expect(try center(daemon).first { $0.id == "fan" }?.value == false)
    }
}
