import ControlKit
import Foundation
import SwitchboardCore
import SwitchboardGPIO
import SwitchboardSupport
import SwitchboardTesting
import Testing
@testable import SwitchboardConfiguration

/// A push-button on the simulated chip, with the manual clock: a short press toggles the porch,
/// a double press the fan, a long press the garage door.
///
/// On the manual clock it takes a second alone; in the whole suite under ThreadSanitizer, every one
/// of its hundreds of yields waits behind the other tests' tasks: 43 to 59 s seen, hence 2 minutes.
@Suite(.timeLimit(.minutes(2)))
struct ButtonServiceTests {
    static let configuration = #"""
    {
      "node": "hall",
      "chips": [ { "id": "main", "chip": "header" } ],
      "devices": [
        { "id": "porch", "name": "Porch Light", "type": "relay", "gpio": { "chip": "main", "line": 17 }, "restore": "off" },
        { "id": "fan", "name": "Attic Fan", "type": "relay", "gpio": { "chip": "main", "line": 27 }, "restore": "off" }
      ],
      "controls": [
        { "kind": "porch", "template": "toggle", "device": "porch" },
        { "kind": "fan", "template": "toggle", "device": "fan" }
      ],
      "placements": [ { "id": "porch", "control": "porch" }, { "id": "fan", "control": "fan" } ],
      "buttons": [
        { "id": "hall", "gpio": { "chip": "main", "line": 6, "bias": "pullUp", "activeLow": true, "debounce": "20ms" },
          "short": "porch", "double": "fan", "longTime": "800ms", "doubleWindow": "300ms" }
      ]
    }
    """#
    static let button = GPIOLineSelector.offset(6)

    let clock = ManualClock()
    let chip: SimulatedGPIOChip
    init() { chip = SimulatedGPIOChip(lineCount: 54, clock: clock) }

    /// Moves the clock to `offset` and drives the button there (active low: pressed is low);
    /// the debounce window then passes.
    func drive(pressed: Bool, at offset: Duration) async throws {
        clock.advance(to: OffsetInstant(offset: offset))
        try chip.drive(Self.button, high: !pressed)
        // The debounce window's own sleeper, by its deadline: counting sleepers was fooled by a
        // timer the advance woke that slept again, and the clock then moved on before the window
        // was set (under ThreadSanitizer, a test that waited for ever).
        await clock.waitForSleeper(until: OffsetInstant(offset: offset + .milliseconds(20)))
        clock.advance(by: .milliseconds(20))
        for _ in 0..<50 { await Task.yield() }
    }

    @Test func shortDoubleAndLongPressesDoWhatTheyAreBoundTo() async throws {
        let configuration = try ConfigurationLoader.load(data: Data(Self.configuration.utf8))
        let node = try await NodeRuntime(configuration: configuration, chips: ["main": chip], persisted: PersistedState(), stateFile: nil, log: Log(), clock: clock)
        var clicks = node.buttons["hall"]!.clicks.subscribe().makeAsyncIterator()
        try await withRunningService({ await node.runServices() }) {
            // Short: pressed for 100 ms, then the 300 ms window closes.
            try await drive(pressed: true, at: .seconds(1))
            try await drive(pressed: false, at: .milliseconds(1100))
            // The window is set once the release has been handled: on a slow machine later than
            // the yields above; advancing first would leave it waiting for ever.
            await clock.waitForSleeper(until: OffsetInstant(offset: .milliseconds(1400)))
            clock.advance(to: OffsetInstant(offset: .milliseconds(1420)))
            let short = await clicks.next()
            #expect(short?.click == "short" && short?.outcome == "porch On")
            #expect(try chip.physicalLevel(.offset(17)) == true)

            // Double: two presses 150 ms apart.
            try await drive(pressed: true, at: .seconds(3))
            try await drive(pressed: false, at: .milliseconds(3100))
            try await drive(pressed: true, at: .milliseconds(3250))
            try await drive(pressed: false, at: .milliseconds(3350))
            let double = await clicks.next()
            #expect(double?.click == "double" && double?.outcome == "fan On")
            #expect(try chip.physicalLevel(.offset(27)) == true)
            #expect(try chip.physicalLevel(.offset(17)) == true, "the double press did not toggle the porch")

            // Long: held; nothing is bound, and it is still told.
            try await drive(pressed: true, at: .seconds(5))
            await clock.waitForSleeper(until: OffsetInstant(offset: .milliseconds(5800)))
            clock.advance(to: OffsetInstant(offset: .milliseconds(5820)))
            let long = await clicks.next()
            #expect(long?.click == "long" && long?.outcome == nil)
            try await drive(pressed: false, at: .seconds(7))
            node.stopServices()
        }
        node.shutdown()
    }

    @Test func aButtonBoundToNoPlacementIsAProblem() {
        let file = Self.configuration.replacingOccurrences(of: #""double": "fan""#, with: #""double": "nope""#)
        var problems: [String] = []
        do { _ = try ConfigurationLoader.load(data: Data(file.utf8)) } catch let error as ConfigurationError {
            problems = error.problems.map(\.description)
        } catch {}
        #expect(problems == [#"buttons[0].double: "nope" is not a placement; placements: porch, fan"#])
    }
}
