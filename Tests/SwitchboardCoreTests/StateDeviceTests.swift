import ControlKit
import Foundation
import SwitchboardCore
import SwitchboardGPIO
import SwitchboardTesting
import Testing
@testable import SwitchboardConfiguration
import SwitchboardSupport

/// A control whose value comes from another device than the one it drives, as in Apple's garage
/// door example: the toggle pulses the opener, and shows Open or Closed from the reed switch.
@Suite(.timeLimit(.minutes(1)))
struct StateDeviceTests {
    static let configuration = #"""
    {
      "node": "garage-pi",
      "chips": [ { "id": "main", "chip": "header" } ],
      "devices": [
        { "id": "opener", "name": "Garage Opener", "type": "pulse", "pulse": "300ms", "gpio": { "chip": "main", "line": 22 } },
        { "id": "contact", "name": "Garage Contact", "type": "input", "gpio": { "chip": "main", "line": 6, "bias": "pullUp", "activeLow": true, "debounce": "20ms" } }
      ],
      "controls": [
        {
          "kind": "garage-door", "template": "toggle", "title": "Garage Door", "device": "opener", "stateDevice": "contact",
          "symbols": { "on": "door.garage.open", "off": "door.garage.closed" }, "valueText": { "on": "Open", "off": "Closed" },
          "status": { "on": "Opening…", "off": "Closing…" }
        }
      ],
      "placements": [ { "id": "garage", "control": "garage-door" } ]
    }
    """#
    static let opener = GPIOLineSelector.offset(22)
    static let contact = GPIOLineSelector.offset(6)

    let clock = ManualClock()
    let chip: SimulatedGPIOChip
    init() { chip = SimulatedGPIOChip(lineCount: 54, clock: clock) }

    func node() async throws -> NodeRuntime {
        let configuration = try ConfigurationLoader.load(data: Data(Self.configuration.utf8))
        return try await NodeRuntime(configuration: configuration, chips: ["main": chip], persisted: PersistedState(), stateFile: nil, log: Log(), clock: clock)
    }

    @Test func theTogglePulsesTheOpenerAndShowsTheContact() async throws {
        let node = try await node()
        #expect(try await node.center.presentation(of: "garage").valueText == "Closed")
        var changes = node.center.changes().makeAsyncIterator()
        try await withRunningService({ await node.runServices() }) {
            // Open: one pulse of the opener, 300 ms on the clock.
            let center = node.center
            let perform = Task { try await center.perform("garage", .setValue(true)) }
            await clock.waitForSleepers(1)
            #expect(try chip.physicalLevel(Self.opener) == true)
            clock.advance(by: .milliseconds(300))
            _ = try await perform.value
            #expect(try chip.physicalLevel(Self.opener) == false)
            let moving = try await node.center.presentation(of: "garage")
            #expect(moving.valueText == "Closed", "the door has not reached its contact yet")
            #expect(moving.status == "Opening…", "the status of what was asked, not of what the contact says yet")

            // The contact closes (active low): the toggle reloads and shows Open.
            clock.advance(by: .seconds(5))
            try chip.drive(Self.contact, high: false)
            await clock.waitForSleepers(1)
            clock.advance(by: .milliseconds(20))
            var shown: ControlPresentation?
            while let change = await changes.next() {
                if case .presentation(let presentation) = change, presentation.valueText == "Open" { shown = presentation; break }
            }
            #expect(shown?.id == "garage" && shown?.value == true && shown?.symbol == "door.garage.open")

            // Asked to open what is open: nothing moves, and nothing says "Opening…".
            let again = try await node.center.perform("garage", .setValue(true))
            #expect(again.presentation.status == nil, "\(again.presentation)")
            #expect(again.presentation.valueText == "Open")
            // A pulse would wait 300 ms.
            #expect(clock.pendingDeadlines.allSatisfy { clock.now.duration(to: $0) != .milliseconds(300) }, "no pulse was started")
            #expect(try chip.physicalLevel(Self.opener) == false)
            node.stopServices()
        }
        node.shutdown()
    }

    @Test func stateDevicesThatCannotShowAStateAreProblems() {
        let file = Self.configuration
            .replacingOccurrences(of: #""stateDevice": "contact""#, with: #""stateDevice": "nope""#)
            .replacingOccurrences(of: #""placements""#, with: #""actionButtons": [], "placements""#)
        let pulse = Self.configuration.replacingOccurrences(of: #""stateDevice": "contact""#, with: #""stateDevice": "opener""#)
        for (text, expected) in [
            (file, #"controls[0].stateDevice: "nope" is not a device; devices: opener, contact"#),
            (pulse, #"controls[0].stateDevice: "opener" is a pulse output, which has no state to show; give an input, a relay or an mqtt device"#),
        ] {
            var problems: [String] = []
            do { _ = try ConfigurationLoader.load(data: Data(text.utf8)) } catch let error as ConfigurationError {
                problems = error.problems.map(\.description)
            } catch {}
            #expect(problems == [expected])
        }
    }
}
