import ControlKit
import Foundation
import SwitchboardTesting
import Testing

/// docs/recipes.md's relay board, as the page shows it: its devices.json is checked and served
/// on simulated chips with a real broker and a stand-in Tasmota plug, and each recipe's steps are
/// taken through the CLI as the page tells a reader to take them.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct RecipesTests {
    /// The page's devices.json: its first `json` block.
    static func board() throws -> String {
        let page = try String(contentsOfFile: RepositoryFiles.path("docs/recipes.md"), encoding: .utf8)
        guard let start = page.range(of: "```json\n"), let end = page.range(of: "\n```", range: start.upperBound..<page.endIndex) else {
            throw HarnessError("docs/recipes.md has no json block")
        }
        return String(page[start.upperBound..<end.lowerBound])
    }

    /// A Tasmota plug on the broker: answers `cmnd/plug1/POWER` (empty: its state; `ON`/`OFF`:
    /// switches) on `stat/plug1/POWER`, and says `Online` on its last-will topic.
    func tasmotaPlug(_ port: Int) async throws -> (MQTTObserver, Task<Void, Never>) {
        let plug = try await MQTTObserver(port: port, filter: "cmnd/plug1/POWER")
        plug.publish("tele/plug1/LWT", "Online", retain: true)
        let answering = Task {
            var answered = 0, power = "OFF"
            while !Task.isCancelled {
                let requests = await plug.received(answered + 1, on: "cmnd/plug1/POWER", timeout: .seconds(30))
                for request in requests.dropFirst(answered) {
                    if let text = request.text, text == "ON" || text == "OFF" { power = text }
                    plug.publish("stat/plug1/POWER", power)
                }
                answered = requests.count
            }
        }
        return (plug, answering)
    }

    func shown(_ daemon: DaemonHarness, _ id: String) async -> ControlPresentation? {
        let result = await daemon.cli(["center", "--json"])
        return (try? JSONDecoder().decode([ControlPresentation].self, from: Data(result.stdout.utf8)))?.first { $0.id == id }
    }

    func statusLine(_ daemon: DaemonHarness, _ prefix: String) async -> String {
        await daemon.cli(["status"]).stdout.split(separator: "\n").first { $0.hasPrefix(prefix) }.map(String.init) ?? ""
    }

    @Test func theRelayBoardOfThePageDoesWhatThePageSays() async throws {
        let broker = try await MosquittoBroker()
        let (_, answering) = try await tasmotaPlug(broker.port)
        defer { answering.cancel() }
        let homeAssistant = try await MQTTObserver(port: broker.port, filter: "homeassistant/#")
        let board = try Self.board()
        #expect(board.contains(#""port": 1883"#), "the page's file uses the broker's usual port")
        let daemon = try DaemonHarness(configuration: board.replacingOccurrences(of: #""port": 1883"#, with: #""port": \#(broker.port)"#))
        let check = await daemon.cli(["check", daemon.configPath, "--simulate"])
        #expect(check.status == 0 && check.stdout.contains("valid: node house, 8 devices, 4 controls, 9 placements"), "\(check)")
        try await daemon.start()
        #expect(await daemon.waitUntil { await statusLine(daemon, "control plug ") == "control plug Desk Plug Off" }, "the plug answered the state request")

        // A wall button with three press kinds.
        var press = await daemon.cli(["button", "hall-button", "--hold", "100ms"])
        #expect(press.status == 0 && press.stdout == "short: hall On\n", "\(press)")
        press = await daemon.cli(["button", "hall-button", "--double"])
        #expect(press.status == 0 && press.stdout == "double: porch On\n", "\(press)")
        #expect(await statusLine(daemon, "button hall-button") == "button hall-button: short → hall, double → porch, long → all-off; last press: double: porch On")

        // The scene on the Action button: every device off, the plug confirming on its topic.
        #expect(await daemon.cli(["on", "plug"]).status == 0)
        press = await daemon.cli(["button", "action", "--hold", "1s"])
        #expect(press.status == 0 && press.stdout.hasPrefix("hint: Hold for All Off\n") && press.stdout.contains("performed: All Off"), "\(press)")
        for id in ["hall", "porch", "plug"] { #expect(await shown(daemon, id)?.value == false, "\(id) is off after the scene") }
        press = await daemon.cli(["button", "hall-button", "--hold", "1s"])
        #expect(press.status == 0 && press.stdout.hasPrefix("long: all-off"), "\(press)")

        // The blind as a cover, closed by its end stop.
        #expect(await daemon.cli(["on", "blind"]).status == 0)
        #expect(await statusLine(daemon, "output blind-up") == "output blind-up: on")
        #expect(await daemon.waitUntil { await shown(daemon, "blind")?.valueText?.hasPrefix("Opening…") == true })
        #expect(await daemon.cli(["press", "blind-stop"]).status == 0)
        #expect(await shown(daemon, "blind")?.valueText?.hasPrefix("Stopped at ") == true)
        #expect(await statusLine(daemon, "output blind-up") == "output blind-up: off")
        #expect(await daemon.cli(["off", "blind"]).status == 0)
        #expect(await daemon.waitUntil { await statusLine(daemon, "output blind-down") == "output blind-down: on" })
        #expect(await daemon.cli(["input", "blind-bottom", "active"]).status == 0)
        #expect(await daemon.waitUntil { await shown(daemon, "blind")?.valueText == "Closed" })
        #expect(await statusLine(daemon, "output blind-down") == "output blind-down: off", "the end stop stopped the motor")
        let cover = await homeAssistant.waitFor("homeassistant/cover/house/blind/config")?.text ?? ""
        #expect(cover.contains(#""device_class":"blind""#), "\(cover)")

        // The garage door from its reed switch.
        #expect(await daemon.cli(["input", "garage-closed", "active"]).status == 0)
        #expect(await daemon.waitUntil { await shown(daemon, "garage")?.valueText == "Closed" })
        let open = await daemon.cli(["on", "garage"])
        #expect(open.status == 0, "\(open)")
        #expect(await shown(daemon, "garage")?.valueText == "Closed", "the pulse alone moves nothing the reed saw")
        #expect(await daemon.cli(["input", "garage-closed", "inactive"]).status == 0)
        #expect(await daemon.waitUntil { await shown(daemon, "garage")?.valueText?.hasPrefix("Opening") == true })

        // The hall light when the garage door opens.
        #expect(await daemon.waitUntil { await statusLine(daemon, "output hall") == "output hall: on" }, "\(daemon.log)")
        let automation = await statusLine(daemon, "automation garage-light")
        #expect(automation.hasPrefix("automation garage-light: when garage becomes on: on hall, wait 5m, off hall; running since "), "\(automation)")
        #expect(automation.hasSuffix(" UTC: garage became Opening…: on hall: performed (On); waiting 5m; last none yet"), "\(automation)")

        // The plug that says when it is gone.
        let plug = try await MQTTObserver(port: broker.port, filter: "tele/plug1/LWT")
        plug.publish("tele/plug1/LWT", "Offline", retain: true)
        #expect(await daemon.waitUntil { await statusLine(daemon, "control plug ") == "control plug Desk Plug Off (stale): offline: tele/plug1/LWT said Offline" })
        #expect(await daemon.cli(["health"]).status == 1)
        plug.publish("tele/plug1/LWT", "Online", retain: true)
        #expect(await daemon.waitUntil { await statusLine(daemon, "control plug ") == "control plug Desk Plug Off" })

        // The porch light at sunset, and a schedule paused and resumed.
        #expect(await statusLine(daemon, "schedule porch-at-dusk").hasPrefix("schedule porch-at-dusk: sunset -15m: on porch; next "))
        #expect(await daemon.cli(["schedule", "pause", "lights-out"]).status == 0)
        #expect(await statusLine(daemon, "schedule lights-out") == "schedule lights-out: 23:30: press all-off; paused; last none yet")
        #expect(await daemon.cli(["schedule", "resume", "lights-out"]).status == 0)
        #expect(await statusLine(daemon, "schedule lights-out").hasPrefix("schedule lights-out: 23:30: press all-off; next "))
    }
}
