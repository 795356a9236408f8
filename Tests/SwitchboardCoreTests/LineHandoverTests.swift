import Foundation
import SwitchboardCore
import SwitchboardGPIO
import SwitchboardTesting
import Testing
@testable import SwitchboardConfiguration

/// SIGHUP hands the output lines a new configuration drives the same way over still requested,
/// so a relay never drops to its pull while the daemon reloads.
@Suite struct LineHandoverTests {
    static let sample = try! String(contentsOfFile: RepositoryFiles.samplePath, encoding: .utf8)

    func load(_ text: String) throws -> SwitchboardConfiguration {
        try ConfigurationLoader.load(data: Data(text.utf8))
    }

    @Test func unchangedLinesStayRequestedAtTheirLevelAndMovedOnesAreReleased() async throws {
        let chip = SimulatedGPIOChip(lineCount: 54)
        let chips: [String: any GPIOChip] = ["main": chip]
        let first = try DeviceHub(configuration: load(Self.sample), chips: chips, persisted: PersistedState(), stateFile: nil)
        try await first.set("porch", to: true)

        // The fan moves from line 27 to 26; porch, garage and the status LED stay where they are.
        let moved = try load(Self.sample.replacingOccurrences(of: #""line": 27"#, with: #""line": 26"#))
        let handover = first.shutdown(handingOverTo: moved)
        #expect(handover.count == 3)
        #expect(try chip.consumer(of: .offset(17)) == "switchboard", "porch is still requested")
        #expect(try chip.physicalLevel(.offset(17)) == true)
        #expect(try chip.consumer(of: .offset(27)) == nil, "the fan's old line is released")

        // The persisted state says porch was off; the handed-over line's level wins.
        let second = try DeviceHub(configuration: moved, chips: chips, persisted: PersistedState(), stateFile: nil, handover: handover)
        #expect(handover.count == 0)
        #expect(try second.value(of: "porch") == true)
        #expect(second.persisted.outputs["porch"] == true)
        #expect(try chip.consumer(of: .offset(26)) == "switchboard")
    }

    @Test func changedLineSettingsAreAppliedInPlaceKeepingTheValue() async throws {
        let chip = SimulatedGPIOChip(lineCount: 54)
        let chips: [String: any GPIOChip] = ["main": chip]
        let first = try DeviceHub(configuration: load(Self.sample), chips: chips, persisted: PersistedState(), stateFile: nil)
        try await first.set("porch", to: true)
        #expect(try chip.physicalLevel(.offset(17)) == true)

        // The porch relay board turns out to be active-low: the line changes its settings, not its holder.
        let activeLow = try load(Self.sample.replacingOccurrences(of: #""line": 17 }"#, with: #""line": 17, "activeLow": true, "bias": "pullUp" }"#))
        let handover = first.shutdown(handingOverTo: activeLow)
        #expect(handover.count == 4)
        let second = try DeviceHub(configuration: activeLow, chips: chips, persisted: PersistedState(), stateFile: nil, handover: handover)
        #expect(handover.count == 0)
        #expect(try second.value(of: "porch") == true, "the light stays on")
        #expect(try chip.physicalLevel(.offset(17)) == false, "on is the low level now")
        #expect(try chip.consumer(of: .offset(17)) == "switchboard")
        try await second.set("porch", to: false)
        #expect(try chip.physicalLevel(.offset(17)) == true)
    }

    @Test func aConfigurationThatFailsToStartGivesTheLinesBack() throws {
        let chip = SimulatedGPIOChip(lineCount: 54)
        let chips: [String: any GPIOChip] = ["main": chip]
        var persisted = PersistedState()
        persisted.outputs = ["porch": true]
        let first = try DeviceHub(configuration: load(Self.sample), chips: chips, persisted: persisted, stateFile: nil)
        let moved = try load(Self.sample.replacingOccurrences(of: #""line": 27"#, with: #""line": 26"#))
        let handover = first.shutdown(handingOverTo: moved)
        let squatter = try chip.request(.offset(26), GPIOLineConfiguration(.input(), consumer: "other-app"))

        #expect(throws: GPIOError.self) {
            try DeviceHub(configuration: moved, chips: chips, persisted: PersistedState(), stateFile: nil, handover: handover)
        }
        #expect(handover.count == 3, "the lines taken before the failure went back")
        #expect(try chip.physicalLevel(.offset(17)) == true)
        handover.releaseRest()
        #expect(try chip.consumer(of: .offset(17)) == nil)
        #expect(try chip.physicalLevel(.offset(17)) == false, "released, the simulated line falls to its pull")
        _ = squatter
    }
}
